// The tokenizer of pass 1: the preprocessing passes (macros, then
// conditionals) work on its tokens, as stap's do, and the grammar (Spirit
// X3) runs over the tokens they choose (frontend/parse/tokens.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace stapx {

enum class TokKind : uint8_t {
  Ident,      // foo, kernel_v, CONFIG_X
  Number,     // 42, 0x2a
  String,     // "..." (with the quotes)
  Char,       // 'a'
  At,         // @name, @1, @#
  Dollar,     // $name, $$vars, $1, $#
  EmbeddedC,  // %{ ... %}
  Op,         // everything else, longest match
  Error,      // an unterminated string, comment or %{ block
  End,        // the end of the input (the parser's last token)
};

// The preprocessor's own operators, marked when lexed so that the
// preprocessing passes test a byte instead of comparing text.
enum class PpMark : uint8_t { None, Open /* %( */, Then /* %? */, Else /* %: */, Close /* %) */ };

struct Token {
  TokKind kind;
  PpMark pp;
  uint32_t begin;  // byte offsets in the source text
  uint32_t end;
  std::string_view text(std::string_view src) const { return src.substr(begin, end - begin); }
};

// Tokenizes `src` (comments and blanks dropped). An Error token marks an
// unterminated construct and ends the list.
std::vector<Token> tokenize(std::string_view src);
// The same into `out` (cleared first), reusing its capacity.
void tokenize(std::string_view src, std::vector<Token>& out);

// Quick test: may the text use preprocessing (%( %), @define, @macro,
// $1 / @1 arguments)? False means it can be parsed as it is.
bool needs_preprocessing(std::string_view src);

}  // namespace stapx
