// Definitions of statements, probe points and top-level declarations.
// Expressions come from the expression part through the *_ref rules.
#pragma once

#include <boost/fusion/include/at_c.hpp>

#include "frontend/parse/grammar.hpp"

namespace stapx::parse::grammar {

using boost::fusion::at_c;
using x3::_attr;
using x3::_val;
using namespace x3ast;


inline const auto to_val = [](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); };

const x3::rule<class statement_class, Statement> statement = "statement";
const x3::rule<class block_class, Block> block = "'{'";
const x3::rule<class if_class, If> if_stmt = "if statement";
const x3::rule<class while_class, While> while_stmt = "while statement";
const x3::rule<class for_class, For> for_stmt = "for statement";
const x3::rule<class foreach_class, Foreach> foreach_stmt = "foreach statement";
const x3::rule<class try_class, Try> try_stmt = "try statement";
const x3::rule<class foreach_agg_class, ForeachAggregate> foreach_aggregate = "aggregate";
const x3::rule<class aggregate_name_class, NameRef> aggregate_name = "aggregate";
const x3::rule<class foreach_slice_class, ForeachSlice> foreach_slice = "array slice";
const x3::rule<class foreach_array_class, ForeachArray> foreach_array = "identifier or statistical operation";
const x3::rule<class sorted_class, SortedIdent> sorted_ident = "identifier";
const x3::rule<class sort_marker_class, SortMarker> sort_marker = "'+' or '-'";
const x3::rule<class simple_class, Simple> simple_stmt = "statement";
const x3::rule<class return_class, Return> return_stmt = "return statement";
const x3::rule<class delete_class, Delete> delete_stmt = "delete statement";
const x3::rule<class exprstmt_class, ExprStmt> expr_stmt = "statement";
const x3::rule<class fkeys_class, Vec<SortedIdent>> foreach_keys = "identifier";
const x3::rule<class literal_class, Operand> literal = "literal string or number";
const x3::rule<class component_class, ProbePointComponent> component = "probe point component";
const x3::rule<class point_class, ProbePoint> probe_point = "identifier or '*' or '{'";  // stap's words
const x3::rule<class point_element_class, PointElement> point_element = "identifier or '*' or '{'";
const x3::rule<class point_list_class, Vec<ProbePoint>> point_list = "identifier or '*' or '{'";
const x3::rule<class point_elements_class, Vec<PointElement>> point_elements = "identifier or '*' or '{'";
const x3::rule<class probe_class, Probe> probe = "probe";
const x3::rule<class globalvar_class, GlobalVar> global_var = "global variable";
const x3::rule<class global_class, Global> global = "global";
const x3::rule<class global_vars_class, Vec<GlobalVar>> global_vars = "identifier";
const x3::rule<class global_init_class, Operand> global_init = "literal string or number";
const x3::rule<class sized_no_init_class> sized_no_init = "!only scalar globals can be initialized";
const x3::rule<class param_class, Param> param = "parameter";
const x3::rule<class type_class, NameRef> type_name = "'string' or 'long'";
const x3::rule<class function_class, Function> function = "function";
const x3::rule<class alias_op_class, NameRef> alias_op = "'=' or '+='";
const x3::rule<class alias_part_class, AliasPart> alias_part = "probe alias";
const toplevel_type toplevel_rule = "'probe', 'global', 'private', 'function', or '%{'";

// mark >> ('{' > *statement > '}'), hand-written: X3's kleene collects the
// statements in a vector of its own and moves them over.
struct block_parser : own_attribute_parser<block_parser, Block> {
  using own_attribute_parser::parse;
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Block& out) const;
};
const auto block_def = block_parser{};

const auto if_stmt_def = mark >>
    (kw("if") > '(' > expr_ref > ')' > statement > -(kw("else") > statement))[([](auto& ctx) {
      _val(ctx).cond = std::move(at_c<0>(_attr(ctx)));
      _val(ctx).then = std::move(at_c<1>(_attr(ctx)));
      _val(ctx).els = std::move(at_c<2>(_attr(ctx)));
    })];

const auto while_stmt_def = mark >> (kw("while") > '(' > expr_ref > ')' > statement)[([](auto& ctx) {
  _val(ctx).cond = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).body = std::move(at_c<1>(_attr(ctx)));
})];

const auto for_stmt_def = mark >> (kw("for") > '(' > -expr_ref > ';' > -expr_ref > ';' > -expr_ref > ')' >
                           statement)[([](auto& ctx) {
  _val(ctx).init = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).cond = std::move(at_c<1>(_attr(ctx)));
  _val(ctx).incr = std::move(at_c<2>(_attr(ctx)));
  _val(ctx).body = std::move(at_c<3>(_attr(ctx)));
})];

// A token's text as a rule's string attribute.
inline const auto tok_text = [](auto& ctx) { _val(ctx).text = _attr(ctx)->view(); };

const x3::rule<class sort_mark_class, NameRef> sort_mark = "'+' or '-'";
const auto sort_mark_def =
    token([](const Tok& t) { return t.is_op(op_code("+")) || t.is_op(op_code("-")); }, "'+' or '-'")[tok_text];

const auto sort_marker_def = mark >> sort_mark[([](auto& ctx) { _val(ctx).sort = _attr(ctx).text; })];

const auto sorted_ident_def = mark >>
    (ident_ref >> -sort_marker)[(
        [](auto& ctx) {
          _val(ctx).ident = std::move(at_c<0>(_attr(ctx)));
          if (auto& s = at_c<1>(_attr(ctx))) {
            _val(ctx).sort_pos = s->pos;
            _val(ctx).sort = s->sort;
          }
        })];

// foreach ([v =] [k1, k2] in a[+-] [limit N]) or foreach ([v =] k in a ...)
// (After a ',' a key must follow: stap's "expected identifier" at '*'.)
const auto foreach_keys_def =
    ('[' > named("identifier", comma_list<SortedIdent>(sorted_ident)) > named("',' or ']'", x3::lit(']')))[to_val] |
    sorted_ident[([](auto& ctx) { _val(ctx).push_back(_attr(ctx)); })];

// The value form is tried only when "v =" is really there: X3 does not undo
// a partly parsed optional's attribute when it backtracks.
const auto aggregate_name_def = token([](const Tok& t) {
                                  if (t.kind != TokKind::At) return false;
                                  std::string_view n = t.view().substr(1);
                                  return n == "count" || n == "sum" || n == "min" || n == "max" || n == "avg";
                                },
                                      "aggregate")[([](auto& ctx) {
  _val(ctx).text = _attr(ctx)->view().substr(1);
})];
const auto foreach_aggregate_def =
    mark >> (aggregate_name >> -sort_marker)[([](auto& ctx) {
      _val(ctx).name = at_c<0>(_attr(ctx)).text;
      if (auto& s = at_c<1>(_attr(ctx))) {
        _val(ctx).sort_pos = s->pos;
        _val(ctx).sort = s->sort;
      }
    })];

const auto foreach_slice_def = ('[' > key_list_ref > ']' >> -sort_marker)[([](auto& ctx) {
  _val(ctx).keys = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).sort = std::move(at_c<1>(_attr(ctx)));
})];

// foreach (b in @hist_log(s)): iterate over a histogram's buckets.
const auto foreach_array_def =
    mark >> ((&token([](const Tok& t) { return t.kind == TokKind::At; }, "'@'") > at_op_ref)[([](auto& ctx) { _val(ctx).histogram = lowered(_attr(ctx)); })] |
             sorted_ident[([](auto& ctx) { _val(ctx).array = std::move(_attr(ctx)); })]);

const auto foreach_stmt_def = mark >>
    (kw("foreach") > '(' > -(&(sorted_ident >> '=') >> sorted_ident >> '=') > foreach_keys > kw("in") > foreach_array >
     -foreach_slice > -foreach_aggregate > -(kw("limit") > expr_ref) > ')' > statement)[([](auto& ctx) {
      auto& a = _attr(ctx);
      _val(ctx).value = std::move(at_c<0>(a));
      _val(ctx).keys = std::move(at_c<1>(a));
      _val(ctx).array = std::move(at_c<2>(a).array);
      _val(ctx).histogram = std::move(at_c<2>(a).histogram);
      if (auto& slice = at_c<3>(a)) {
        _val(ctx).slice = std::move(slice->keys);
        _val(ctx).slice_sort = std::move(slice->sort);
      }
      _val(ctx).aggregate = std::move(at_c<4>(a));
      _val(ctx).limit = std::move(at_c<5>(a));
      _val(ctx).body = std::move(at_c<6>(a));
    })];

const auto try_stmt_def = mark >> (kw("try") > block > kw("catch") > -('(' > ident_ref > ')') > block)[(
                                      [](auto& ctx) {
                                        _val(ctx).body = std::move(at_c<0>(_attr(ctx)));
                                        _val(ctx).var = std::move(at_c<1>(_attr(ctx)));
                                        _val(ctx).handler = std::move(at_c<2>(_attr(ctx)));
                                      })];

const auto simple_stmt_def =
    mark >> token([](const Tok& t) { return t.is(Word::Next) || t.is(Word::Break) || t.is(Word::Continue); },
                  "statement")[([](auto& ctx) { _val(ctx).keyword = _attr(ctx)->view(); })];

const auto return_stmt_def = mark >> (kw("return") >> -expr_ref)[([](auto& ctx) {
  _val(ctx).value = std::move(_attr(ctx));
})];

const auto delete_stmt_def = mark >> (kw("delete") > expr_ref)[([](auto& ctx) {
  _val(ctx).target = std::move(_attr(ctx));
})];

const auto expr_stmt_def = mark >> expr_ref[([](auto& ctx) {
  _val(ctx).expr = std::move(_attr(ctx));
})];

// A statement, or a lone ';'; any statement may be followed by one ';'.
// The first token decides which statement it is: '{' a block, a keyword
// its statement (each fails at its keyword or not at all), anything else
// an expression. Trying them in turn, as an alternative would, cost each
// one's attribute being made and dropped.
struct statement_parser : own_attribute_parser<statement_parser, Statement> {
  using own_attribute_parser::parse;
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Statement& attr) const {
    if (first == last) return false;
    if (first->is_op(op_code(";"))) {  // a lone ';': no node (its position is never shown)
      attr.node = nullptr;
      ++first;
      return true;
    }
    if (!one_statement(first, last, ctx, attr)) return false;
    if (first != last && first->is_op(op_code(";"))) ++first;  // any statement may be followed by one ';'
    return true;
  }
  template <typename It, typename Ctx>
  static bool one_statement(It& first, It const& last, Ctx const& ctx, Statement& attr) {
    switch (first->word) {
      case Word::If: return parse_lowered(if_stmt, first, last, ctx, attr);
      case Word::While: return parse_lowered(while_stmt, first, last, ctx, attr);
      case Word::For: return parse_lowered(for_stmt, first, last, ctx, attr);
      case Word::Foreach: return parse_lowered(foreach_stmt, first, last, ctx, attr);
      case Word::Try: return parse_lowered(try_stmt, first, last, ctx, attr);
      case Word::Next:
      case Word::Break:
      case Word::Continue: return parse_lowered(simple_stmt, first, last, ctx, attr);
      case Word::Return: return parse_lowered(return_stmt, first, last, ctx, attr);
      case Word::Delete: return parse_lowered(delete_stmt, first, last, ctx, attr);
      default:
        if (first->is_op(op_code("{"))) return parse_lowered(block, first, last, ctx, attr);
        return parse_lowered(expr_stmt, first, last, ctx, attr);
    }
  }
};

const auto statement_def = statement_parser{};

template <typename It, typename Ctx, typename RCtx>
bool block_parser::parse(It& first, It const& last, Ctx const& ctx, RCtx&, Block& out) const {
  if (first == last || !first->is_op(op_code("{"))) return false;
  out.pos = first;
  It i = first + 1;
  out.stmts.reserve(8);
  Statement s;
  while (statement.parse(i, last, ctx, x3::unused, s)) out.stmts.push_back(s);
  if (i != last && i->is_op(op_code("}"))) {
    first = i + 1;
    return true;
  }
  // Not a statement, nor the end ('last' is the End token).
  throw x3::expectation_failure<It>(i, statement_expectation(*i));
}

// `-N` as one literal: the number's text with its sign.
const auto negated_number = [](auto& ctx) {
  Number n = std::move(_attr(ctx));
  n.text = scratch.concat("-", n.text);
  _val(ctx) = lowered(n);
};

const auto literal_def = number_ref[build] | string_ref[build] | argref_ref[build] |
                         ('-' >> number_ref)[negated_number];

const x3::rule<class component_name_class, NameRef> component_name = "probe point name";
// A name, wildcards allowed ("sys_*", "**"), not starting with a digit:
// one token, or a run of glued ones ("sys_" "*").
struct component_name_parser : x3::parser<component_name_parser> {
  using attribute_type = NameRef;
  static bool starts(const Tok& t) { return t.kind == TokKind::Ident || t.is_op(op_code("*")); }
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr& attr) const {
    if (first == last || !starts(*first)) return false;
    It i = first + 1;
    while (i != last && i->glued() && (starts(*i) || i->kind == TokKind::Number)) ++i;
    // (Glued tokens are adjacent in one text: the name is that text.)
    if constexpr (std::is_same_v<Attr, NameRef>)
      attr.text = std::string_view(first->text, static_cast<size_t>(i[-1].text + i[-1].len - first->text));
    first = i;
    return true;
  }
};
const auto component_name_def = component_name_parser{};

const auto component_def = mark >>
    (component_name >> -('(' > literal > ')'))[([](auto& ctx) {
      _val(ctx).name = at_c<0>(_attr(ctx)).text;
      _val(ctx).arg = std::move(at_c<1>(_attr(ctx)));
    })];

const auto point_element_def =
    component[to_val] | ('{' > point_list > '}')[([](auto& ctx) {
      PointGroup g;
      g.alternatives = std::move(_attr(ctx));
      _val(ctx) = std::move(g);
    })];

const auto point_list_def = comma_list<ProbePoint>(probe_point);

// point_element > *('.' > point_element), hand-written: X3's sequence,
// alternative and variant cost several times the work for each element.
// The pieces are still their rules (component_name, literal, and
// point_element for a brace group), and a missing element is the same
// expectation failure.
const auto component_arg = '(' > literal > ')';
struct point_elements_parser : own_attribute_parser<point_elements_parser, Vec<PointElement>> {
  using own_attribute_parser::parse;
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Vec<PointElement>& out) const {
    It i = first;
    if (!rest(i, last, ctx, out)) return false;
    first = i;
    return true;
  }
  // The elements from i on, after those already in `out`.
  template <typename It, typename Ctx>
  static bool rest(It& i, It const& last, Ctx const& ctx, Vec<PointElement>& out) {
    if (!element(i, last, ctx, out)) {
      if (out.empty()) return false;
      throw x3::expectation_failure<It>(i, x3::what(point_element));
    }
    while (i != last && i->is_op(op_code("."))) {
      ++i;
      if (!element(i, last, ctx, out)) throw x3::expectation_failure<It>(i, x3::what(point_element));
    }
    return true;
  }
  // A plain component: its name, and its argument, lowered.
  template <typename It, typename Ctx>
  static x3ast::PendingComponent component(It& i, It const& last, Ctx const& ctx) {
    x3ast::PendingComponent c{i, {}, nullptr};
    NameRef name;
    component_name_parser{}.parse(i, last, ctx, x3::unused, name);
    c.name = name.text;
    if (i != last && i->is_op(op_code("("))) {
      Operand arg;
      component_arg.parse(i, last, ctx, x3::unused, arg);  // (or throws)
      c.arg = arg.node;
    }
    return c;
  }
  template <typename It, typename Ctx>
  static bool element(It& i, It const& last, Ctx const& ctx, Vec<PointElement>& out) {
    if (i == last) return false;
    if (!component_name_parser::starts(*i)) {
      PointElement group;  // '{' point_list '}', or nothing
      if (!point_element.parse(i, last, ctx, x3::unused, group)) return false;
      out.push_back(std::move(group));
      return true;
    }
    out.push_back(as_element(component(i, last, ctx)));
    return true;
  }
  // A component read as a pending one, as an element.
  static PointElement as_element(const x3ast::PendingComponent& p) {
    ProbePointComponent c;
    c.pos = p.pos;
    c.name = p.name;
    if (p.arg) c.arg = Operand{p.arg};
    return PointElement(std::move(c));
  }
};
const auto point_elements_def = point_elements_parser{};

// point_elements >> -point_suffix >> -(kw("if") > '(' > expr_ref > ')'),
// by hand: a point of plain components (nearly all) is built as it is
// parsed (Lowerer::build), with no X3 element of it; at the first brace
// group, the components so far become elements, and the rest is parsed as
// elements.
const auto point_condition = kw("if") > '(' > expr_ref > ')';
struct probe_point_parser : own_attribute_parser<probe_point_parser, ProbePoint> {
  using own_attribute_parser::parse;
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, ProbePoint& out) const {
    // The components so far (kept from point to point; a brace group's
    // points use it above this one's).
    thread_local std::vector<x3ast::PendingComponent> pending;
    struct Truncate {
      std::vector<x3ast::PendingComponent>& v;
      size_t size;
      ~Truncate() { v.resize(size); }
    } truncate{pending, pending.size()};
    const size_t base = truncate.size;
    It i = first;
    out.pos = i;
    bool plain = false;  // the components so far are the whole point
    while (i != last && component_name_parser::starts(*i)) {
      pending.push_back(point_elements_parser::component(i, last, ctx));
      plain = i == last || !i->is_op(op_code("."));
      if (plain) break;
      ++i;
    }
    if (plain) {
      out.built = lowering().build(out.pos, std::span(pending.data() + base, pending.size() - base));
    } else {
      // A brace group (or no element, or none after a '.'): elements.
      for (size_t k = base; k < pending.size(); ++k)
        out.elements.push_back(point_elements_parser::as_element(pending[k]));
      if (!point_elements_parser::rest(i, last, ctx, out.elements)) return false;
    }
    if (i != last && (i->is_op(op_code("?")) || i->is_op(op_code("!")))) {
      out.suffix = i->view();
      ++i;
    }
    if (i != last && i->is(Word::If)) {
      Operand cond;
      point_condition.parse(i, last, ctx, x3::unused, cond);  // (or throws)
      out.condition = cond;
    }
    first = i;
    return true;
  }
};

const auto probe_point_def = probe_point_parser{};

// probe P, Q { }   or an alias:  probe NAME = P, Q { }  /  probe NAME += P { }
const auto alias_part_def = mark >> (alias_op > point_list)[([](auto& ctx) {
  _val(ctx).op = at_c<0>(_attr(ctx)).text;
  _val(ctx).points = std::move(at_c<1>(_attr(ctx)));
})];

// A probe's body: after its points stap expects any of these.
const x3::rule<class probe_body_class, Block> probe_body = "one of ', { } = +='";
const auto probe_body_def = block;

const auto probe_def = mark >> (kw("probe") > point_list > -alias_part > probe_body >
                                -(',' > block))[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx).points = std::move(at_c<0>(a));
  if (auto& alias = at_c<1>(a)) {
    _val(ctx).alias_op = alias->op;
    _val(ctx).alias_pos = alias->pos;
    _val(ctx).alias_points = std::move(alias->points);
  }
  _val(ctx).body = std::move(at_c<2>(a));
  _val(ctx).epilogue = std::move(at_c<3>(a));
})];

// name, name%, name[100], name%[100], name = literal
const auto wrap_mark = x3::lit('%')[([](auto& ctx) { _val(ctx).wrap = true; })];
const auto global_var_def = mark >> ident_ref[([](auto& ctx) { _val(ctx).name = std::move(_attr(ctx)); })] >>
                            -wrap_mark >>
                            // A sized array has no initializer: "=" after "]" is an error there.
                            -(('[' > number_ref > ']' > sized_no_init)[([](auto& ctx) { _val(ctx).size = std::move(_attr(ctx)); })]) >>
                            -(('=' > global_init)[([](auto& ctx) { _val(ctx).init = std::move(_attr(ctx)); })]);

const auto global_vars_def = (global_var > *(',' > global_var)) >> -x3::lit(';');

const auto sized_no_init_def = !x3::lit('=');

// An initializer is a literal: a number (maybe negative) or a string.
const auto global_init_def = number_ref[build] | string_ref[build] |
                             ('-' > named("literal string or number", number_ref))[negated_number];

// "global a, b", "private global a", or "private a" (a private global).
const auto set_vars = [](auto& ctx) { _val(ctx).vars = std::move(_attr(ctx)); };
const auto global_def =
    mark >> (((kw("private") >> !kw("function"))[([](auto& ctx) { _val(ctx).is_private = true; })] >
              named("'function' or identifier", (kw("global") > global_vars[set_vars]) | global_vars[set_vars])) |
             (kw("global") > global_vars[set_vars]));

const auto alias_op_def =
    token([](const Tok& t) { return t.is_op(op_code("+=")) || t.is_op(op_code("=")); }, "'=' or '+='")[tok_text];

const auto type_name_def =
    token([](const Tok& t) { return t.is(Word::Long) || t.is(Word::String); }, "type name")[tok_text];

const auto param_def = mark >> (ident_ref >> -(':' > type_name))[([](auto& ctx) {
  _val(ctx).name = std::move(at_c<0>(_attr(ctx)));
  if (auto& t = at_c<1>(_attr(ctx))) _val(ctx).type = t->text;
})];

const auto function_def =
    mark >> -kw("private")[([](auto& ctx) { _val(ctx).is_private = true; })] >>
    ((kw("function") > ident_ref > -(':' > type_name) > '(' > -(param % ',') > -x3::lit(',') > list_close_parser("identifier", "',' or ')'"))[([](auto& ctx) {
      auto& a = _attr(ctx);
      _val(ctx).name = std::move(at_c<0>(a));
      if (auto& t = at_c<1>(a)) _val(ctx).type = t->text;
      if (auto& p = at_c<2>(a)) _val(ctx).params = std::move(*p);
    })] > (block[([](auto& ctx) { _val(ctx).body = std::move(_attr(ctx)); })] |
           embedded_ref[([](auto& ctx) { _val(ctx).embedded = std::move(_attr(ctx)); })]));

const auto toplevel_rule_def =
    probe[to_val] | global[to_val] | function[to_val] | embedded_ref[to_val];

BOOST_SPIRIT_DEFINE(sort_mark, sort_marker, component_name)
BOOST_SPIRIT_DEFINE(foreach_aggregate, aggregate_name, foreach_slice, foreach_array)
BOOST_SPIRIT_DEFINE(try_stmt, alias_op, alias_part, point_element, point_list, point_elements, global_vars,
                    global_init, sized_no_init)
BOOST_SPIRIT_DEFINE(statement, block, probe_body, if_stmt, while_stmt, for_stmt, foreach_keys, foreach_stmt,
                    sorted_ident, simple_stmt, return_stmt, delete_stmt, expr_stmt, literal,
                    component, probe_point, probe, global_var, global, type_name, param, function,
                    toplevel_rule)

}  // namespace stapx::parse::grammar
