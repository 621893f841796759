// Regular expressions for `str =~ "re"` and `str !~ "re"`, compiled at
// translate time: a POSIX extended regular expression is parsed
// (regex_parse.cpp), built into a Thompson NFA and turned by subset
// construction into a DFA over byte classes (regex_dfa.cpp). The module
// carries the DFA as C tables, walked by runtime-c/regex.c.
//
// When a script reads sub-matches (matched(), ngroups()), a successful
// match is run a second time through a Pike VM (regex_submatch.cpp,
// runtime-c/regex.c): a Thompson NFA program with save instructions for
// the groups, simulated breadth-first, so bounded in time (string length x
// program size) and in memory (one thread per instruction), with no
// recursion.
//
// The DFA answers an unanchored search: it restarts the pattern after every
// byte, so reaching an accepting state anywhere means "matches". `^` holds
// only at the start of the string and `$` only at its end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stapx::regex {

// Per-state flags, shared with runtime-c/regex.c (STPX_RE_*).
enum : uint8_t {
  kAcceptNow = 1,  // a match ends here: the string matches
  kAcceptEnd = 2,  // matches if the string ends here (a `$` is satisfied)
  kDead = 4,       // no continuation can match: the string does not
};

// The largest DFA stapx emits; bigger ones are a compile error.
inline constexpr size_t kMaxStates = 5000;
// Bounds on the pattern's expansion before the DFA is built.
inline constexpr int kMaxRepeat = 1000;
inline constexpr size_t kMaxNfaStates = 100000;
// ... and on the work of building the DFA (NFA states visited; about a second).
inline constexpr uint64_t kMaxWork = 60'000'000;

struct Dfa {
  uint8_t classes[256] = {};  // byte -> class
  int nclasses = 0;
  std::vector<uint16_t> trans;  // [state * nclasses + class] -> state
  std::vector<uint8_t> flags;   // per state, kAccept*/kDead
  size_t states() const { return flags.size(); }
};

struct Error {
  static constexpr size_t kNoPos = static_cast<size_t>(-1);
  size_t pos;  // byte offset in the pattern, or kNoPos (stap names none)
  std::string message;
  // What follows "regex compilation error": " (at position N): MESSAGE".
  std::string describe() const {
    return (pos == kNoPos ? std::string() : " (at position " + std::to_string(pos) + ")") + ": " + message;
  }
};

// Parse tree of a pattern (regex_parse.cpp), the input of the NFA builder.
struct Node {
  enum Kind { Empty, Bytes, Bol, Eol, Concat, Alt, Repeat, Group } kind = Empty;
  std::vector<bool> bytes;  // Bytes: the 256 bytes it matches
  std::vector<Node> kids;   // Concat, Alt: the parts; Repeat: the one operand
  int min = 0, max = -1;    // Repeat: bounds, max -1 = unbounded
  int group = 0;            // Group: its number (1 for the first '('); kids[0] its contents
};

// `groups`, if given, receives the number of parenthesised groups.
std::optional<Error> parse(std::string_view pattern, Node& out, int* groups = nullptr);

// Compiles `pattern` into `out`, or says what is wrong with it.
std::optional<Error> compile(std::string_view pattern, Dfa& out);

// The DFA walked in C++ the way runtime-c/regex.c walks it (for tests and
// for tools); stops at `limit` bytes as the runtime stops at MAXSTRINGLEN.
bool match(const Dfa& dfa, std::string_view s, size_t limit = SIZE_MAX);

// The sub-match program: instructions shared with runtime-c/regex.c
// (STPX_RE_OP_*). Slot 2g holds where group g starts, 2g + 1 where it
// ends; group 0 is the whole match.
enum : uint8_t {
  kOpByte,   // the byte is in sets[arg]: go on to x at the next byte
  kOpSplit,  // go on to x, and (less preferred) to y
  kOpJmp,    // go on to x
  kOpSave,   // slot arg = the position; go on to x
  kOpBol,    // at the start of the string: go on to x
  kOpEol,    // at its end: go on to x
  kOpMatch,  // a match ends here
};

struct Inst {
  uint8_t op = kOpMatch;
  uint16_t arg = 0, x = 0, y = 0;
};

struct Prog {
  std::vector<Inst> insts;
  std::vector<std::vector<uint8_t>> sets;  // 32-byte bitmaps of bytes
  int nslots = 2;                          // 2 x (groups + 1)
};

// Bound on a program's size times its slots: the per-CPU memory the
// runtime sets aside for the simulation (two thread lists of that many
// positions).
inline constexpr size_t kMaxSubmatchCells = 16384;

std::optional<Error> compile_submatch(std::string_view pattern, Prog& out);

// Where the match is and where its groups are, as runtime-c/regex.c finds
// them: the leftmost match, the longest one starting there, and of the
// ways to match that, the one the pattern prefers (alternatives in
// order, repetitions as many times as they can). Positions are -1 for a
// group that took no part. Empty if the string does not match.
std::vector<int> submatch(const Prog& prog, std::string_view s, size_t limit = SIZE_MAX);

}  // namespace stapx::regex
