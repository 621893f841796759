// The tokens the grammar runs over. Spirit X3 parses a file's token array
// (iterator: const Tok*), lexed once, with no skipper: blanks and comments
// are gone, and every primitive tests a token's kind or operator code
// instead of scanning characters.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/source.h"

namespace stapx::parse {

// An operator's bytes (at most 4) packed into one word, for one compare.
constexpr uint32_t op_code(std::string_view s) {
  uint32_t c = 0;
  for (size_t i = s.size(); i-- > 0;) c = c << 8 | static_cast<uint8_t>(s[i]);
  return c;
}

struct Tok {
  TokKind kind;
  bool glued = false;  // right after the previous token, nothing between them
  uint32_t code = 0;   // an operator's op_code(); 0 for the other kinds
  uint32_t len = 0;
  const char* text = nullptr;  // in the text the token was lexed from
  SourceLoc loc;               // what nodes built from it point at
  std::string_view view() const { return {text, len}; }
  bool is_op(uint32_t c) const { return kind == TokKind::Op && code == c; }
  bool is_word(std::string_view w) const { return kind == TokKind::Ident && view() == w; }
  // X3's literal parsers compare a token with a character (the '(' of a
  // rule): an operator of one byte is that byte, any other token none.
  operator char() const { return kind == TokKind::Op && len == 1 ? text[0] : '\0'; }
};

// The tokens of `file` (a source file, lexed here, or a preprocessed view)
// into `out`, ending with a token of kind End whose location is the end of
// the input. Returns false, having reported why, for input the grammar must
// not see: a byte outside ASCII in code, or nesting past what the
// recursive descent's stack allows.
bool make_tokens(const SourceManager& sm, uint32_t file, std::vector<Tok>& out, DiagSink& diags);

}  // namespace stapx::parse
