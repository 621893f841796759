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


struct Keywords : x3::symbols<> {
  Keywords() {
    add("probe")("global")("private")("function")("if")("else")("for")("foreach")("in")(
        "limit")("return")("delete")("while")("break")("continue")("next")("try")("catch");
  }
};
inline const Keywords keywords;

struct BinaryOps : x3::symbols<std::string> {
  BinaryOps() {
    for (const char* op : {"||", "&&", "|", "^", "&", "==", "!=", "<", "<=", ">", ">=", "=~", "!~",
                           "<<", ">>", ">>>", ".", "+", "-", "*", "/", "%"})
      add(op, op);
  }
};
inline const BinaryOps binary_ops;

struct AssignOps : x3::symbols<std::string> {
  AssignOps() {
    for (const char* op : {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", ">>>=", "&=", "|=",
                           "^=", ".=", "<<<"})
      add(op, op);
  }
};
inline const AssignOps assign_ops;

inline const auto to_val = [](auto& ctx) { _val(ctx) = std::move(_attr(ctx)); };

const x3::rule<class identifier_class, std::string> identifier = "identifier";
const ident_type ident_rule = "identifier";
const number_type number_rule = "number";
const string_type string_rule = "string";
const x3::rule<class paren_class, Operand> paren = "parenthesized expression";
const x3::rule<class call_class, Call> call = "function call";
const x3::rule<class index_class, Index> index = "array index";
const x3::rule<class multi_in_class, MultiIn> multi_in = "array membership";
const x3::rule<class primary_class, Operand> primary = "expression";
const x3::rule<class postfix_class, Operand> postfix = "expression";
const x3::rule<class unary_class, Operand> unary = "expression";
const x3::rule<class chain_class, Chain> chain = "expression";
const x3::rule<class binary_class, Operand> binary = "expression";
const x3::rule<class ternary_class, Operand> ternary = "expression";
const x3::rule<class assign_class, Operand> assign = "expression";
const expr_type expr_rule = "expression";
const x3::rule<class postfix_op_class, OpTok> postfix_op = "operator";
const x3::rule<class unary_op_class, OpTok> unary_op = "operator";
const x3::rule<class binary_op_class, OpTok> binary_op = "operator";
const x3::rule<class assign_op_class, OpTok> assign_op = "operator";

const auto keyword = x3::lexeme[keywords >> !(x3::alnum | '_')];

const auto identifier_def =
    x3::lexeme[!keyword >> (x3::alpha | x3::char_('_')) >> *(x3::alnum | x3::char_('_'))];

const auto ident_rule_def = mark >> identifier[([](auto& ctx) {
  _val(ctx).name = std::move(_attr(ctx));
})];

// Any run of letters and digits after a digit; lower.cpp validates it.
const auto number_rule_def = x3::raw[x3::lexeme[x3::digit >> *x3::alnum]][([](auto& ctx) {
  auto& r = _attr(ctx);
  _val(ctx).text.assign(r.begin(), r.end());
  _val(ctx).pos = r.begin();
})];

const auto string_rule_def =
    x3::raw[x3::lexeme['"' >> *(('\\' >> x3::char_) | ~x3::char_("\"\\\n")) > '"']][(
        [](auto& ctx) {
          auto& r = _attr(ctx);
          _val(ctx).raw.assign(r.begin() + 1, r.end() - 1);
          _val(ctx).pos = r.begin();
        })];

const auto paren_def = '(' > expr_rule > ')';

const auto call_def = mark >> ((identifier >> '(') > -(expr_rule % ',') > ')')[([](auto& ctx) {
  _val(ctx).name = std::move(at_c<0>(_attr(ctx)));
  if (auto& a = at_c<1>(_attr(ctx))) _val(ctx).args = std::move(*a);
})];

const auto index_def = mark >> ((ident_rule >> '[') > (expr_rule % ',') > ']')[([](auto& ctx) {
  _val(ctx).array = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).keys = std::move(at_c<1>(_attr(ctx)));
})];

const auto multi_in_def = mark >>
    (('[' > (expr_rule % ',') > ']') > kw("in") > ident_rule)[([](auto& ctx) {
      _val(ctx).keys = std::move(at_c<0>(_attr(ctx)));
      _val(ctx).array = std::move(at_c<1>(_attr(ctx)));
    })];

const auto primary_def = number_rule[to_val] | string_rule[to_val] | paren[to_val] |
                         multi_in[to_val] | call[to_val] | index[to_val] | ident_rule[to_val];

inline const auto make_op = [](auto& ctx) {
  _val(ctx).op = std::move(_attr(ctx));
};
const x3::rule<class op_text_class, std::string> postfix_text = "operator";
const auto postfix_text_def = x3::string("++") | x3::string("--");
const auto postfix_op_def = mark >> postfix_text[make_op];

const auto postfix_def = primary[to_val] >>
                         *(postfix_op[([](auto& ctx) {
                           Unary u;
                           u.op = "post" + _attr(ctx).op;
                           u.pos = _attr(ctx).pos;
                           u.operand = std::move(_val(ctx));
                           _val(ctx) = std::move(u);
                         })]);

const x3::rule<class unary_text_class, std::string> unary_text = "operator";
const auto unary_text_def = x3::string("++") | x3::string("--") | x3::string("!") |
                            x3::string("~") | x3::string("-") | x3::string("+");
const auto unary_op_def = mark >> unary_text[make_op];

const auto unary_def = (unary_op > unary)[([](auto& ctx) {
                         Unary u;
                         u.pos = at_c<0>(_attr(ctx)).pos;
                         u.op = std::move(at_c<0>(_attr(ctx)).op);
                         u.operand = std::move(at_c<1>(_attr(ctx)));
                         _val(ctx) = std::move(u);
                       })] |
                       postfix[to_val];

// A binary operator, not the first half of a compound assignment ("+=")
// nor of the aggregation operator "<<<".
const x3::rule<class binary_text_class, std::string> binary_text = "operator";
const auto binary_text_def = x3::lexeme[binary_ops >> !x3::char_("=<")] |
                             x3::lexeme[x3::string("in") >> !(x3::alnum | '_')];
const auto binary_op_def = mark >> binary_text[make_op];
const x3::rule<class assign_text_class, std::string> assign_text = "operator";
const auto assign_text_def = x3::lexeme[assign_ops];
const auto assign_op_def = mark >> assign_text[make_op];

const auto chain_def = mark >> unary[([](auto& ctx) {
                         _val(ctx).first = std::move(_attr(ctx));
                       })] >>
                       *((binary_op > unary)[([](auto& ctx) {
                         ChainLink link;
                         auto& op = at_c<0>(_attr(ctx));
                         link.op = std::move(op.op);
                         link.pos = op.pos;
                         link.rhs = std::move(at_c<1>(_attr(ctx)));
                         _val(ctx).rest.push_back(std::move(link));
                       })]);

const auto binary_def = chain[([](auto& ctx) {
  Chain& c = _attr(ctx);
  if (c.rest.empty())
    _val(ctx) = std::move(c.first);
  else
    _val(ctx) = std::move(c);
})];

const auto ternary_def = binary[to_val] >>
                         -(('?' > expr_rule > ':' > ternary)[([](auto& ctx) {
                           Ternary t;
                           t.cond = std::move(_val(ctx));
                           t.then = std::move(at_c<0>(_attr(ctx)));
                           t.els = std::move(at_c<1>(_attr(ctx)));
                           _val(ctx) = std::move(t);
                         })]);

const auto assign_def =
    ternary[to_val] >> -((assign_op > assign)[([](auto& ctx) {
      Assign a;
      auto& op = at_c<0>(_attr(ctx));
      a.op = std::move(op.op);
      a.pos = op.pos;
      a.lhs = std::move(_val(ctx));
      a.rhs = std::move(at_c<1>(_attr(ctx)));
      _val(ctx) = std::move(a);
    })]);

const auto expr_rule_def = assign;

BOOST_SPIRIT_DEFINE(postfix_text, postfix_op, unary_text, unary_op, binary_text, binary_op,
                    assign_text, assign_op)
BOOST_SPIRIT_DEFINE(identifier, ident_rule, number_rule, string_rule, paren, call, index, multi_in,
                    primary, postfix, unary, chain, binary, ternary, assign, expr_rule)

}  // namespace stapx::parse::grammar
