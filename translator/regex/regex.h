// Regular expressions for `str =~ "re"` and `str !~ "re"`, compiled at
// translate time: a POSIX extended regular expression is parsed
// (regex_parse.cpp), built into a Thompson NFA and turned by subset
// construction into a DFA over byte classes (regex_dfa.cpp). The module
// carries the DFA as C tables, walked by runtime-c/regex.c.
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
  size_t pos;  // byte offset in the pattern
  std::string message;
};

// Parse tree of a pattern (regex_parse.cpp), the input of the NFA builder.
struct Node {
  enum Kind { Empty, Bytes, Bol, Eol, Concat, Alt, Repeat } kind = Empty;
  std::vector<bool> bytes;  // Bytes: the 256 bytes it matches
  std::vector<Node> kids;   // Concat, Alt: the parts; Repeat: the one operand
  int min = 0, max = -1;    // Repeat: bounds, max -1 = unbounded
};

std::optional<Error> parse(std::string_view pattern, Node& out);

// Compiles `pattern` into `out`, or says what is wrong with it.
std::optional<Error> compile(std::string_view pattern, Dfa& out);

// The DFA walked in C++ the way runtime-c/regex.c walks it (for tests and
// for tools); stops at `limit` bytes as the runtime stops at MAXSTRINGLEN.
bool match(const Dfa& dfa, std::string_view s, size_t limit = SIZE_MAX);

}  // namespace stapx::regex
