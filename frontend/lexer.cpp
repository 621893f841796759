// Tokenizer for the preprocessing passes.
#include "frontend/lexer.h"

#include <array>
#include <cctype>
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
bool is_space(char c) { return in_class(c, kSpace); }
bool is_alnum(char c) { return in_class(c, kDigit | kAlpha); }
bool ident_char(char c) { return in_class(c, kDigit | kAlpha | kUnderscore); }
bool ident_tail(char c) { return in_class(c, kDigit | kAlpha | kUnderscore | kDollar); }

// What a token (or a blank) starting with a byte is, decided by one table
// lookup per token.
// (Op1: an operator no other byte can extend.)
enum class Start : uint8_t { Op, Op1, Space, Ident, Digit, Quote, AtDollar, Hash, Slash, Percent, Nul };
constexpr std::array<Start, 256> kStart = [] {
  std::array<Start, 256> t{};
  for (unsigned c = 0; c < 256; ++c) {
    if (kClass[c] & kSpace) t[c] = Start::Space;
    else if (kClass[c] & (kAlpha | kUnderscore)) t[c] = Start::Ident;
    else if (kClass[c] & kDigit) t[c] = Start::Digit;
  }
  t['"'] = t['\''] = Start::Quote;
  t['@'] = t['$'] = Start::AtDollar;
  t['#'] = Start::Hash;
  t['/'] = Start::Slash;
  t['%'] = Start::Percent;
  t['\0'] = Start::Nul;
  for (char c : {'(', ')', '{', '}', '[', ']', ',', ';', ':', '?', '~'}) t[static_cast<unsigned char>(c)] = Start::Op1;
  return t;
}();

// The length of the longest operator at p (1 for any other byte). The
// operators of more than one byte:
//   <<<= >>>= <<< >>> <<= >>= && || == != <= >= << >> ++ -- += -= *= /= %=
//   .= &= |= ^= =~ !~ -> %( %? %: %)
// Decided on the next bytes: nearly half the tokens are operators, and
// comparing each candidate as a string cost a memcmp call apiece. (A byte
// is read only after a byte that is not '\0', so never past the text's
// terminating '\0'.)
__attribute__((always_inline)) inline size_t op_length(const char* p) {
  char c = p[0], d = p[1];
  switch (c) {
    case '<':
    case '>':
      if (d == c) {
        if (p[2] == c) return p[3] == '=' ? 4 : 3;
        return p[2] == '=' ? 3 : 2;
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

// The first "xy" at or after p, before end; null if none.
const char* find_pair(const char* p, const char* end, char x, char y) {
  while (p < end) {
    p = static_cast<const char*>(std::memchr(p, x, end - p));
    if (!p) return nullptr;
    if (p[1] == y) return p;  // (p < end: p[1] is at most the terminator)
    ++p;
  }
  return nullptr;
}

// The lexer, calling push(kind, begin, end, pp) per token. The text ends
// with a '\0' (a std::string's), which the loops stop at without testing
// for the end: a '\0' is the end of the input only where the text ends.
template <class Push>
__attribute__((always_inline)) inline void lex(const std::string& src, Push push) {
  const char* const base = src.c_str();
  const char* const end = base + src.size();
  const char* p = base;
  auto at = [&](const char* q) { return static_cast<uint32_t>(q - base); };
  while (true) {
    char c = *p;
    switch (kStart[static_cast<unsigned char>(c)]) {
      case Start::Space:
        while (is_space(*++p)) {
        }
        continue;
      case Start::Hash: {
      line_comment:
        const void* nl = std::memchr(p, '\n', end - p);
        p = nl ? static_cast<const char*>(nl) + 1 : end;
        continue;
      }
      case Start::Slash:
        if (p[1] == '/') goto line_comment;
        if (p[1] == '*') {
          const char* close = find_pair(p + 2, end, '*', '/');
          if (!close) {
            push(TokKind::Error, at(p), at(end), PpMark::None);
            return;
          }
          p = close + 2;
          continue;
        }
        break;
      case Start::Ident: {
        const char* e = p + 1;
        while (ident_tail(*e)) ++e;
        push(TokKind::Ident, at(p), at(e), PpMark::None);
        p = e;
        continue;
      }
      case Start::Digit: {
        const char* e = p + 1;
        while (is_alnum(*e)) ++e;
        push(TokKind::Number, at(p), at(e), PpMark::None);
        p = e;
        continue;
      }
      case Start::Quote: {
        const char* e = p + 1;
        while (true) {
          char x = *e;
          if (x == c || x == '\n') break;
          if (x == '\\') {
            if (e + 1 >= end) {
              e = end;
              break;
            }
            e += 2;
          } else if (x == '\0' && e >= end) {
            break;
          } else {
            ++e;
          }
        }
        if (e >= end || *e != c) {
          push(TokKind::Error, at(p), at(e), PpMark::None);
          return;
        }
        push(c == '"' ? TokKind::String : TokKind::Char, at(p), at(e + 1), PpMark::None);
        p = e + 1;
        continue;
      }
      case Start::AtDollar: {
        const char* e = p + 1;
        if (c == '$')
          while (*e == '$') ++e;
        if (*e == '#') {
          ++e;
        } else {
          while (ident_char(*e)) ++e;
          // $var$ and $var$$ pretty-printing suffixes belong to the token.
          if (c == '$')
            while (*e == '$') ++e;
        }
        push(c == '@' ? TokKind::At : TokKind::Dollar, at(p), at(e), PpMark::None);
        p = e;
        continue;
      }
      case Start::Percent:
        if (p[1] == '{') {
          const char* close = find_pair(p + 2, end, '%', '}');
          if (!close) {
            push(TokKind::Error, at(p), at(end), PpMark::None);
            return;
          }
          push(TokKind::EmbeddedC, at(p), at(close + 2), PpMark::None);
          p = close + 2;
          continue;
        }
        switch (p[1]) {
          case '(': push(TokKind::Op, at(p), at(p + 2), PpMark::Open); p += 2; continue;
          case '?': push(TokKind::Op, at(p), at(p + 2), PpMark::Then); p += 2; continue;
          case ':': push(TokKind::Op, at(p), at(p + 2), PpMark::Else); p += 2; continue;
          case ')': push(TokKind::Op, at(p), at(p + 2), PpMark::Close); p += 2; continue;
        }
        break;
      case Start::Nul:
        if (p == end) return;
        break;
      case Start::Op1:
        push(TokKind::Op, at(p), at(p + 1), PpMark::None);
        ++p;
        continue;
      case Start::Op: break;
    }
    size_t len = op_length(p);
    push(TokKind::Op, at(p), at(p + len), PpMark::None);
    p += len;
  }
}

// Lexes `s` into `out`, through a cursor of its own (see TokenArray).
template <class T, class Make>
void lex_into(const std::string& s, TokenArray<T>& out, Make make) {
  out.clear();
  out.reserve(s.size() / 8 + 16);  // tapsets average ~8.6 bytes per token
  T* w = out.cursor();
  T* limit = out.limit();
  lex(s, [&](TokKind k, uint32_t b, uint32_t e, PpMark pp) {
    if (w == limit) {
      w = out.make_room(w);
      limit = out.limit();
    }
    *w++ = make(Token{k, pp, b, e});
  });
  out.commit(w);
}

}  // namespace

std::vector<Token> tokenize(const std::string& s) {
  TokenArray<Token> toks;
  tokenize(s, toks);
  return std::vector<Token>(toks.begin(), toks.end());
}

void tokenize(const std::string& s, TokenArray<Token>& out) {
  lex_into(s, out, [](const Token& t) { return t; });
}

void tokenize(const std::string& s, uint32_t file, TokenArray<ViewToken>& out) {
  lex_into(s, out, [file](const Token& t) { return ViewToken{t, file, 0}; });
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
