// The tokens the grammar runs over. Spirit X3 parses a file's token array
// (iterator: const Tok*), lexed once, with no skipper: blanks and comments
// are gone, and every primitive tests a token's kind or operator code
// instead of scanning characters.
#pragma once

#include <cstdint>
#include <span>
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

// The words the grammar tests, found once per identifier token; the
// reserved ones (no identifiers) first.
enum class Word : uint8_t {
  None,
  If, In, For, Try, Else, Next, Probe, Limit, While, Break, Catch, Global, Return, Delete, Private,
  Foreach, Function, Continue,  // the last reserved word
  Long, String,
};

constexpr Word word_of(std::string_view w) {
  switch (w.size()) {
    case 2: return w == "if" ? Word::If : w == "in" ? Word::In : Word::None;
    case 3: return w == "for" ? Word::For : w == "try" ? Word::Try : Word::None;
    case 4: return w == "else" ? Word::Else : w == "next" ? Word::Next : w == "long" ? Word::Long : Word::None;
    case 5:
      return w == "probe"   ? Word::Probe
             : w == "limit" ? Word::Limit
             : w == "while" ? Word::While
             : w == "break" ? Word::Break
             : w == "catch" ? Word::Catch
                            : Word::None;
    case 6:
      return w == "global"   ? Word::Global
             : w == "return" ? Word::Return
             : w == "delete" ? Word::Delete
             : w == "string" ? Word::String
                             : Word::None;
    case 7: return w == "private" ? Word::Private : w == "foreach" ? Word::Foreach : Word::None;
    case 8: return w == "function" ? Word::Function : w == "continue" ? Word::Continue : Word::None;
    default: return Word::None;
  }
}

// What an operator token can be in an expression, found once per token.
enum OpClass : uint8_t { kBinary = 1, kAssign = 2, kUnary = 4, kPostfix = 8 };

constexpr uint8_t op_class(uint32_t code) {
  switch (code) {
    case op_code("||"): case op_code("&&"): case op_code("|"): case op_code("^"): case op_code("<"):
    case op_code(">"): case op_code("=~"): case op_code("!~"): case op_code("<<"): case op_code(">>"):
    case op_code(">>>"): case op_code("."): case op_code("*"): case op_code("/"): case op_code("%"):
    case op_code("=="): case op_code("!="): case op_code("<="): case op_code(">="):
      return kBinary;
    case op_code("&"): case op_code("+"): case op_code("-"): return kBinary | kUnary;
    case op_code("!"): case op_code("~"): return kUnary;
    case op_code("++"): case op_code("--"): return kUnary | kPostfix;
    case op_code("="): case op_code("+="): case op_code("-="): case op_code("*="): case op_code("/="):
    case op_code("%="): case op_code("<<="): case op_code(">>="): case op_code(">>>="): case op_code("&="):
    case op_code("|="): case op_code("^="): case op_code(".="): case op_code("<<<"):
      return kAssign;
    default: return 0;
  }
}

struct Tok {
  TokKind kind;
  Word word = Word::None;  // an identifier the grammar knows
  uint8_t ops = 0;       // an operator's OpClass bits
  uint32_t code = 0;     // an operator's op_code(); 0 for the other kinds (and for operators past 4 bytes)
  uint32_t len = 0;
  const char* text = nullptr;  // in the text the token was lexed from
  SourceLoc loc;               // what nodes built from it point at
  std::string_view view() const { return {text, len}; }
  // Right after the previous token, nothing between them: its text ends
  // where this one's begins. (Tokens of different expansions never touch
  // so: a macro body's text is followed by its '%)', an argument's by ','
  // or ')', and what a conditional drops lies between what it keeps.)
  // make_tokens puts a token before the first, which touches nothing.
  bool glued() const {
    const Tok& prev = this[-1];
    return prev.text + prev.len == text;
  }
  bool is_op(uint32_t c) const { return code == c; }  // (only operators have codes)
  bool is(Word w) const { return word == w; }  // (only identifiers have words)
  bool is_keyword() const { return word != Word::None && word <= Word::Continue; }
  // X3's literal parsers compare a token with a character (the '(' of a
  // rule): an operator of one byte is that byte, any other token none.
  // (Only operators have codes, and a one-byte operator's is its byte.)
  operator char() const { return code < 0x80 ? static_cast<char>(code) : '\0'; }
};

// The tokens of `file` (a source file, lexed here, or a preprocessed view),
// made in `buf` (scratch space kept from file to file: it only grows) after
// a token that is none (see Tok::glued), ending with a token of kind End
// whose location is the end of the input. Returns
// none, having reported why, for input the grammar must not see: a byte
// outside ASCII in code, or nesting past what the recursive descent's stack
// allows.
std::span<const Tok> make_tokens(const SourceManager& sm, uint32_t file, std::vector<Tok>& buf, DiagSink& diags);

}  // namespace stapx::parse
