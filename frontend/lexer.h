// The tokenizer of pass 1: the preprocessing passes (macros, then
// conditionals) work on its tokens, as stap's do, and the grammar (Spirit
// X3) runs over the tokens they choose (frontend/parse/tokens.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/source_loc.h"

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

// Up to 8 bytes packed into one number, the first lowest (as a
// little-endian load of them).
constexpr uint64_t pack_bytes(std::string_view s) {
  uint64_t v = 0;
  for (size_t i = s.size(); i-- > 0;) v = v << 8 | static_cast<uint8_t>(s[i]);
  return v;
}

// An operator's bytes (at most 4) packed into one word, for one compare.
constexpr uint32_t op_code(std::string_view s) { return static_cast<uint32_t>(pack_bytes(s)); }

// The words the grammar tests, found once per identifier token; the
// reserved ones (no identifiers) first.
enum class Word : uint8_t {
  None,
  If, In, For, Try, Else, Next, Probe, Limit, While, Break, Catch, Global, Return, Delete, Private,
  Foreach, Function, Continue,  // the last reserved word
  Long, String,  // String last: the lexer's word table checks up to it
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
// No class, a mark the lexer sets in Tok::ops on the few tokens the
// parser's token pass must do more with than copy (see TokenMaker): a
// $name, an identifier holding a '$', "->", a byte outside ASCII, an
// unterminated construct.
constexpr uint8_t kSpecial = 0x80;
// No class either, a mark the lexer sets on the tokens the preprocessor
// must look at (an @name or $name, a '%(' '%?' '%:' '%)'), so that its loop
// over the others tests one bit.
constexpr uint8_t kPreprocess = 0x40;

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

// A token, one format from the lexer through the preprocessor to the
// grammar: classified once, when lexed (an identifier's word, an
// operator's code and class, a preprocessor mark), and copied whole after.
struct Tok {
  TokKind kind;
  Word word = Word::None;  // an identifier the grammar knows
  uint8_t ops = 0;         // an operator's OpClass bits; kSpecial
  PpMark pp = PpMark::None;
  uint32_t code = 0;  // an operator's op_code(); 0 for the other kinds (and for operators past 4 bytes)
  uint32_t len = 0;
  // The macro expansion (or $1 argument) the token came through: 0 for
  // none, else its SourceManager::add_expansion() number.
  uint32_t expansion = 0;
  const char* text = nullptr;  // in the text of the file it was lexed from
  // Where it is: in its real file, as lexed and preprocessed; in the
  // parser's tokens (frontend/parse/tokens.h), what nodes built from it
  // point at (a view's location for one that came through an expansion).
  SourceLoc loc;
  std::string_view view() const { return {text, len}; }
  // Right after the previous token, nothing between them: its text ends
  // where this one's begins. (Tokens of different expansions never touch
  // so: a macro body's text is followed by its '%)', an argument's by ','
  // or ')', and what a conditional drops lies between what it keeps.)
  // The parser's tokens have a token before the first, which touches
  // nothing.
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
static_assert(sizeof(Tok) == 32);

// A growing array of tokens whose push_back is a compare and a store
// (std::vector's is a call in the loops that fill these, which run once per
// token). Kept from file to file: it only grows.
template <class T>
class TokenArray {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_.get(); }
  const T* end() const { return data_.get() + size_; }
  const T& back() const { return data_[size_ - 1]; }
  const T& operator[](size_t i) const { return data_[i]; }
  operator std::span<const T>() const { return {begin(), size_}; }
  void clear() { size_ = 0; }
  void pop_back() { --size_; }
  void reserve(size_t n) {
    if (n > capacity_) grow(n);
  }
  __attribute__((always_inline)) void push_back(const T& t) {
    if (size_ == capacity_) grow(2 * capacity_ + 64);
    data_[size_++] = t;
  }
  // For a loop that appends many: it writes at cursor() up to limit() (a
  // pointer of its own, which no store of a token makes it reload), then
  // commits where it stopped; make_room() grows the array, and returns the
  // new cursor, once cursor() reaches limit().
  T* cursor() { return data_.get() + size_; }
  T* limit() { return data_.get() + capacity_; }
  void commit(T* end) { size_ = static_cast<size_t>(end - data_.get()); }
  T* make_room(T* end) {
    commit(end);
    grow(2 * capacity_ + 64);
    return cursor();
  }
  void append(std::span<const T> s) {
    reserve(size_ + s.size());
    std::copy(s.begin(), s.end(), data_.get() + size_);
    size_ += s.size();
  }

 private:
  void grow(size_t n) {
    std::unique_ptr<T[]> bigger(new T[n]);
    std::copy(begin(), end(), bigger.get());
    data_ = std::move(bigger);
    capacity_ = n;
  }
  std::unique_ptr<T[]> data_;
  size_t size_ = 0, capacity_ = 0;
};

// Tokenizes `src`, the text of file `file` (comments and blanks dropped),
// into `out` (cleared first, its capacity reused): tokens of that file,
// reached through no expansion. An Error token marks an unterminated
// construct and ends the list. (A std::string: the lexer's loops stop at
// the '\0' that ends its text.)
void tokenize(const std::string& src, uint32_t file, TokenArray<Tok>& out);
// The same, as a vector.
std::vector<Tok> tokenize(const std::string& src, uint32_t file = 0);

// Quick test: may the text use preprocessing (%( %), @define, @macro,
// $1 / @1 arguments)? False means it can be parsed as it is.
bool needs_preprocessing(std::string_view src);

// "this1", "this2" ... (an '@' token's text after the '@'): stap's
// per-thread values @thisN, an operator of the language, not a macro.
inline bool is_this_var_name(std::string_view name) {
  return name.size() > 4 && name.starts_with("this") &&
         name.find_first_not_of("0123456789", 4) == std::string_view::npos;
}

}  // namespace stapx
