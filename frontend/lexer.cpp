// Tokenizer for the preprocessing passes.
#include "frontend/lexer.h"

#include <emmintrin.h>

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

// Which of sixteen bytes are in [lo, lo + n): unsigned c - lo < n, as a
// signed compare of (c - lo) ^ 0x80 with n - 128.
__attribute__((always_inline)) inline __m128i in_range(__m128i v, char lo, int n) {
  __m128i shifted = _mm_xor_si128(_mm_sub_epi8(v, _mm_set1_epi8(lo)), _mm_set1_epi8(static_cast<char>(0x80)));
  return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(n - 128)));
}

// Where the identifier bytes ([0-9A-Za-z_$]) from p end, end being the
// end of the text. Sixteen bytes at a time where the text has them (an
// identifier's bytes one by one cost a branch each, and the last one a
// misprediction), byte by byte in the last fifteen.
// Sets `dollar` if any of them is a '$'.
__attribute__((always_inline)) inline const char* ident_end(const char* p, const char* end, bool& dollar) {
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i dollars = _mm_cmpeq_epi8(v, _mm_set1_epi8('$'));
    __m128i word = _mm_or_si128(in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26), in_range(v, '0', 10));
    word = _mm_or_si128(word, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')), dollars));
    unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(word)) & 0xFFFF;
    unsigned in = other ? (1u << __builtin_ctz(other)) - 1 : 0xFFFF;  // the identifier's bytes here
    dollar |= (static_cast<unsigned>(_mm_movemask_epi8(dollars)) & in) != 0;
    if (other) return p + __builtin_ctz(other);
    p += 16;
  }
  for (; ident_tail(*p); ++p) dollar |= *p == '$';
  return p;
}

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

// The first "xy" at or after p, before end; null if none. Sixteen places
// at a time where the text has them: a doc comment has a '*' on each line,
// where a search for the '*' alone stopped.
const char* find_pair(const char* p, const char* end, char x, char y) {
  const __m128i vx = _mm_set1_epi8(x), vy = _mm_set1_epi8(y);
  while (end - p >= 17) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
    unsigned hit = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, vx), _mm_cmpeq_epi8(b, vy))));
    if (hit) return p + __builtin_ctz(hit);
    p += 16;
  }
  for (; p < end; ++p)
    if (p[0] == x && p[1] == y) return p;  // (p < end: p[1] is at most the terminator)
  return nullptr;
}

// The first byte at or after p, before end, that is one of a, b, c or d;
// end if none. Sixteen bytes at a time, then one by one for the last.
__attribute__((always_inline)) inline const char* find_any(const char* p, const char* end, char a, char b, char c,
                                                          char d) {
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c), vd = _mm_set1_epi8(d);
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)),
                               _mm_or_si128(_mm_cmpeq_epi8(v, vc), _mm_cmpeq_epi8(v, vd)));
    unsigned m = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
  while (p < end && *p != a && *p != b && *p != c && *p != d) ++p;
  return p;
}

// Where the blanks from p end, end being the end of the text. Most tokens
// have none or one before them; a line's end and the next one's indent
// are taken sixteen bytes at a time where the text has them.
__attribute__((always_inline)) inline const char* skip_blanks(const char* p, const char* end) {
  if (!is_space(p[0])) return p;
  if (!is_space(p[1])) return p + 1;  // (p[0] is no terminator: p[1] is at most one)
  p += 2;
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // ' ', or '\t' to '\r'.
    __m128i blank = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), in_range(v, '\t', 5));
    unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(blank)) & 0xFFFF;
    if (other) return p + __builtin_ctz(other);
    p += 16;
  }
  while (is_space(*p)) ++p;
  return p;
}

// op_class() of the one-byte operators, by byte; a byte outside ASCII is
// kSpecial (the parser rejects it).
constexpr auto kOneByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = c < 128 ? op_class(c) : kSpecial;
  return t;
}();

// An operator's code (op_code) from its `len` bytes at p.
__attribute__((always_inline)) inline uint32_t code_at(const char* p, size_t len) {
  auto b = [p](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(p[i])); };
  uint32_t c = b(0);
  if (len > 1) c |= b(1) << 8;
  if (len > 2) c |= b(2) << 16;
  if (len > 3) c |= b(3) << 24;
  return c;
}

// The lexer, making each token through `sink`: sink.token(kind, begin,
// end) for most kinds, sink.ident(begin, end), sink.op(begin, len, code,
// ops) and sink.mark(begin, pp) for the rest, so that each site's
// classification is known where it is (an identifier's word, an operator's
// code and class). The text ends with a '\0' (a std::string's), which the
// loops stop at without testing for the end: a '\0' is the end of the
// input only where the text ends.
template <class Sink>
__attribute__((always_inline)) inline void lex(const std::string& src, Sink& sink) {
  const char* const base = src.c_str();
  const char* const end = base + src.size();
  const char* p = base;
  while (true) {
    // The blanks before a token, skipped here rather than as a case of the
    // switch: one jump through its table per token, not two.
    p = skip_blanks(p, end);
    char c = *p;
    switch (kStart[static_cast<unsigned char>(c)]) {
      case Start::Space: continue;  // (not reached: blanks are skipped above)
      case Start::Hash: {
      line_comment:
        // (A comment is a line's tail: short, where memchr's call and setup
        // cost more than the search.)
        p = find_any(p, end, '\n', '\n', '\n', '\n');
        p += p < end;
        continue;
      }
      case Start::Slash:
        if (p[1] == '/') goto line_comment;
        if (p[1] == '*') {
          const char* close = find_pair(p + 2, end, '*', '/');
          if (!close) {
            sink.token(TokKind::Error, p, end);
            return;
          }
          p = close + 2;
          continue;
        }
        break;
      case Start::Ident: {
        bool dollar = false;
        const char* e = ident_end(p + 1, end, dollar);
        sink.ident(p, e, end, dollar);
        p = e;
        continue;
      }
      case Start::Digit: {
        const char* e = p + 1;
        while (is_alnum(*e)) ++e;
        sink.token(TokKind::Number, p, e);
        p = e;
        continue;
      }
      case Start::Quote: {
        const char* e = p + 1;
        while (true) {
          // Up to the next byte that ends or escapes the literal, or may
          // be the text's end.
          e = find_any(e, end, c, '\n', '\\', '\0');
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
          sink.token(TokKind::Error, p, e);
          return;
        }
        sink.token(c == '"' ? TokKind::String : TokKind::Char, p, e + 1);
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
        sink.token(c == '@' ? TokKind::At : TokKind::Dollar, p, e);
        p = e;
        continue;
      }
      case Start::Percent:
        if (p[1] == '{') {
          const char* close = find_pair(p + 2, end, '%', '}');
          if (!close) {
            sink.token(TokKind::Error, p, end);
            return;
          }
          sink.token(TokKind::EmbeddedC, p, close + 2);
          p = close + 2;
          continue;
        }
        switch (p[1]) {
          case '(': sink.mark(p, PpMark::Open); p += 2; continue;
          case '?': sink.mark(p, PpMark::Then); p += 2; continue;
          case ':': sink.mark(p, PpMark::Else); p += 2; continue;
          case ')': sink.mark(p, PpMark::Close); p += 2; continue;
        }
        break;
      case Start::Nul:
        if (p == end) return;
        break;
      case Start::Op1:
        sink.op(p, 1, static_cast<uint8_t>(c), kOneByteClass[static_cast<uint8_t>(c)]);
        ++p;
        continue;
      case Start::Op: break;
    }
    // (A byte outside ASCII is an operator of its own, whose code is that
    // byte: the parser rejects it.)
    size_t len = op_length(p);
    if (len == 1) {
      sink.op(p, 1, static_cast<uint8_t>(c), kOneByteClass[static_cast<uint8_t>(c)]);
    } else {
      uint32_t code = code_at(p, len);
      sink.op(p, len, code, op_class(code) | (code == op_code("->") ? kSpecial : 0));
    }
    p += len;
  }
}

// word_of() for the lexer: a word of 2 to 8 bytes read as one 64-bit
// number, looked up in a table by a multiplicative hash that puts each
// word the grammar knows in a slot of its own (the multiplier is found at
// compile time), then compared once. (word_of's switch on the length was
// a mispredicted jump for most identifiers.)
struct WordTable {
  struct Entry {
    uint64_t packed = 0;
    Word word = Word::None;
  };
  static constexpr int kBits = 6;
  uint64_t multiplier = 0;
  std::array<Entry, 1u << kBits> slots{};
};
constexpr WordTable kWords = [] {
  constexpr std::string_view words[] = {"if",     "in",     "for",     "try",     "else",     "next",     "probe",
                                        "limit",  "while",  "break",   "catch",   "global",   "return",   "delete",
                                        "private", "foreach", "function", "continue", "long",  "string"};
  WordTable t;
  // (Candidates from a linear congruential sequence: a short word's high
  // product bits change only when the multiplier's do.)
  for (uint64_t m = 0x9E3779B97F4A7C15ull;; m = (m * 6364136223846793005ull + 1442695040888963407ull) | 1) {
    t.slots = {};
    bool clash = false;
    for (std::string_view w : words) {
      auto& e = t.slots[(pack_bytes(w) * m) >> (64 - WordTable::kBits)];
      if (e.word != Word::None) {
        clash = true;
        break;
      }
      e = {pack_bytes(w), word_of(w)};
    }
    if (!clash) {
      t.multiplier = m;
      return t;
    }
  }
}();
// Every word word_of() knows has its slot (a word added there and not in
// the list above would be an identifier to the lexer).
static_assert([] {
  for (int w = static_cast<int>(Word::None) + 1; w <= static_cast<int>(Word::String); ++w) {
    bool found = false;
    for (const WordTable::Entry& e : kWords.slots) found = found || e.word == static_cast<Word>(w);
    if (!found) return false;
  }
  return true;
}());
__attribute__((always_inline)) inline Word word_at(const char* p, size_t len, const char* end) {
  if (len - 2 > 6) return Word::None;  // (also len < 2)
  uint64_t v;
  if (end - p >= 8) {
    std::memcpy(&v, p, 8);
    v &= ~0ull >> (64 - 8 * len);
  } else {
    v = pack_bytes(std::string_view(p, len));
  }
  const WordTable::Entry& e = kWords.slots[(v * kWords.multiplier) >> (64 - WordTable::kBits)];
  return e.packed == v ? e.word : Word::None;
}

// Makes the tokens of file `file`, whose text starts at `base`, at the
// cursor of `out` (see TokenArray).
class TokSink {
 public:
  TokSink(TokenArray<Tok>& out, const char* base, uint32_t file)
      : out_(out), w_(out.cursor()), limit_(out.limit()), base_(base), file_(file) {}
  ~TokSink() { out_.commit(w_); }
  __attribute__((always_inline)) void token(TokKind k, const char* b, const char* e) {
    uint8_t special = (k == TokKind::Dollar || k == TokKind::Error ? kSpecial : 0) |
                      (k == TokKind::Dollar || k == TokKind::At ? kPreprocess : 0);
    put(k, b, static_cast<uint32_t>(e - b), Word::None, special, PpMark::None, 0);
  }
  __attribute__((always_inline)) void ident(const char* b, const char* e, const char* text_end, bool dollar) {
    size_t len = static_cast<size_t>(e - b);
    put(TokKind::Ident, b, static_cast<uint32_t>(len), word_at(b, len, text_end), dollar ? kSpecial : 0,
        PpMark::None, 0);
  }
  __attribute__((always_inline)) void op(const char* b, size_t len, uint32_t code, uint8_t ops) {
    put(TokKind::Op, b, static_cast<uint32_t>(len), Word::None, ops, PpMark::None, code);
  }
  __attribute__((always_inline)) void mark(const char* b, PpMark pp) {
    put(TokKind::Op, b, 2, Word::None, kPreprocess, pp, code_at(b, 2));
  }

 private:
  __attribute__((always_inline)) void put(TokKind k, const char* b, uint32_t len, Word word, uint8_t ops, PpMark pp,
                                          uint32_t code) {
    if (w_ == limit_) {
      w_ = out_.make_room(w_);
      limit_ = out_.limit();
    }
    Tok& t = *w_++;
    t.kind = k;
    t.word = word;
    t.ops = ops;
    t.pp = pp;
    t.code = code;
    t.len = len;
    t.expansion = 0;
    t.text = b;
    t.loc = SourceLoc{file_, static_cast<uint32_t>(b - base_)};
  }
  TokenArray<Tok>& out_;
  Tok* w_;
  Tok* limit_;
  const char* base_;
  uint32_t file_;
};

}  // namespace

void tokenize(const std::string& s, uint32_t file, TokenArray<Tok>& out) {
  out.clear();
  out.reserve(s.size() / 8 + 16);  // tapsets average ~8.6 bytes per token
  TokSink sink(out, s.c_str(), file);
  lex(s, sink);
}

std::vector<Tok> tokenize(const std::string& s, uint32_t file) {
  TokenArray<Tok> toks;
  tokenize(s, file, toks);
  return std::vector<Tok>(toks.begin(), toks.end());
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
