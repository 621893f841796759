// The grammar's tokens, made from the lexer's (a file parsed as it is) or
// from those the preprocessor chooses (a view), one at a time as they come:
// frontend/parse/tokens.h says what the grammar takes.
#pragma once

#include <array>
#include <cstdint>

#include "frontend/lexer.h"
#include "frontend/source_loc.h"

namespace stapx {

// Where a token of a preprocessed view that came through a macro expansion
// (or a $1 argument) was: its real file and offset, and the expansion.
struct ExpandedLoc {
  uint32_t file;
  uint32_t offset;
  uint32_t expansion;
};

// Why the grammar must not see a file's tokens (reported when it is
// parsed).
enum class TokenProblem : uint8_t {
  None,
  TooDeep,       // brackets nested past what the recursive descent's stack allows
};

constexpr int kMaxNesting = 400;  // bounds the recursive descent's stack use

// What each one-byte operator does to the nesting of brackets (by its
// code's low 7 bits: see TokenMaker::add).
constexpr auto kNesting = [] {
  std::array<int8_t, 128> t{};
  t['('] = t['['] = t['{'] = 1;
  t[')'] = t[']'] = t['}'] = -1;
  return t;
}();

// The token before a file's first (see Tok::glued: it touches nothing),
// and the End token after its last, at the end of the input `at`.
inline Tok none_token() {
  Tok t{};
  t.kind = TokKind::End;
  return t;
}
inline Tok end_token(SourceLoc at) {
  Tok t = none_token();
  t.text = "";
  t.loc = at;
  return t;
}

// The state of a walk that makes the grammar's tokens: where the next goes,
// the nesting of brackets so far, and the first problem met. The lexer
// classified each token; what is left is to count the nesting and, for the
// few tokens it marked kSpecial, to check the bytes and split
// pretty-printing suffixes. In a view, a token that came through an
// expansion is located in the view: its k-th such token is at
// SourceLoc{view, k}, and the k-th ExpandedLoc says where it really was.
struct TokenMaker {
  TokenMaker() = default;
  // Making tokens at `to`; a view's, with its expanded locations at `expanded`.
  explicit TokenMaker(Tok* to, ExpandedLoc* expanded_to = nullptr, uint32_t view_id = 0)
      : out(to), expanded(expanded_to), expanded_base(expanded_to), view(view_id) {}

  Tok* out = nullptr;  // where the next token goes; room for two (a split), out[-1] is the last made
  ExpandedLoc* expanded = nullptr;       // a view's next expanded location
  ExpandedLoc* expanded_base = nullptr;  // a view's first
  uint32_t view = 0;
  int depth = 0;
  TokenProblem problem = TokenProblem::None;
  SourceLoc problem_at;

  // Adds token `in`. False when the input ends here (an unterminated
  // construct) or has a problem. After a problem the tokens are still
  // made, each in its place, but matter no more: the file is not parsed.
  template <bool kView>
  __attribute__((always_inline)) bool add(const Tok& in) {
    return add<kView>(out, expanded, depth, in);
  }
  // The same, for the loops that make many tokens: what each token changes
  // is in their own locals `to`, `expanded_to` and `depth_now` (in
  // registers: the maker's fields would be stored and loaded for each),
  // which they give back to the maker (out, expanded, depth) when they stop.
  template <bool kView>
  __attribute__((always_inline)) bool add(Tok*& to, ExpandedLoc*& expanded_to, int& depth_now, const Tok& in) {
    // (What the checks below read, read from `in` before the copy: read
    // back from the copy, each waited for its store.)
    const uint32_t code = in.code;
    const uint8_t ops = in.ops;
    Tok& t = *to;
    t = in;
    if constexpr (kView) {
      // Every token's is written, and the cursor moves past those of
      // expanded tokens: no branch per token.
      *expanded_to = {in.loc.file, in.loc.offset, in.expansion};
      SourceLoc view_loc{view, static_cast<uint32_t>(expanded_to - expanded_base)};
      t.loc = in.expansion ? view_loc : in.loc;
      expanded_to += in.expansion != 0;
    }
    // (Only a one-byte operator's code is a bracket: no operator of more
    // bytes starts with one, and a byte outside ASCII is kSpecial.)
    depth_now += kNesting[code & 0x7f];
    if (__builtin_expect((ops & kSpecial) || depth_now > kMaxNesting, 0)) return special(to, depth_now, t);
    ++to;
    return true;
  }

 private:
  // Token `t` at `to`, kSpecial or nested too deep (a problem is noted
  // here); moves `to` past what it made.
  __attribute__((noinline)) bool special(Tok*& to, int depth_now, Tok& t);
  static int split(Tok* to, Tok& t);
};

}  // namespace stapx
