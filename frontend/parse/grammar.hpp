// Rule declarations of the stapx grammar (Spirit X3). Definitions live in
// expression_def.hpp and statement_def.hpp; each part is instantiated once,
// in expression.cpp and statement.cpp, against the context in this file.
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <cctype>
#include <string>

#include "frontend/parse/lower.h"
#include "frontend/parse/x3ast.hpp"

namespace stapx::parse::grammar {

namespace x3 = boost::spirit::x3;

// A byte that may start blanks or a comment.
inline bool blank_start(char c) { return c <= ' ' || c == '#' || c == '/'; }

// Moves `first` over blanks and comments; returns whether it moved. The
// slow path of skipping, out of line (see skip_over below).
[[gnu::noinline]] inline bool skip_blanks(const char*& first, const char* last) {
  const char* p = first;
  while (p != last) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++p;
    } else if (c == '#' || (c == '/' && p + 1 != last && p[1] == '/')) {
      while (p != last && *p != '\n') ++p;
    } else if (c == '/' && p + 1 != last && p[1] == '*') {
      p += 2;
      while (p != last && !(*p == '*' && p + 1 != last && p[1] == '/')) ++p;
      if (p != last) p += 2;
    } else {
      break;
    }
  }
  bool moved = p != first;
  first = p;
  return moved;
}

// Whitespace and the three comment styles: "#...", "//...", "/* ... */".
// An unterminated block comment runs to the end of the input, where the
// parser then reports what it still expected.
struct blank_parser : x3::parser<blank_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    // Fast path: X3 skips before every primitive it tries, and most of
    // those calls start on a token.
    if (first == last || !blank_start(*first)) return false;
    return skip_blanks(first, last);
  }
};
inline constexpr blank_parser skipper{};

}  // namespace stapx::parse::grammar

// X3 skips before every primitive, ~3 million times a pass over the tapsets,
// nearly always on a token already. Its generic skip_over is an out-of-line
// call looping on the skipper; this one tests the first byte in place and
// calls out only when there is something to skip.
namespace boost::spirit::x3::detail {
template <>
[[gnu::always_inline]] inline void skip_over<const char*, stapx::parse::grammar::blank_parser>(
    const char*& first, const char* const& last, const stapx::parse::grammar::blank_parser&) {
  if (first != last && stapx::parse::grammar::blank_start(*first)) stapx::parse::grammar::skip_blanks(first, last);
}
}  // namespace boost::spirit::x3::detail

namespace stapx::parse::grammar {

using iterator_type = const char*;
using skipper_type = std::remove_cv_t<decltype(skipper)>;
using context_type = x3::phrase_parse_context<skipper_type>::type;

}  // namespace stapx::parse::grammar

// And the entry point the primitives call, which would otherwise stay an
// out-of-line call around the test above.
namespace boost::spirit::x3 {
template <>
[[gnu::always_inline]] inline void skip_over<const char*, stapx::parse::grammar::context_type>(
    const char*& first, const char* const& last, const stapx::parse::grammar::context_type&) {
  detail::skip_over(first, last, stapx::parse::grammar::skipper);
}
}  // namespace boost::spirit::x3

namespace stapx::parse::grammar {

// `mark` matches nothing; it records where the enclosing rule's text
// starts (after blanks) in the rule's own node. It goes first in every rule
// whose node is Tagged. (X3's _where() in an action spans the rest of the
// input, not the match, and on_success sees no attribute once a rule has
// actions, so neither can do this.)
struct mark_parser : x3::parser<mark_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr&) const {
    x3::skip_over(first, last, ctx);
    if constexpr (std::is_base_of_v<x3ast::Tagged, std::remove_cv_t<std::remove_reference_t<RCtx>>>)
      rctx.pos = first;
    return true;
  }
};
inline constexpr mark_parser mark{};

// Expressions and leaves (expression.cpp).
using expr_type = x3::rule<class expr_class, x3ast::Operand>;
using ident_type = x3::rule<class ident_class, x3ast::Ident>;
using number_type = x3::rule<class number_class, x3ast::Number>;
using string_type = x3::rule<class string_class, x3ast::String>;
using embedded_type = x3::rule<class embedded_class, x3ast::Embedded>;
using argref_type = x3::rule<class argref_class, x3ast::ArgRef>;
using key_list_type = x3::rule<class key_list_class, std::vector<x3ast::Operand>>;
using at_op_type = x3::rule<class atop_class, x3ast::AtOp>;
BOOST_SPIRIT_DECLARE(expr_type, ident_type, number_type, string_type, embedded_type, argref_type,
                     key_list_type, at_op_type)

// Statements and declarations (statement.cpp).
using toplevel_type = x3::rule<class toplevel_class, x3ast::TopLevel>;
BOOST_SPIRIT_DECLARE(toplevel_type)

// A rule object of a declared type may be created in any part; its parse
// function is the one instantiated by the part that defines it.
inline const expr_type expr_ref = "expression";
inline const ident_type ident_ref = "identifier";
inline const number_type number_ref = "number";
inline const string_type string_ref = "string";
inline const embedded_type embedded_ref = "embedded C";
inline const argref_type argref_ref = "command line argument";
inline const key_list_type key_list_ref = "expression";
inline const at_op_type at_op_ref = "@ operator";
inline const toplevel_type toplevel_ref = "'probe', 'global', 'private', 'function' or '%{'";

// The arena node of a complete operand, built at once (see lower.h).
template <typename T>
x3ast::Operand lowered(const T& t) {
  return {lowering().build(t), std::is_same_v<T, x3ast::String>};
}
inline const auto build = [](auto& ctx) { x3::_val(ctx) = lowered(x3::_attr(ctx)); };

// ASCII character classes as sets: X3's alpha/alnum/digit call libc's
// and assert on a byte outside ASCII, which error recovery can reach
// (it may resume inside an embedded-C block); a set takes any byte.
inline const auto alpha_ = x3::char_("a-zA-Z");
inline const auto alnum_ = x3::char_("a-zA-Z0-9");
inline const auto digit_ = x3::char_("0-9");

// ASCII tests for names (X3's classes call libc's; the driver has
// rejected bytes outside ASCII in code already).
inline bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }

// A reserved word, not the prefix of a longer identifier. It names itself
// in "expected 'in'" messages (an X3 lexeme would show its C++ type).
struct keyword_parser : x3::parser<keyword_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* word;
  constexpr explicit keyword_parser(const char* w) : word(w) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    It i = first;
    for (const char* w = word; *w; ++w, ++i)
      if (i == last || *i != *w) return false;
    if (i != last && ident_char(*i)) return false;
    first = i;
    return true;
  }
};
inline constexpr keyword_parser kw(const char* word) { return keyword_parser(word); }

// Matches nothing; fails unless the next character (after blanks) is one
// of `chars`. A guard in front of an alternative that would fail on any
// other character anyway, so that X3 does not enter its rules to find out.
struct peek_parser : x3::parser<peek_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  const char* chars;
  constexpr explicit peek_parser(const char* cs) : chars(cs) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    if (first == last) return false;
    for (const char* c = chars; *c; ++c)
      if (*first == *c) return true;
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
    return std::string("'") + p.word + "'";
  }
};
}  // namespace boost::spirit::x3
