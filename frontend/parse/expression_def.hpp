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


// Reserved words, which are no identifiers. Every name scanned is tested,
// so by length and text rather than by walking an x3::symbols tree.
inline bool is_keyword(const char* begin, const char* end) {
  std::string_view w(begin, end - begin);
  switch (w.size()) {
    case 2: return w == "if" || w == "in";
    case 3: return w == "for" || w == "try";
    case 4: return w == "else" || w == "next";
    case 5: return w == "probe" || w == "limit" || w == "while" || w == "break" || w == "catch";
    case 6: return w == "global" || w == "return" || w == "delete";
    case 7: return w == "private" || w == "foreach";
    case 8: return w == "function" || w == "continue";
    default: return false;
  }
}

struct BinaryOps : x3::symbols<std::string> {
  BinaryOps() {
    for (const char* op : {"||", "&&", "|", "^", "&", "<", ">", "=~", "!~", "<<", ">>", ">>>", ".",
                           "+", "-", "*", "/"})
      add(op, op);
  }
};
inline const BinaryOps binary_ops;

// Comparisons that end in '=' themselves: no compound-assignment guard.
struct ComparisonOps : x3::symbols<std::string> {
  ComparisonOps() {
    for (const char* op : {"==", "!=", "<=", ">="}) add(op, op);
  }
};
inline const ComparisonOps comparison_ops;

struct AssignOps : x3::symbols<std::string> {
  AssignOps() {
    for (const char* op : {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", ">>>=", "&=", "|=",
                           "^=", ".=", "<<<"})
      add(op, op);
  }
};
inline const AssignOps assign_ops;

inline const auto to_val = [](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); };

const x3::rule<class identifier_class, NameRef> identifier = "identifier";
const ident_type ident_rule = "identifier";
const number_type number_rule = "number";
const string_type string_rule = "string";
const x3::rule<class paren_class, Operand> paren = "parenthesized expression";
const x3::rule<class expr_list_class, std::vector<Operand>> expr_list = "expression";
const x3::rule<class call_class, Call> call = "function call";
const x3::rule<class index_class, Index> index = "array index";
const x3::rule<class multi_in_class, MultiIn> multi_in = "array membership";
const argref_type arg_ref = "command line argument";
const embedded_type embedded = "embedded C";
const x3::rule<class dollar_name_class, std::string> dollar_name = "target variable";
const x3::rule<class tcomp_class, TargetComponent> target_component = "'->' or '['";
const x3::rule<class field_class, std::string> field_name = "field name";
const x3::rule<class member_comp_class, TargetComponent> member_comp = "'->'";
const x3::rule<class key_class, Operand> key = "expression";
const key_list_type key_list = "expression";
const x3::rule<class pretty_class, std::string> pretty = "'$'";
const x3::rule<class target_class, Target> target = "target variable";
const at_op_type at_op = "@ operator";
const x3::rule<class primary_class, Operand> primary = "expression";
const x3::rule<class unary_class, Operand> unary = "expression";
const x3::rule<class chain_class, Chain> chain = "expression";
const x3::rule<class ternary_class, Operand> ternary = "expression";
const expr_type expr_rule = "expression";
const x3::rule<class postfix_op_class, OpTok> postfix_op = "operator";
const x3::rule<class unary_op_class, OpTok> unary_op = "operator";
const x3::rule<class binary_op_class, OpTok> binary_op = "operator";
const x3::rule<class assign_op_class, OpTok> assign_op = "operator";


// Letters, digits, '_' and '$' (stap allows '$' after the first character),
// not a keyword. Scans the name once; its attribute is a view of the text.
struct identifier_parser : x3::parser<identifier_parser> {
  using attribute_type = NameRef;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || !ident_start(*first)) return false;
    It end = first + 1;
    while (end != last && ident_char(*end)) ++end;
    if (is_keyword(first, end)) return false;
    if constexpr (std::is_same_v<Attr, NameRef>) attr.text = std::string_view(first, end - first);
    first = end;
    return true;
  }
};
const auto identifier_def = identifier_parser{};

const auto ident_rule_def = mark >> identifier[([](auto& ctx) {
  _val(ctx).name = _attr(ctx).text;
})];

// Any run of letters and digits after a digit; lower.cpp validates it.
const auto number_rule_def = x3::raw[x3::lexeme[digit_ >> *alnum_]][([](auto& ctx) {
  auto& r = _attr(ctx);
  _val(ctx).text.assign(r.begin(), r.end());
  _val(ctx).pos = r.begin();
})];

// Adjacent string literals are one string, as in C: "__x64_" "sys_read".
const auto string_piece = x3::raw[x3::lexeme['"' >> *(('\\' >> x3::char_) | ~x3::char_("\"\\\n")) > '"']];
const auto string_rule_def = +string_piece[([](auto& ctx) {
  auto& r = _attr(ctx);
  String& s = _val(ctx);
  std::string_view piece(r.begin() + 1, r.size() - 2);
  if (!s.pos) {
    s.pos = r.begin();
    s.raw = piece;
  } else {
    if (s.joined.empty()) s.joined.assign(s.raw);
    s.joined.append(piece);
  }
})];

// (expr), or (expr)[i]->f: components applied to a parenthesized pointer.
const auto paren_def = ('(' > expr_rule > ')')[to_val] >>
                       -((+target_component >> -pretty)[([](auto& ctx) {
                         Member m;
                         m.base = _val(ctx);
                         m.components = std::move(at_c<0>(_attr(ctx)));
                         if (auto& p = at_c<1>(_attr(ctx))) m.pretty = *p;
                         _val(ctx) = lowered(m);
                       })]);
// Lists: after a comma, another item must follow.
const auto expr_list_def = expr_rule > *(',' > expr_rule);
// Array keys: an expression, or "*" for any key (delete a[k, *]).
const auto key_def = (x3::lit('*') >> &(x3::lit(',') | ']'))[([](auto& ctx) {
  Wildcard w;
  w.pos = nullptr;
  _val(ctx) = lowered(w);
})] | expr_rule[to_val];
const auto key_list_def = key > *(',' > key);

// $1 @2 $# @#
const auto arg_ref_def =
    x3::raw[x3::lexeme[x3::char_("$@") >> (+digit_ | x3::char_('#'))]][([](auto& ctx) {
      auto& r = _attr(ctx);
      _val(ctx).text.assign(r.begin(), r.end());
      _val(ctx).pos = r.begin();
    })];

const auto embedded_def = x3::raw[x3::lexeme["%{" >> *(x3::char_ - "%}") >> "%}"]][([](auto& ctx) {
  auto& r = _attr(ctx);
  _val(ctx).code = std::string_view(r.begin() + 2, r.size() - 4);
  _val(ctx).pos = r.begin();
})];

// $var, $$vars, $$parms, $$locals, $$return (stap takes any run of '$')
const auto dollar_name_def =
    x3::raw[x3::lexeme['$' >> *x3::lit('$') >> (alpha_ | '_') >> *(alnum_ | '_')]];

const auto target_component_def =
    mark >> ((x3::lit("->") > field_name)[([](auto& ctx) { _val(ctx).field = std::move(_attr(ctx)); })] |
             ('[' > expr_rule > ']')[([](auto& ctx) { _val(ctx).index = std::move(_attr(ctx)); })]);

// "$" or "$$" right after a target path: pretty-print it.
const auto pretty_def = x3::no_skip[x3::string("$$") | x3::string("$")];

// Struct fields may be named like keywords ("->next").
const auto field_name_def = x3::raw[x3::lexeme[(alpha_ | x3::char_('_')) >> *(alnum_ | x3::char_('_'))]];

const auto target_def = mark >> (dollar_name >> *target_component >> -pretty)[([](auto& ctx) {
  _val(ctx).base = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).components = std::move(at_c<1>(_attr(ctx)));
  if (auto& p = at_c<2>(_attr(ctx))) _val(ctx).pretty = *p;
})];

// The @ operators, each with its own argument list; then, for all, target
// paths ("->f", "[i]") and a pretty-printing suffix.
struct OneArgOps : x3::symbols<std::string> {
  OneArgOps() {
    for (const char* op : {"defined", "entry", "probewrite", "const", "perf", "kregister", "uregister",
                           "count", "sum", "min", "max", "avg", "hist_log"})
      add(op, op);
  }
};
inline const OneArgOps one_arg_ops;

inline const auto set_op = [](const char* name) {
  return [name](auto& ctx) { _val(ctx).name = name; };
};
inline Operand as_operand(const Operand& op) { return op; }
inline Operand as_operand(const String& s) { return lowered(s); }
inline const auto push_arg = [](auto& ctx) { _val(ctx).args.push_back(as_operand(_attr(ctx))); };
const auto op_name = [](const char* name) { return x3::lexeme[x3::lit(name) >> !(alnum_ | x3::char_("_$"))]; };

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
         -(',' > expr_rule[push_arg]) > ')') |
        // @hist_linear(s, low, high, width)
        (op_name("@hist_linear")[set_op("hist_linear")] > '(' > expr_rule[push_arg] > ',' >
         expr_rule[push_arg] > ',' > expr_rule[push_arg] > ',' > expr_rule[push_arg] > ')') |
        // @defined(x), @count(s), ...: exactly one argument
        (x3::lexeme['@' >> one_arg_ops >> !(alnum_ | x3::char_("_$"))][([](auto& ctx) {
           _val(ctx).name = std::move(_attr(ctx));
         })] > '(' > expr_rule[push_arg] > ')')) >>
    *target_component[([](auto& ctx) { _val(ctx).components.push_back(std::move(_attr(ctx))); })] >>
    -pretty[([](auto& ctx) { _val(ctx).pretty = std::move(_attr(ctx)); })];

const auto call_def = mark >> ((identifier >> '(') > -expr_list > ')')[([](auto& ctx) {
  _val(ctx).name = at_c<0>(_attr(ctx)).text;
  if (auto& a = at_c<1>(_attr(ctx))) _val(ctx).args = std::move(*a);
})];

const auto index_def = mark >> ((ident_rule >> '[') > key_list > ']')[([](auto& ctx) {
  _val(ctx).array = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).keys = std::move(at_c<1>(_attr(ctx)));
})];

const auto multi_in_def = mark >>
    (('[' > key_list > ']') > kw("in") > ident_rule)[([](auto& ctx) {
      _val(ctx).keys = std::move(at_c<0>(_attr(ctx)));
      _val(ctx).array = std::move(at_c<1>(_attr(ctx)));
    })];

// The operands that start with an identifier, tried first as they are the
// most common: a call (name then '('), an array index (name then '['), or
// a variable. The name is scanned once and the next token decides, instead
// of the other alternatives failing one by one and the name being parsed up
// to three times. Keywords are no operands.
struct ident_operand_parser : x3::parser<ident_operand_parser> {
  using attribute_type = Operand;
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Operand& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || !ident_start(*first)) return false;
    It end = first + 1;
    while (end != last && ident_char(*end)) ++end;
    if (is_keyword(first, end)) return false;
    It next = end;
    x3::skip_over(next, last, ctx);
    if (next != last && *next == '(') {
      Call c;
      if (!call.parse(first, last, ctx, x3::unused, c)) return false;
      attr = lowered(c);
    } else if (next != last && *next == '[') {
      Index ix;
      if (!index.parse(first, last, ctx, x3::unused, ix)) return false;
      attr = lowered(ix);
    } else {
      Ident id;
      id.pos = first;
      id.name = std::string_view(first, end - first);
      attr = lowered(id);
      first = end;
    }
    return true;
  }
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    Operand op;
    if (!parse(first, last, ctx, rctx, op)) return false;
    x3::traits::move_to(std::move(op), attr);
    return true;
  }
};
inline constexpr ident_operand_parser ident_operand{};

const auto primary_def = ident_operand[to_val] | number_rule[build] | string_rule[build] |
                         paren[to_val] | multi_in[build] | arg_ref[build] | target[build] |
                         at_op[build] | embedded[build];

// The operator's text as a view (raw[]), not as the text rule's string.
inline const auto make_op = [](auto& ctx) {
  auto& r = _attr(ctx);
  _val(ctx).op = std::string_view(r.begin(), r.size());
};
const x3::rule<class op_text_class, std::string> postfix_text = "operator";
const auto postfix_text_def = x3::string("++") | x3::string("--");
const auto postfix_op_def = mark >> x3::raw[postfix_text][make_op];

// After any operand: "->field" chains (typed pointers), and ++ / --.
const auto member_comp_def = mark >> (x3::lit("->") > field_name)[([](auto& ctx) {
                               _val(ctx).field = std::move(_attr(ctx));
                             })];
const auto member_chain = peek("-") >> +member_comp >> *target_component >> -pretty;

// The operand rules are few on purpose: every rule level moves its
// Operand into the parent's, so postfix is part of unary, the chain's
// unwrapping part of ternary and assignment part of expr_rule.
const auto postfix = primary[to_val] >>
    -(member_chain[([](auto& ctx) {
      Member m;
      m.base = _val(ctx);
      m.components = std::move(at_c<0>(_attr(ctx)));
      for (auto& c : at_c<1>(_attr(ctx))) m.components.push_back(std::move(c));
      if (auto& p = at_c<2>(_attr(ctx))) m.pretty = *p;
      _val(ctx) = lowered(m);
    })]) >>
    -(peek("+-") >> postfix_op[([](auto& ctx) {
      Unary u;
      u.op = _attr(ctx).op;
      u.post = true;
      u.pos = _attr(ctx).pos;
      u.operand = _val(ctx);
      _val(ctx) = lowered(u);
    })]);

const x3::rule<class unary_text_class, std::string> unary_text = "operator";
const auto unary_text_def = x3::string("++") | x3::string("--") | x3::string("!") |
                            x3::string("~") | x3::string("-") | x3::string("+") |
                            x3::lexeme[x3::string("&") >> !x3::lit('&')];
const auto unary_op_def = mark >> x3::raw[unary_text][make_op];

const auto unary_def = (peek("+-!~&") >> unary_op > unary)[([](auto& ctx) {
                         Unary u;
                         u.pos = at_c<0>(_attr(ctx)).pos;
                         u.op = std::move(at_c<0>(_attr(ctx)).op);
                         u.operand = at_c<1>(_attr(ctx));
                         _val(ctx) = lowered(u);
                       })] |
                       postfix;

// A binary operator, not the first half of a compound assignment ("+=")
// nor of the aggregation operator "<<<".
const x3::rule<class binary_text_class, std::string> binary_text = "operator";
const auto binary_text_def = x3::lexeme[comparison_ops] | x3::lexeme[binary_ops >> !x3::char_("=<")] |
                             // "%" but not "%=" nor a preprocessor or embedded-C token
                             x3::lexeme[x3::string("%") >> !x3::char_("=(){}?:")] |
                             x3::lexeme[x3::string("in") >> !(alnum_ | '_')];
const auto binary_op_def = mark >> x3::raw[binary_text][make_op];
const x3::rule<class assign_text_class, std::string> assign_text = "operator";
const auto assign_text_def = x3::lexeme[assign_ops];
const auto assign_op_def = mark >> x3::raw[assign_text][make_op];

const auto chain_def = mark >> unary[([](auto& ctx) {
                         _val(ctx).first = std::move(_attr(ctx));
                       })] >>
                       *((peek("=!<>|&^.+-*/%i") >> binary_op > unary)[([](auto& ctx) {
                         ChainLink link;
                         auto& op = at_c<0>(_attr(ctx));
                         link.op = std::move(op.op);
                         link.pos = op.pos;
                         link.rhs = std::move(at_c<1>(_attr(ctx)));
                         _val(ctx).rest.push_back(std::move(link));
                       })]);

// A chain of one operand is that operand.
const auto binary = chain[([](auto& ctx) {
  Chain& c = _attr(ctx);
  if (c.rest.empty())
    _val(ctx) = c.first;
  else
    _val(ctx) = lowered(c);
})];

const auto ternary_def = binary >>
                         -(('?' > expr_rule > ':' > ternary)[([](auto& ctx) {
                           Ternary t;
                           t.cond = _val(ctx);
                           t.then = at_c<0>(_attr(ctx));
                           t.els = at_c<1>(_attr(ctx));
                           _val(ctx) = lowered(t);
                         })]);

const auto expr_rule_def =
    ternary[to_val] >> -((peek("=+-*/%<>&|^.") >> assign_op > expr_rule)[([](auto& ctx) {
      Assign a;
      auto& op = at_c<0>(_attr(ctx));
      a.op = std::move(op.op);
      a.pos = op.pos;
      a.lhs = _val(ctx);
      a.rhs = at_c<1>(_attr(ctx));
      _val(ctx) = lowered(a);
    })]);

BOOST_SPIRIT_DEFINE(postfix_text, postfix_op, unary_text, unary_op, binary_text, binary_op,
                    assign_text, assign_op)
BOOST_SPIRIT_DEFINE(expr_list, field_name, member_comp, key, key_list)
BOOST_SPIRIT_DEFINE(arg_ref, embedded, dollar_name, target_component, pretty,
                    target, at_op)
BOOST_SPIRIT_DEFINE(identifier, ident_rule, number_rule, string_rule, paren, call, index, multi_in,
                    primary, unary, chain, ternary, expr_rule)

}  // namespace stapx::parse::grammar
