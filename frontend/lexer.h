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

// A token of a preprocessed view: the token at `begin`..`end` of real file
// `file`, reached through `expansion` (0: none, else index + 1 into
// SourceManager's expansions).
struct ViewToken {
  Token tok;
  uint32_t file;
  uint32_t expansion;
};

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

// Tokenizes `src` (comments and blanks dropped). An Error token marks an
// unterminated construct and ends the list. (A std::string: the lexer's
// loops stop at the '\0' that ends its text.)
std::vector<Token> tokenize(const std::string& src);
// The same into `out` (cleared first), reusing its capacity.
void tokenize(const std::string& src, TokenArray<Token>& out);
// The same as the tokens of real file `file`, reached through no expansion:
// the preprocessor's input.
void tokenize(const std::string& src, uint32_t file, TokenArray<ViewToken>& out);

// Quick test: may the text use preprocessing (%( %), @define, @macro,
// $1 / @1 arguments)? False means it can be parsed as it is.
bool needs_preprocessing(std::string_view src);

}  // namespace stapx
