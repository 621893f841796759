// Tokenizer for the preprocessing passes.
#include "frontend/lexer.h"

#include <cctype>
#include <array>
#include <cstring>

namespace stapx {

namespace {

// ASCII classes by table, not libc's tests (a call each): bytes outside
// ASCII are no part of any token here, and the parser rejects them in code.
enum : uint8_t { kDigit = 1, kAlpha = 2, kUnderscore = 4, kDollar = 8, kSpace = 16 };
constexpr std::array<uint8_t, 256> kClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kAlpha;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kAlpha;
  t['_'] = kUnderscore;
  t['$'] = kDollar;
  t[' '] = kSpace;
  for (int c = '\t'; c <= '\r'; ++c) t[c] = kSpace;
  return t;
}();
bool in_class(char c, uint8_t bits) { return kClass[static_cast<unsigned char>(c)] & bits; }
bool is_digit(char c) { return in_class(c, kDigit); }
bool is_alnum(char c) { return in_class(c, kDigit | kAlpha); }
bool is_space(char c) { return in_class(c, kSpace); }
bool ident_start(char c) { return in_class(c, kAlpha | kUnderscore); }
bool ident_char(char c) { return in_class(c, kDigit | kAlpha | kUnderscore); }
bool ident_tail(char c) { return in_class(c, kDigit | kAlpha | kUnderscore | kDollar); }

// The length of the longest operator at s[i] (1 for any other byte). The
// operators of more than one byte:
//   <<<= >>>= <<< >>> <<= >>= && || == != <= >= << >> ++ -- += -= *= /= %=
//   .= &= |= ^= =~ !~ -> %( %? %: %)
// Decided on the next bytes: nearly half the tokens are operators, and
// comparing each candidate as a string cost a memcmp call apiece.
size_t op_length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return i + k < s.size() ? s[i + k] : '\0'; };
  char c = s[i], d = at(1);
  switch (c) {
    case '<':
    case '>':
      if (d == c) {
        if (at(2) == c) return at(3) == '=' ? 4 : 3;
        return at(2) == '=' ? 3 : 2;
      }
      return d == '=' ? 2 : 1;
    case '&':
    case '|': return d == c || d == '=' ? 2 : 1;
    case '=':
    case '!': return d == '=' || d == '~' ? 2 : 1;
    case '+': return d == '+' || d == '=' ? 2 : 1;
    case '-': return d == '-' || d == '=' || d == '>' ? 2 : 1;
    case '*':
    case '/':
    case '.':
    case '^': return d == '=' ? 2 : 1;
    case '%': return d == '=' || d == '(' || d == '?' || d == ':' || d == ')' ? 2 : 1;
    default: return 1;
  }
}

// Skips blanks and comments from i; returns the new position, or npos for an
// unterminated block comment (which starts at *open then).
size_t skip_blank(std::string_view s, size_t i, size_t* open) {
  while (i < s.size()) {
    char c = s[i];
    if (is_space(c)) {
      ++i;
    } else if (c == '#' || (c == '/' && i + 1 < s.size() && s[i + 1] == '/')) {
      size_t nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl + 1;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t close = s.find("*/", i + 2);
      if (close == std::string_view::npos) {
        *open = i;
        return std::string_view::npos;
      }
      i = close + 2;
    } else {
      break;
    }
  }
  return i;
}

}  // namespace

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  tokenize(s, out);
  return out;
}

void tokenize(std::string_view s, std::vector<Token>& out) {
  out.clear();
  out.reserve(s.size() / 8 + 16);  // tapsets average ~8.6 bytes per token
  size_t i = 0;
  auto push = [&](TokKind k, size_t b, size_t e, PpMark pp = PpMark::None) {
    out.push_back({k, pp, static_cast<uint32_t>(b), static_cast<uint32_t>(e)});
  };
  while (true) {
    size_t open = i;
    size_t start = skip_blank(s, i, &open);
    if (start == std::string_view::npos) {
      push(TokKind::Error, open, s.size());
      return;
    }
    i = start;
    if (i >= s.size()) return;
    char c = s[i];
    if (ident_start(c)) {
      size_t e = i + 1;
      while (e < s.size() && ident_tail(s[e])) ++e;
      push(TokKind::Ident, i, e);
      i = e;
    } else if (is_digit(c)) {
      size_t e = i + 1;
      while (e < s.size() && is_alnum(s[e])) ++e;
      push(TokKind::Number, i, e);
      i = e;
    } else if (c == '"' || c == '\'') {
      size_t e = i + 1;
      while (e < s.size() && s[e] != c && s[e] != '\n') e += s[e] == '\\' ? 2 : 1;
      if (e >= s.size() || s[e] != c) {
        push(TokKind::Error, i, std::min(e, s.size()));
        return;
      }
      push(c == '"' ? TokKind::String : TokKind::Char, i, e + 1);
      i = e + 1;
    } else if (c == '%' && i + 1 < s.size() && s[i + 1] == '{') {
      size_t close = s.find("%}", i + 2);
      if (close == std::string_view::npos) {
        push(TokKind::Error, i, s.size());
        return;
      }
      push(TokKind::EmbeddedC, i, close + 2);
      i = close + 2;
    } else if (c == '@' || c == '$') {
      size_t e = i + 1;
      while (c == '$' && e < s.size() && s[e] == '$') ++e;
      if (e < s.size() && (s[e] == '#')) {
        ++e;
      } else {
        while (e < s.size() && ident_char(s[e])) ++e;
        // $var$ and $var$$ pretty-printing suffixes belong to the token.
        while (c == '$' && e < s.size() && s[e] == '$') ++e;
      }
      push(c == '@' ? TokKind::At : TokKind::Dollar, i, e);
      i = e;
    } else {
      size_t len = op_length(s, i);
      PpMark pp = PpMark::None;
      if (c == '%' && len == 2) {
        switch (s[i + 1]) {
          case '(': pp = PpMark::Open; break;
          case '?': pp = PpMark::Then; break;
          case ':': pp = PpMark::Else; break;
          case ')': pp = PpMark::Close; break;
        }
      }
      push(TokKind::Op, i, i + len, pp);
      i += len;
    }
  }
}

bool needs_preprocessing(std::string_view s) {
  if (s.find("%(") != std::string_view::npos || s.find('@') != std::string_view::npos) return true;
  // A stray '%?', '%:' or '%)' is the preprocessor's error to report.
  if (s.find("%?") != std::string_view::npos || s.find("%:") != std::string_view::npos ||
      s.find("%)") != std::string_view::npos)
    return true;
  for (size_t i = s.find('$'); i != std::string_view::npos; i = s.find('$', i + 1))
    if (i + 1 < s.size() && (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '#'))
      return true;  // $1, $#: command-line arguments
  return false;
}

}  // namespace stapx
