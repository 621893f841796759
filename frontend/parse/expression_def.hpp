// Definitions of the expression rules. Operators of all binary precedence
// levels are parsed as one flat chain; lower.cpp applies stap's precedence
// and associativity. Nodes are built by semantic actions so that a bare
// operand costs no wrapper allocation.
#pragma once

#include <boost/fusion/include/at_c.hpp>

#include "frontend/parse/grammar.hpp"

namespace stapx::parse::grammar {

using boost::fusion::at_c;
using x3::_attr;
using x3::_val;
using namespace x3ast;


// The operator sets (tokens.h): the lexer has taken the longest operator,
// so "+=" or "<<<" is never read as "+" or "<<".
inline bool is_binary_op(const Tok& t) { return (t.ops & kBinary) || t.is(Word::In); }
inline bool is_assign_op(const Tok& t) { return t.ops & kAssign; }
inline bool is_unary_op(const Tok& t) { return t.ops & kUnary; }
inline bool is_postfix_op(const Tok& t) { return t.ops & kPostfix; }

inline const auto to_val = [](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); };

const x3::rule<class identifier_class, NameRef> identifier = "identifier";
const ident_type ident_rule = "identifier";
const number_type number_rule = "number";
const string_type string_rule = "string";
const x3::rule<class paren_class, Operand> paren = "parenthesized expression";
const x3::rule<class expr_list_class, Vec<Operand>> expr_list = "literal string or number";
const x3::rule<class index_class, Index> index = "array index";
const x3::rule<class multi_in_class, MultiIn> multi_in = "array membership";
const argref_type arg_ref = "command line argument";
const embedded_type embedded = "embedded C";
const x3::rule<class dollar_name_class, NameRef> dollar_name = "target variable";
const x3::rule<class tcomp_class, TargetComponent> target_component = "'->' or '['";
const x3::rule<class field_class, NameRef> field_name = "identifier or keyword";  // stap's words
const x3::rule<class member_comp_class, TargetComponent> member_comp = "'->'";
const x3::rule<class key_class, Operand> key = "literal string or number";
const key_list_type key_list = "literal string or number";
const x3::rule<class pretty_class, NameRef> pretty = "'$'";
const x3::rule<class target_class, Target> target = "target variable";
const at_op_type at_op = "@ operator";
const x3::rule<class primary_class, Operand> primary = "literal string or number";
const expr_type expr_rule = "literal string or number";


// A name (letters, digits, '_' and '$'), not a keyword; its attribute is a
// view of the text.
struct identifier_parser : x3::parser<identifier_parser> {
  using attribute_type = NameRef;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr& attr) const {
    if (first == last || first->kind != TokKind::Ident || first->is_keyword()) return false;
    if constexpr (std::is_same_v<Attr, NameRef>) attr.text = first->view();
    ++first;
    return true;
  }
};
const auto identifier_def = identifier_parser{};

const auto ident_rule_def = mark >> identifier[([](auto& ctx) {
  _val(ctx).name = _attr(ctx).text;
})];

// Any run of letters and digits after a digit; lower.cpp validates it.
const auto number_rule_def = token([](const Tok& t) { return t.kind == TokKind::Number; }, "number")[(
    [](auto& ctx) {
      const Tok* t = _attr(ctx);
      _val(ctx).text = t->view();
      _val(ctx).pos = t;
    })];

// Adjacent string literals are one string, as in C: "__x64_" "sys_read".
const auto string_piece = token([](const Tok& t) { return t.kind == TokKind::String; }, "string");
const auto string_rule_def = +string_piece[([](auto& ctx) {
  const Tok* t = _attr(ctx);
  String& s = _val(ctx);
  std::string_view piece(t->text + 1, t->len - 2);
  if (!s.pos) {
    s.pos = t;
    s.raw = piece;
  } else {
    s.joined = scratch.concat(s.joined.empty() ? s.raw : s.joined, piece);
  }
})];

// (expr), or (expr)[i]->f: components applied to a parenthesized pointer.
const auto paren_def = ('(' > expr_rule > ')')[to_val] >>
                       -((+target_component >> -pretty)[([](auto& ctx) {
                         Member m;
                         m.base = _val(ctx);
                         m.components = std::move(at_c<0>(_attr(ctx)));
                         if (auto& p = at_c<1>(_attr(ctx))) m.pretty = p->text;
                         _val(ctx) = lowered(m);
                       })]);
// Lists: after a comma, another item must follow.
const auto expr_list_def = comma_list<Operand>(expr_rule);
// Array keys: an expression, or "*" for any key (delete a[k, *]).
const auto key_def = (x3::lit('*') >> &(x3::lit(',') | ']'))[([](auto& ctx) {
  Wildcard w;
  w.pos = nullptr;
  _val(ctx) = lowered(w);
})] | expr_rule[to_val];
const auto key_list_def = key > *(',' > key);

// $1 @2 $# @#
inline bool is_arg_ref(const Tok& t) {
  if ((t.kind != TokKind::Dollar && t.kind != TokKind::At) || t.len < 2) return false;
  if (t.text[1] == '#') return t.len == 2;
  for (uint32_t i = 1; i < t.len; ++i)
    if (t.text[i] < '0' || t.text[i] > '9') return false;
  return true;
}
const auto arg_ref_def = token(is_arg_ref, "command line argument")[([](auto& ctx) {
  const Tok* t = _attr(ctx);
  _val(ctx).text = t->view();
  _val(ctx).pos = t;
})];

const auto embedded_def =
    token([](const Tok& t) { return t.kind == TokKind::EmbeddedC; }, "embedded C")[([](auto& ctx) {
      const Tok* t = _attr(ctx);
      _val(ctx).code = std::string_view(t->text + 2, t->len - 4);
      _val(ctx).pos = t;
    })];

// $var, $$vars, $$parms, $$locals, $$return (stap takes any run of '$');
// a pretty-printing suffix is a token of its own (see TokenMaker).
inline bool is_target_name(const Tok& t) {
  if (t.kind != TokKind::Dollar) return false;
  uint32_t i = 1;
  while (i < t.len && t.text[i] == '$') ++i;
  return i < t.len && ((t.text[i] >= 'a' && t.text[i] <= 'z') || (t.text[i] >= 'A' && t.text[i] <= 'Z') ||
                       t.text[i] == '_');
}
const auto dollar_name_def = token(is_target_name, "target variable")[([](auto& ctx) {
  _val(ctx).text = _attr(ctx)->view();
})];

// A pretty-printing suffix: "$" or "$$" as a token of its own.
inline bool is_pretty_suffix(const Tok& t) { return t.is_op(op_code("$")) || t.is_op(op_code("$$")); }
const auto pretty_suffix = token(is_pretty_suffix, "'$'");

// ("->" before "$" or "$$" is no field: the suffix, below.)
const auto target_component_def =
    mark >> (((op("->") >> !pretty_suffix) > field_name)[([](auto& ctx) { _val(ctx).field = _attr(ctx).text; })] |
             ('[' > expr_rule > ']')[([](auto& ctx) { _val(ctx).index = std::move(_attr(ctx)); })]);

// "$" or "$$" after a target path: pretty-print it. As stap, also after
// blanks ("$var $") and after "->" ("$var->$", as stap's -p1 prints it).
const auto pretty_def = (-op("->") >> pretty_suffix[([](auto& ctx) { _val(ctx).text = _attr(ctx)->view(); })]);

// Struct fields may be named like keywords ("->next").
const auto field_name_def = token([](const Tok& t) {
                              return t.kind == TokKind::Ident && t.view().find('$') == std::string_view::npos;
                            },
                                  "field name")[([](auto& ctx) {
  _val(ctx).text = _attr(ctx)->view();
})];

const auto target_def = mark >> (dollar_name >> *target_component >> -pretty)[([](auto& ctx) {
  _val(ctx).base = at_c<0>(_attr(ctx)).text;
  _val(ctx).components = std::move(at_c<1>(_attr(ctx)));
  if (auto& p = at_c<2>(_attr(ctx))) _val(ctx).pretty = p->text;
})];

// The @ operators, each with its own argument list; then, for all, target
// paths ("->f", "[i]") and a pretty-printing suffix.
struct at_name_parser : x3::parser<at_name_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  std::string_view name;  // with its '@'
  constexpr explicit at_name_parser(const char* n) : name(n) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first == last || first->kind != TokKind::At || first->view() != name) return false;
    ++first;
    return true;
  }
};
inline constexpr at_name_parser op_name(const char* name) { return at_name_parser(name); }

// @defined(x), @count(s), ...: the operators of exactly one argument.
inline bool is_one_arg_op(const Tok& t) {
  if (t.kind != TokKind::At) return false;
  std::string_view n = t.view().substr(1);
  for (const char* op : {"defined", "entry", "probewrite", "const", "perf", "kregister", "uregister", "hist_log"})
    if (n == op) return true;
  return false;
}
// @this1, @this2 ...: a value one probe of a thread leaves for another
// (stap's; the lowering makes it a per-thread global).
inline bool is_this_var(const Tok& t) { return t.kind == TokKind::At && is_this_var_name(t.view().substr(1)); }
// @count(s), @sum(s), ...: the aggregates of one statistic.
inline bool is_aggregate_op(const Tok& t) {
  if (t.kind != TokKind::At) return false;
  std::string_view n = t.view().substr(1);
  return n == "count" || n == "sum" || n == "min" || n == "max" || n == "avg";
}

inline const auto set_op = [](const char* name) {
  return [name](auto& ctx) { _val(ctx).name = name; };
};
inline Operand as_operand(const Operand& op) { return op; }
inline Operand as_operand(const String& s) { return lowered(s); }
// (Room for four from the first: a scratch vector grown one by one leaves
// each smaller copy behind, and most take one to four arguments.)
inline const auto push_arg = [](auto& ctx) {
  auto& args = _val(ctx).args;
  if (args.empty()) args.reserve(4);
  args.push_back(as_operand(_attr(ctx)));
};

// The ')' of an aggregate: stap's words for a second argument.
const auto one_arg_close = x3::lit(')') | (&x3::lit(',') > named("!not more than 1 parameter allowed", x3::eps(false)));

const auto at_op_def =
    mark >>
    (  // @cast(p, "type"[, "module"])
        (op_name("@cast")[set_op("cast")] > '(' > expr_rule[push_arg] > ',' > string_rule[push_arg] >
         -(',' > string_rule[push_arg]) > ')') |
        // @var("name[@file]"[, "module"])
        (op_name("@var")[set_op("var")] > '(' > string_rule[push_arg] > -(',' > string_rule[push_arg]) >
         ')') |
        // @variance(s[, bucket])
        (op_name("@variance")[set_op("variance")] > '(' > expr_rule[push_arg] >
         -(',' > named("number", expr_rule[push_arg])) > ')') |
        // @hist_linear(s, low, high, width)
        (op_name("@hist_linear")[set_op("hist_linear")] > '(' > expr_rule[push_arg] > ',' >
         expr_rule[push_arg] > ',' > expr_rule[push_arg] > ',' > expr_rule[push_arg] > ')') |
        (token(is_one_arg_op, "@ operator")[([](auto& ctx) {
           _val(ctx).name = _attr(ctx)->view().substr(1);
         })] > '(' > expr_rule[push_arg] > ')') |
        (token(is_aggregate_op, "@ operator")[([](auto& ctx) {
           _val(ctx).name = _attr(ctx)->view().substr(1);
         })] > '(' > expr_rule[push_arg] > one_arg_close) |
        // @thisN: no arguments
        token(is_this_var, "@ operator")[([](auto& ctx) { _val(ctx).name = _attr(ctx)->view().substr(1); })]) >>
    *target_component[([](auto& ctx) { _val(ctx).components.push_back(std::move(_attr(ctx))); })] >>
    -pretty[([](auto& ctx) { _val(ctx).pretty = _attr(ctx).text; })];

const auto index_def = mark >> ((ident_rule >> '[') > key_list > named("one of '] ,'", x3::lit(']')))[([](auto& ctx) {
  _val(ctx).array = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).keys = std::move(at_c<1>(_attr(ctx)));
})];

const auto multi_in_def = mark >>
    (('[' > key_list > ']') > kw("in") > named("identifier or statistical operation", ident_rule))[([](auto& ctx) {
      _val(ctx).keys = std::move(at_c<0>(_attr(ctx)));
      _val(ctx).array = std::move(at_c<1>(_attr(ctx)));
    })];

// The operands that start with an identifier, tried first as they are the
// most common: a call (name then '('), an array index (name then '['), or
// a variable. The name is scanned once and the next token decides, instead
// of the other alternatives failing one by one and the name being parsed up
// to three times. Keywords are no operands.
struct ident_operand_parser : own_attribute_parser<ident_operand_parser, Operand> {
  using own_attribute_parser::parse;
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Operand& attr) const {
    if (first == last || first->kind != TokKind::Ident || first->is_keyword()) return false;
    It next = first + 1;
    if (next != last && next->is_op(op_code("("))) {
      // name '(' > -expr_list > ')', by hand: X3's sequence and rule for
      // it cost more than its parts, for one of the commonest operands.
      Call c;
      c.pos = first;
      c.name = first->view();
      It i = next + 1;
      expr_list.parse(i, last, ctx, x3::unused, c.args);  // (no arguments, or it throws)
      list_close_parser("literal string or number", "one of ') ,'").parse(i, last, ctx, x3::unused, x3::unused);
      first = i;
      attr = lowered(c);
    } else if (next != last && next->is_op(op_code("["))) {
      Index ix;
      if (!index.parse(first, last, ctx, x3::unused, ix)) return false;
      attr = lowered(ix);
    } else {
      Ident id;
      id.pos = first;
      id.name = first->view();
      attr = lowered(id);
      first = next;
    }
    return true;
  }
};
inline constexpr ident_operand_parser ident_operand{};

// An operand's first token decides which operand it is: each rule below
// fails at its own first token or not at all (past it, it expects), so
// trying them in turn, as an alternative would, only costs each one's
// attribute being made and dropped.
struct primary_parser : own_attribute_parser<primary_parser, Operand> {
  using own_attribute_parser::parse;
  template <typename It, typename Ctx>
  static bool bracketed(It& first, It const& last, Ctx const& ctx, Operand& attr);
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Operand& attr) const {
    if (first == last) return false;
    switch (first->kind) {
      case TokKind::Ident: return ident_operand.parse(first, last, ctx, rctx, attr);
      case TokKind::Number: return parse_lowered(number_rule, first, last, ctx, attr);
      case TokKind::String: return parse_lowered(string_rule, first, last, ctx, attr);
      case TokKind::Dollar:
        return is_arg_ref(*first) ? parse_lowered(arg_ref, first, last, ctx, attr)
                                  : parse_lowered(target, first, last, ctx, attr);
      case TokKind::At:
        return is_arg_ref(*first) ? parse_lowered(arg_ref, first, last, ctx, attr)
                                  : parse_lowered(at_op, first, last, ctx, attr);
      case TokKind::EmbeddedC: return parse_lowered(embedded, first, last, ctx, attr);
      default:
        if (first->is_op(op_code("("))) return paren.parse(first, last, ctx, rctx, attr);
        if (first->is_op(op_code("["))) return bracketed(first, last, ctx, attr);
        return false;
    }
  }
};
const auto primary_def = primary_parser{};

// "[k1, k2] in a"; as in stap, "[k]" without "in" is k itself.
template <typename It, typename Ctx>
bool primary_parser::bracketed(It& first, It const& last, Ctx const& ctx, Operand& attr) {
  It i = first + 1;
  Vec<Operand> keys;
  if (!key_list.parse(i, last, ctx, x3::unused, keys)) throw x3::expectation_failure<It>(i, x3::what(key_list));
  if (i == last || !i->is_op(op_code("]"))) throw x3::expectation_failure<It>(i, "']'");
  ++i;
  if (i != last && i->is(Word::In)) return parse_lowered(multi_in, first, last, ctx, attr);
  if (keys.size() > 1) throw x3::expectation_failure<It>(i, "!unexpected comma-separated expression list");
  attr = keys[0];
  first = i;
  return true;
}

// "->field" after any operand (a typed pointer).
const auto member_comp_def = mark >> (op("->") > field_name)[([](auto& ctx) {
                               _val(ctx).field = _attr(ctx).text;
                             })];

// "->f[i]$" after any operand (a typed pointer): the Member's components
// and pretty-printing suffix.
const x3::rule<class member_tail_class, Member> member_tail = "'->'";
const auto member_tail_def = (+member_comp >> *target_component >> -pretty)[([](auto& ctx) {
  Member& m = _val(ctx);
  m.components = std::move(at_c<0>(_attr(ctx)));
  for (auto& c : at_c<1>(_attr(ctx))) m.components.push_back(std::move(c));
  if (auto& p = at_c<2>(_attr(ctx))) m.pretty = p->text;
})];

// Expressions, from assignment down to an operand's prefix and postfix
// operators, as one X3 parser: its levels are loops and calls here, where
// each was an X3 rule whose call made a context and moved an Operand in
// and out. What it accepts, and where and what it expects, are the rules'
// that it replaces:
//   expression := ternary [assign-op expression]
//   ternary    := unary {binary-op unary} ['?' expression ':' ternary]
//   unary      := unary-op unary | primary ['->' member_tail] [postfix-op]
// (binary operators are a flat chain; lower.cpp applies precedence).
struct expression_parser : own_attribute_parser<expression_parser, Operand> {
  using own_attribute_parser::parse;

  // What X3's expectation operator throws when what follows fails.
  [[noreturn]] static void expected(const Tok* at, const char* what) {
    throw x3::expectation_failure<const Tok*>(at, what);
  }

  template <typename It, typename Ctx>
  static bool unary(It& first, It const& last, Ctx const& ctx, Operand& attr) {
    if (first == last) return false;
    if (is_unary_op(*first)) {
      Unary u;
      u.pos = first;
      u.op = first->view();
      ++first;
      if (!unary(first, last, ctx, u.operand)) expected(first, "literal string or number");
      attr = lowered(u);
      return true;
    }
    if (!primary.parse(first, last, ctx, x3::unused, attr)) return false;
    if (first != last && first->is_op(op_code("->"))) {
      Member m;
      m.base = attr;
      member_tail.parse(first, last, ctx, x3::unused, m);  // past "->" it expects a field
      attr = lowered(m);
    }
    if (first != last && is_postfix_op(*first)) {
      Unary u;
      u.op = first->view();
      u.post = true;
      u.pos = first;
      u.operand = attr;
      ++first;
      attr = lowered(u);
    }
    return true;
  }

  template <typename It, typename Ctx>
  static bool ternary(It& first, It const& last, Ctx const& ctx, Operand& attr) {
    It start = first;
    if (!unary(first, last, ctx, attr)) return false;
    if (first != last && is_binary_op(*first)) {
      Chain c;
      c.pos = start;
      c.first = attr;
      do {
        ChainLink& link = c.rest.emplace_back();
        link.pos = first;
        link.op = first->view();
        ++first;
        if (!unary(first, last, ctx, link.rhs))
          expected(first, link.op == "=~" || link.op == "!~" ? "literal string" : "literal string or number");
      } while (first != last && is_binary_op(*first));
      attr = lowered(c);
    }
    if (first != last && first->is_op(op_code("?"))) {
      Ternary t;
      t.cond = attr;
      ++first;
      if (!expr_rule.parse(first, last, ctx, x3::unused, t.then)) expected(first, "literal string or number");
      if (first == last || !first->is_op(op_code(":"))) expected(first, "':'");
      ++first;
      if (!ternary(first, last, ctx, t.els)) expected(first, "literal string or number");
      attr = lowered(t);
    }
    return true;
  }

  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Operand& attr) const {
    if (!ternary(first, last, ctx, attr)) return false;
    if (first != last && is_assign_op(*first)) {
      Assign a;
      a.pos = first;
      a.op = first->view();
      a.lhs = attr;
      ++first;
      if (!expr_rule.parse(first, last, ctx, x3::unused, a.rhs)) expected(first, "literal string or number");
      attr = lowered(a);
    }
    return true;
  }
};
const auto expr_rule_def = expression_parser{};

BOOST_SPIRIT_DEFINE(expr_list, field_name, member_comp, key, key_list)
BOOST_SPIRIT_DEFINE(arg_ref, embedded, dollar_name, target_component, pretty,
                    target, at_op)
BOOST_SPIRIT_DEFINE(identifier, ident_rule, number_rule, string_rule, paren, index, multi_in,
                    primary, member_tail, expr_rule)

}  // namespace stapx::parse::grammar
