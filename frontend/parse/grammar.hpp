// Rule declarations of the stapx grammar (Spirit X3). Definitions live in
// expression_def.hpp and statement_def.hpp; each part is instantiated once,
// in expression.cpp and statement.cpp, against the context in this file.
//
// The grammar runs over tokens (tokens.h), not characters: there is no
// skipper, and the primitives below each test one token.
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <string>

#include "frontend/parse/lower.h"
#include "frontend/parse/tokens.h"
#include "frontend/parse/x3ast.hpp"

namespace stapx::parse::grammar {

namespace x3 = boost::spirit::x3;

using iterator_type = const Tok*;
using context_type = x3::unused_type;

// `mark` matches nothing; it records the token the enclosing rule's text
// starts at in the rule's own node. It goes first in every rule whose node
// is Tagged. (X3's _where() in an action spans the rest of the input, not
// the match, and on_success sees no attribute once a rule has actions, so
// neither can do this.)
struct mark_parser : x3::parser<mark_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const&, Ctx const&, RCtx& rctx, Attr&) const {
    if constexpr (std::is_base_of_v<x3ast::Tagged, std::remove_cv_t<std::remove_reference_t<RCtx>>>)
      rctx.pos = first;
    return true;
  }
};
inline constexpr mark_parser mark{};

// The base of a hand-written parser whose parse() fills its own node type
// (Own). X3 may call it with another attribute (a variant one of whose
// types is Own, or a container's element): the node is made, then moved
// there. (A derived parser says `using own_attribute_parser::parse;`.)
template <typename Derived, typename Own>
struct own_attribute_parser : x3::parser<Derived> {
  using attribute_type = Own;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    Own own;
    if (!static_cast<const Derived&>(*this).parse(first, last, ctx, rctx, own)) return false;
    x3::traits::move_to(std::move(own), attr);
    return true;
  }
};

// Expressions and leaves (expression.cpp).
using expr_type = x3::rule<class expr_class, x3ast::Operand>;
using ident_type = x3::rule<class ident_class, x3ast::Ident>;
using number_type = x3::rule<class number_class, x3ast::Number>;
using string_type = x3::rule<class string_class, x3ast::String>;
using embedded_type = x3::rule<class embedded_class, x3ast::Embedded>;
using argref_type = x3::rule<class argref_class, x3ast::ArgRef>;
using key_list_type = x3::rule<class key_list_class, x3ast::Vec<x3ast::Operand>>;
using at_op_type = x3::rule<class atop_class, x3ast::AtOp>;
BOOST_SPIRIT_DECLARE(expr_type, ident_type, number_type, string_type, embedded_type, argref_type,
                     key_list_type, at_op_type)

// Statements and declarations (statement.cpp).
using toplevel_type = x3::rule<class toplevel_class, x3ast::TopLevel>;
BOOST_SPIRIT_DECLARE(toplevel_type)

// A rule object of a declared type may be created in any part; its parse
// function is the one instantiated by the part that defines it.
inline const expr_type expr_ref = "literal string or number";  // stap's words for any missing expression
inline const ident_type ident_ref = "identifier";
inline const number_type number_ref = "number";
inline const string_type string_ref = "string";
inline const embedded_type embedded_ref = "embedded C";
inline const argref_type argref_ref = "command line argument";
inline const key_list_type key_list_ref = "literal string or number";
inline const at_op_type at_op_ref = "@ operator";
inline const toplevel_type toplevel_ref = "'probe', 'global', 'private', 'function', or '%{'";

// The arena node of a complete operand, built at once (see lower.h).
template <typename T>
x3ast::Operand lowered(const T& t) {
  return {lowering().build(t), std::is_same_v<T, x3ast::String>};
}
inline const auto build = [](auto& ctx) { x3::_val(ctx) = lowered(x3::_attr(ctx)); };

// One rule's parts, parsed and built at once into their arena node: an
// operand's or a statement's (for the hand-written parsers that choose the
// rule by the first token).
template <typename Rule, typename It, typename Ctx, typename Out>
bool parse_lowered(const Rule& rule, It& first, It const& last, Ctx const& ctx, Out& out) {
  typename Rule::attribute_type parts;
  if (!rule.parse(first, last, ctx, x3::unused, parts)) return false;
  if constexpr (std::is_same_v<Out, x3ast::Statement>)
    out.node = lowering().build(parts);
  else
    out = lowered(parts);
  return true;
}

// One token for which `test` holds; its attribute is the token. The name
// is what "expected ..." says when it was required.
template <typename Test>
struct token_parser : x3::parser<token_parser<Test>> {
  using attribute_type = const Tok*;
  Test test;
  const char* name;
  constexpr token_parser(Test t, const char* n) : test(t), name(n) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr& attr) const {
    if (first == last || !test(*first)) return false;
    if constexpr (std::is_same_v<Attr, const Tok*>) attr = first;
    ++first;
    return true;
  }
};
template <typename Test>
constexpr token_parser<Test> token(Test t, const char* name) {
  return token_parser<Test>(t, name);
}

// A parser that names itself: what "expected ..." says when `subject` was
// required and failed (stap's words at that place). A name starting with
// '!' is the whole message, not what was expected.
template <typename Subject>
struct named_parser : x3::unary_parser<Subject, named_parser<Subject>> {
  using base_type = x3::unary_parser<Subject, named_parser<Subject>>;
  static bool const is_pass_through_unary = true;
  const char* name;
  constexpr named_parser(Subject s, const char* n) : base_type(s), name(n) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    return this->subject.parse(first, last, ctx, rctx, attr);
  }
};
template <typename Subject>
constexpr auto named(const char* name, Subject s) {
  return named_parser<typename x3::extension::as_parser<Subject>::value_type>(x3::as_parser(s), name);
}

// What stap expects where a statement must start and `t` is there: a
// statement at the end of the input or a reserved word, else an expression.
inline const char* statement_expectation(const Tok& t) {
  bool word = t.kind == TokKind::End || (t.kind == TokKind::Ident && t.word != Word::None && t.word <= Word::Continue);
  return word ? "statement" : "literal string or number";
}

// A closing ')' after a list whose items are `item` (stap's words): at the
// first item, the item; after one, the comma or the close.
struct list_close_parser : x3::parser<list_close_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* item;
  const char* more;
  constexpr list_close_parser(const char* i, const char* m) : item(i), more(m) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first != last && first->is_op(op_code(")"))) {
      ++first;
      return true;
    }
    throw x3::expectation_failure<It>(first, first[-1].is_op(op_code("(")) ? item : more);
  }
};

// item > *(',' > item), by hand: X3's kleene collects the items after the
// first in a vector of its own and moves them over. Each item is parsed in
// place at the end of the list, which starts with room for four. Past a
// comma an item is expected, as X3's '>' expects it.
template <typename Item, typename ItemParser>
struct comma_list_parser : own_attribute_parser<comma_list_parser<Item, ItemParser>, x3ast::Vec<Item>> {
  using own_attribute_parser<comma_list_parser, x3ast::Vec<Item>>::parse;
  ItemParser item;
  constexpr explicit comma_list_parser(ItemParser p) : item(p) {}
  template <typename It, typename Ctx, typename RCtx>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, x3ast::Vec<Item>& out) const {
    It i = first;
    if (out.empty()) out.reserve(4);
    if (!item.parse(i, last, ctx, x3::unused, out.emplace_back())) {
      out.pop_back();
      return false;
    }
    while (i != last && i->is_op(op_code(","))) {
      ++i;
      if (!item.parse(i, last, ctx, x3::unused, out.emplace_back()))
        throw x3::expectation_failure<It>(i, x3::what(item));
    }
    first = i;
    return true;
  }
};
template <typename Item, typename ItemParser>
constexpr comma_list_parser<Item, ItemParser> comma_list(ItemParser p) {
  return comma_list_parser<Item, ItemParser>(p);
}

// An operator token of exactly this text ("->", "+=").
struct op_parser : x3::parser<op_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* text;
  uint32_t code;
  constexpr explicit op_parser(const char* t) : text(t), code(op_code(t)) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first == last || !first->is_op(code)) return false;
    ++first;
    return true;
  }
};
inline constexpr op_parser op(const char* text) { return op_parser(text); }

// A reserved word. It names itself in "expected 'in'" messages.
struct keyword_parser : x3::parser<keyword_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* text;
  Word word;
  constexpr explicit keyword_parser(const char* w) : text(w), word(word_of(w)) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first == last || first->word != word) return false;
    ++first;
    return true;
  }
};
inline constexpr keyword_parser kw(const char* word) { return keyword_parser(word); }

// Matches nothing; fails unless the next token starts with one of `chars`.
// A guard in front of an alternative that would fail on any other token
// anyway, so that X3 does not enter its rules to find out.
struct peek_parser : x3::parser<peek_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* chars;
  constexpr explicit peek_parser(const char* cs) : chars(cs) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    if (first == last || first->kind == TokKind::End || first->kind == TokKind::Error) return false;
    for (const char* c = chars; *c; ++c)
      if (first->text[0] == *c) return true;
    return false;
  }
};
inline constexpr peek_parser peek(const char* chars) { return peek_parser(chars); }

}  // namespace stapx::parse::grammar

namespace boost::spirit::x3 {
template <>
struct get_info<stapx::parse::grammar::keyword_parser> {
  using result_type = std::string;
  std::string operator()(const stapx::parse::grammar::keyword_parser& p) const {
    return std::string("'") + p.text + "'";
  }
};
template <>
struct get_info<stapx::parse::grammar::op_parser> {
  using result_type = std::string;
  std::string operator()(const stapx::parse::grammar::op_parser& p) const {
    return std::string("'") + p.text + "'";
  }
};
template <typename Subject>
struct get_info<stapx::parse::grammar::named_parser<Subject>> {
  using result_type = std::string;
  std::string operator()(const stapx::parse::grammar::named_parser<Subject>& p) const { return p.name; }
};
// An action, a list and an alternative, where required, are named by what
// they start with, as stap names them (not by X3's type names).
template <typename Subject, typename Action>
struct get_info<action<Subject, Action>> {
  using result_type = std::string;
  std::string operator()(const action<Subject, Action>& p) const { return what(p.subject); }
};
template <typename Left, typename Right>
struct get_info<list<Left, Right>> {
  using result_type = std::string;
  std::string operator()(const list<Left, Right>& p) const { return what(p.left); }
};
template <typename Left, typename Right>
struct get_info<alternative<Left, Right>> {
  using result_type = std::string;
  std::string operator()(const alternative<Left, Right>& p) const { return what(p.left); }
};
template <typename Test>
struct get_info<stapx::parse::grammar::token_parser<Test>> {
  using result_type = std::string;
  std::string operator()(const stapx::parse::grammar::token_parser<Test>& p) const { return p.name; }
};
}  // namespace boost::spirit::x3
