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
const x3::rule<class sorted_class, SortedIdent> sorted_ident = "identifier";
const x3::rule<class simple_class, Simple> simple_stmt = "statement";
const x3::rule<class return_class, Return> return_stmt = "return statement";
const x3::rule<class delete_class, Delete> delete_stmt = "delete statement";
const x3::rule<class exprstmt_class, ExprStmt> expr_stmt = "statement";
const x3::rule<class fkeys_class, std::vector<SortedIdent>> foreach_keys = "foreach keys";
const x3::rule<class literal_class, Operand> literal = "literal string or number";
const x3::rule<class component_class, ProbePointComponent> component = "probe point component";
const x3::rule<class point_class, ProbePoint> probe_point = "probe point";
const x3::rule<class probe_class, Probe> probe = "probe";
const x3::rule<class globalvar_class, GlobalVar> global_var = "global variable";
const x3::rule<class global_class, Global> global = "global";
const x3::rule<class param_class, Param> param = "parameter";
const x3::rule<class type_class, std::string> type_name = "type name ('long' or 'string')";
const x3::rule<class function_class, Function> function = "function";
const toplevel_type toplevel_rule = "'probe', 'global' or 'function'";

const auto block_def = mark >> (x3::lit('{') > *statement > '}')[([](auto& ctx) {
  _val(ctx).stmts = std::move(_attr(ctx));
})];

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

const x3::rule<class sort_mark_class, std::string> sort_mark = "'+' or '-'";
const auto sort_mark_def =
    x3::lexeme[x3::string("+") >> !x3::lit('+')] | x3::lexeme[x3::string("-") >> !x3::lit('-')];

const auto sorted_ident_def = mark >>
    (ident_ref >> -sort_mark)[(
        [](auto& ctx) {
          _val(ctx).ident = std::move(at_c<0>(_attr(ctx)));
          if (auto& s = at_c<1>(_attr(ctx))) _val(ctx).sort = *s;
        })];

// foreach ([v =] [k1, k2] in a[+-] [limit N]) or foreach ([v =] k in a ...)
const auto foreach_keys_def = ('[' > (sorted_ident % ',') > ']')[to_val] |
                              sorted_ident[([](auto& ctx) { _val(ctx).push_back(_attr(ctx)); })];

const auto foreach_stmt_def = mark >>
    (kw("foreach") > '(' > -(sorted_ident >> '=') > foreach_keys > kw("in") > sorted_ident >
     -(kw("limit") > expr_ref) > ')' > statement)[([](auto& ctx) {
      auto& a = _attr(ctx);
      _val(ctx).value = std::move(at_c<0>(a));
      _val(ctx).keys = std::move(at_c<1>(a));
      _val(ctx).array = std::move(at_c<2>(a));
      _val(ctx).limit = std::move(at_c<3>(a));
      _val(ctx).body = std::move(at_c<4>(a));
    })];

const auto simple_stmt_def = mark >>
    (x3::raw[kw("next") | kw("break") | kw("continue")])[([](auto& ctx) {
      _val(ctx).keyword.assign(_attr(ctx).begin(), _attr(ctx).end());
    })];

const auto return_stmt_def = mark >> (kw("return") >> -expr_ref)[([](auto& ctx) {
  _val(ctx).value = std::move(_attr(ctx));
})];

const auto delete_stmt_def = mark >> (kw("delete") > expr_ref)[([](auto& ctx) {
  _val(ctx).target = std::move(_attr(ctx));
})];

const auto expr_stmt_def = mark >> expr_ref[([](auto& ctx) {
  _val(ctx).expr = std::move(_attr(ctx));
})];

// A lone ';' (lowering drops it; its position is never shown).
const auto null_stmt = x3::lit(';')[([](auto& ctx) {
  Simple s;
  s.keyword = ";";
  _val(ctx) = std::move(s);
})];

// Any statement may be followed by one ';'.
const auto statement_def = ((block[to_val] | if_stmt[to_val] | while_stmt[to_val] |
                             for_stmt[to_val] | foreach_stmt[to_val] | simple_stmt[to_val] |
                             return_stmt[to_val] | delete_stmt[to_val] | expr_stmt[to_val]) >>
                            -x3::lit(';')) |
                           null_stmt;

const auto literal_def = number_ref[to_val] | string_ref[to_val];

const x3::rule<class component_name_class, std::string> component_name = "probe point name";
const auto component_name_def = x3::lexeme[+(x3::alnum | x3::char_("_*"))];
const x3::rule<class point_suffix_class, std::string> point_suffix = "'?' or '!'";
const auto point_suffix_def = x3::string("?") | x3::string("!");

const auto component_def = mark >>
    (component_name >> -('(' > literal > ')'))[([](auto& ctx) {
      _val(ctx).name = std::move(at_c<0>(_attr(ctx)));
      _val(ctx).arg = std::move(at_c<1>(_attr(ctx)));
    })];

const auto probe_point_def = mark >>
    ((component % '.') >> -point_suffix)[([](auto& ctx) {
      _val(ctx).components = std::move(at_c<0>(_attr(ctx)));
      if (auto& s = at_c<1>(_attr(ctx))) _val(ctx).suffix = *s;
    })];

const auto probe_def = mark >> (kw("probe") > (probe_point % ',') > block)[([](auto& ctx) {
  _val(ctx).points = std::move(at_c<0>(_attr(ctx)));
  _val(ctx).body = std::move(at_c<1>(_attr(ctx)));
})];

const auto global_var_def = mark >>
    (ident_ref >> -('[' > number_ref > ']') >> -('=' > expr_ref))[([](auto& ctx) {
      _val(ctx).name = std::move(at_c<0>(_attr(ctx)));
      _val(ctx).size = std::move(at_c<1>(_attr(ctx)));
      _val(ctx).init = std::move(at_c<2>(_attr(ctx)));
    })];

const auto global_def = mark >> (kw("global") > (global_var % ',') >> -x3::lit(';'))[([](auto& ctx) {
  _val(ctx).vars = std::move(_attr(ctx));
})];

const auto type_name_def = x3::lexeme[(x3::string("long") | x3::string("string")) >> !(x3::alnum | '_')];

const auto param_def = mark >> (ident_ref >> -(':' > type_name))[([](auto& ctx) {
  _val(ctx).name = std::move(at_c<0>(_attr(ctx)));
  if (auto& t = at_c<1>(_attr(ctx))) _val(ctx).type = *t;
})];

const auto function_def = mark >> (kw("function") > ident_ref > -(':' > type_name) > '(' >
                           -(param % ',') > ')' > block)[([](auto& ctx) {
  auto& a = _attr(ctx);
  _val(ctx).name = std::move(at_c<0>(a));
  if (auto& t = at_c<1>(a)) _val(ctx).type = *t;
  if (auto& p = at_c<2>(a)) _val(ctx).params = std::move(*p);
  _val(ctx).body = std::move(at_c<3>(a));
})];

const auto toplevel_rule_def = probe[to_val] | global[to_val] | function[to_val];

BOOST_SPIRIT_DEFINE(sort_mark, component_name, point_suffix)
BOOST_SPIRIT_DEFINE(statement, block, if_stmt, while_stmt, for_stmt, foreach_keys, foreach_stmt,
                    sorted_ident, simple_stmt, return_stmt, delete_stmt, expr_stmt, literal,
                    component, probe_point, probe, global_var, global, type_name, param, function,
                    toplevel_rule)

}  // namespace stapx::parse::grammar
