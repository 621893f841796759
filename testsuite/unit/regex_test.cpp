// The regular-expression compiler (translator/regex/) and the runtime's
// matcher (runtime-c/regex.c, built in user space): patterns against
// strings with fixed expected results (POSIX ERE, unanchored search), the
// errors malformed patterns get, and the bound on the automaton's size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testsuite/unit/runtime_shim.h"
#include "translator/regex/regex.h"

namespace {

using stapx::regex::compile;
using stapx::regex::Dfa;
using stapx::regex::Error;

struct Case {
  const char* pattern;
  const char* subject;
  bool matches;
};

// Runs the DFA both through the C++ walker and the kernel C matcher.
void expect_match(const Case& c) {
  Dfa dfa;
  auto err = compile(c.pattern, dfa);
  ASSERT_FALSE(err) << c.pattern << ": " << err->message;
  EXPECT_EQ(stapx::regex::match(dfa, c.subject), c.matches) << "'" << c.subject << "' =~ '" << c.pattern << "'";
  EXPECT_EQ(shim_regex_match(dfa.classes, dfa.trans.data(), dfa.flags.data(), dfa.nclasses, c.subject),
            c.matches ? 1 : 0)
      << "runtime: '" << c.subject << "' =~ '" << c.pattern << "'";
}

TEST(Regex, LiteralsSearchAnywhere) {
  for (const Case& c : std::initializer_list<Case>{
           {"abc", "abc", true},       {"abc", "xxabcxx", true}, {"abc", "ab", false},
           {"abc", "abxabc", true},    {"abc", "aabbcc", false}, {"", "", true},
           {"", "anything", true},     {"a", "", false},         {"aab", "aaab", true},
           {"abab", "abaabab", true},  {"hello world", "say hello world!", true},
       })
    expect_match(c);
}

TEST(Regex, Anchors) {
  for (const Case& c : std::initializer_list<Case>{
           {"^abc", "abcd", true},   {"^abc", "xabc", false}, {"abc$", "xabc", true},
           {"abc$", "abcx", false},  {"^abc$", "abc", true},  {"^abc$", "abcabc", false},
           {"^$", "", true},         {"^$", "a", false},      {"^", "x", true},
           {"$", "", true},          {"a$b", "ab", false},    {"a^b", "ab", false},
           {"(^a|b)c", "ac", true},  {"(^a|b)c", "xac", false}, {"(^a|b)c", "xbc", true},
           {"x(a$|b)", "xa", true},  {"x(a$|b)", "xay", false}, {"x(a$|b)", "xby", true},
           {"^(ab|cd)+$", "abcdab", true}, {"^(ab|cd)+$", "abcda", false},
           {"$^", "", true},         {"$^", "a", false},
       })
    expect_match(c);
}

TEST(Regex, DotAndBrackets) {
  for (const Case& c : std::initializer_list<Case>{
           {"a.c", "abc", true},          {"a.c", "ac", false},          {"a.c", "a\nc", true},
           {"[abc]x", "bx", true},        {"[abc]x", "dx", false},       {"[a-f]+z", "xdeadbeefz", true},
           {"[a-f]+z", "xgz", false},     {"[^a-f]", "abcdef", false},   {"[^a-f]", "abcdefg", true},
           {"[]a]", "]", true},           {"[]a]", "b", false},          {"[^]a]", "]a", false},
           {"[a-]", "-", true},           {"[-a]", "-", true},           {"[a-]", "b", false},
           {"[0-9][0-9]*", "x42", true},  {"^[0-9]+$", "12a", false},    {"[.]", "a", false},
           {"[.]", ".", true},            {"a\\.c", "abc", false},       {"a\\.c", "a.c", true},
           {"\\\\", "a\\b", true},        {"\\*", "*", true},            {"\\(", "(", true},
           {"\\n", "a\nb", true},         {"\\t", "a b", false},         {"[\\t]", "a\tb", true},
           {"\\[x\\]", "[x]", true},      {"[[.a.]]", "a", true},        {"[[=b=]]", "abc", true},
           {"\xc3\xa9", "caf\xc3\xa9", true},  {"[\x80-\xff]", "ascii", false}, {"[\x80-\xff]", "\xc3\xa9", true},
       })
    expect_match(c);
}

TEST(Regex, PosixClasses) {
  for (const Case& c : std::initializer_list<Case>{
           {"^[[:alpha:]]+$", "Hello", true},   {"^[[:alpha:]]+$", "Hello1", false},
           {"^[[:digit:]]+$", "0123", true},     {"[[:digit:]]", "abc", false},
           {"^[[:alnum:]_]+$", "a_1Z", true},    {"^[[:alnum:]]+$", "a-1", false},
           {"[[:space:]]", "a b", true},         {"[[:space:]]", "a\tb", true},
           {"[[:space:]]", "ab", false},         {"^[[:upper:]]+$", "ABC", true},
           {"^[[:upper:]]+$", "AbC", false},     {"^[[:lower:]]+$", "abc", true},
           {"[[:punct:]]", "a,b", true},         {"[[:punct:]]", "ab c", false},
           {"^0x[[:xdigit:]]+$", "0xdeadBEEF", true}, {"^0x[[:xdigit:]]+$", "0xg", false},
           {"[[:blank:]]", "a\nb", false},       {"[[:cntrl:]]", "a\nb", true},
           {"[^[:alpha:]]", "abc", false},       {"[^[:alpha:]]", "ab3", true},
           {"[[:digit:]a-c]x", "bx", true},      {"[[:digit:]a-c]x", "7x", true},
       })
    expect_match(c);
}

TEST(Regex, AlternationAndGroups) {
  for (const Case& c : std::initializer_list<Case>{
           {"cat|dog", "hotdog", true},    {"cat|dog", "cow", false},     {"^(cat|dog)s?$", "cats", true},
           {"^(cat|dog)s?$", "cows", false}, {"a(b|c)d", "acd", true},     {"a(b|c)d", "aed", false},
           {"a|", "xyz", true},            {"()", "", true},              {"x()y", "xy", true},
           {"(a|b|c|d)e", "de", true},     {"((a|b)(c|d))+$", "xacbd", true}, {"((a|b)(c|d))+$", "acbde", false},
           {")", "a)", true},              {"a)", "a", false},
       })
    expect_match(c);
}

TEST(Regex, Repeats) {
  for (const Case& c : std::initializer_list<Case>{
           {"ab*c", "ac", true},        {"ab*c", "abbbc", true},     {"ab+c", "ac", false},
           {"ab+c", "abbc", true},      {"ab?c", "abbc", false},     {"ab?c", "ac", true},
           {"^a{3}$", "aaa", true},     {"^a{3}$", "aa", false},     {"^a{3}$", "aaaa", false},
           {"^a{2,}$", "a", false},     {"^a{2,}$", "aaaaa", true},  {"^a{2,3}$", "aaa", true},
           {"^a{2,3}$", "aaaa", false}, {"^a{0}b$", "b", true},      {"^a{0,1}b$", "aab", false},
           {"^(ab){2}$", "abab", true}, {"^(ab){2}$", "ab", false},  {"^x{2}{3}$", "xxxxxx", true},
           {"^x{2}{3}$", "xxxxx", false}, {"a**", "", true},         {"^(a*)*$", "aaa", true},
           {"^(a|ab)*c$", "abaabc", true}, {"^(a|ab)*c$", "abbc", false}, {"^(a+|b+)*$", "aabba", true},
           {"^[0-9]{1,3}(\\.[0-9]{1,3}){3}$", "192.168.0.1", true},
           {"^[0-9]{1,3}(\\.[0-9]{1,3}){3}$", "192.168.0", false},
           {"^[0-9]{1,3}(\\.[0-9]{1,3}){3}$", "1922.168.0.1", false},
       })
    expect_match(c);
}

// The longest string a script holds is MAXSTRINGLEN - 1 bytes (128 in the
// shim): the runtime looks no further, and neither does match() with a limit.
TEST(Regex, StopsAtMaxStringLen) {
  Dfa dfa;
  ASSERT_FALSE(compile("x$", dfa));
  std::string s(126, 'a');
  s += "x";  // 127 bytes: x is the last byte a script string can hold
  EXPECT_EQ(shim_regex_match(dfa.classes, dfa.trans.data(), dfa.flags.data(), dfa.nclasses, s.c_str()), 1);
  s += "yz";
  EXPECT_EQ(shim_regex_match(dfa.classes, dfa.trans.data(), dfa.flags.data(), dfa.nclasses, s.c_str()), 1)
      << "bytes past MAXSTRINGLEN - 1 are not looked at";
  EXPECT_TRUE(stapx::regex::match(dfa, s, 127));
  EXPECT_FALSE(stapx::regex::match(dfa, s));
}

TEST(Regex, SmallAutomata) {
  Dfa dfa;
  ASSERT_FALSE(compile("abc", dfa));
  EXPECT_EQ(dfa.nclasses, 4) << "a, b, c and everything else";
  EXPECT_EQ(dfa.states(), 4u);
  ASSERT_FALSE(compile("^abc", dfa));
  EXPECT_EQ(dfa.states(), 5u) << "start, a, ab, abc, and the dead state";
  EXPECT_EQ(dfa.flags[0] & stapx::regex::kDead, 0);
}

struct Bad {
  const char* pattern;
  size_t pos;
  const char* message;
};

TEST(Regex, Errors) {
  for (const Bad& b : std::initializer_list<Bad>{
           {"(", 0, "expected ), found end of regex"},
           {"a(b", 1, "expected ), found end of regex"},
           {"[a", 1, "unclosed character class"},  // (stap: the last byte)
           {"[^", 1, "unclosed character class"},
           {"*a", 0, "unexpected '*'"},
           {"a|+b", 2, "unexpected '+'"},
           {"(?a)", 1, "unexpected '?'"},
           {"{", 0, "unexpected '{'"},
           {"a{3", 3, "unexpected end of regex"},
           {"a{", 2, "expected number"},
           {"a{2,", 4, "unexpected end of regex"},
           {"a{,3}", 2, "expected number"},
           {"a{1,2,3}", 5, "expected }, found ,"},
           {"a{3,2}", 1, "invalid repetition {3,2}: the minimum exceeds the maximum"},
           {"a{99999}", 7, "99999 is too large (at most 1000)"},
           {"a\\", 2, "unexpected end of regex"},
           {"[[:foo:]]", Error::kNoPos, "unknown character class 'foo'"},  // (stap: no position)
           {"[[:alpha:]", 9, "unclosed character class"},
           {"[[:alpha", 1, "unclosed character class '[:alpha'"},
           {"[b-a]", 1, "inverted character range b-a"},
           {"[a-[:digit:]]", 1, "character class used as a range endpoint"},
           {"^*", 1, "postfix closure '*' applied to anchoring operator"},
           {"x$+", 2, "postfix closure '+' applied to anchoring operator"},
       }) {
    Dfa dfa;
    auto err = compile(b.pattern, dfa);
    ASSERT_TRUE(err) << b.pattern;
    EXPECT_EQ(err->message, b.message) << b.pattern;
    EXPECT_EQ(err->pos, b.pos) << b.pattern;
  }
}

TEST(Regex, AutomatonSizeIsBounded) {
  Dfa dfa;
  // "an a 13 bytes from the end" needs 2^13 states as a DFA.
  auto err = compile("a.............", dfa);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "regex too complex (its automaton would exceed 5000 states)");
  err = compile("(a{1000}){1000}", dfa);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "regex too complex (its automaton would exceed 100000 NFA states)");
  err = compile("(a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z){900}", dfa);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "regex too complex (its automaton takes too long to build)");
  EXPECT_FALSE(compile("a...........", dfa)) << "2^11 states fit";
  EXPECT_TRUE(stapx::regex::match(dfa, "xxa0123456789ab"));
  EXPECT_FALSE(stapx::regex::match(dfa, "xxa0123456789"));
}


// Sub-matches (matched(), ngroups()): the C++ simulation and the kernel C
// one (runtime-c/regex.c) against fixed expectations. Each group's text,
// "-" for a group that took no part; empty for no match.
struct SubCase {
  const char* pattern;
  const char* subject;
  std::vector<std::string> groups;  // group 0 first
};

std::vector<std::string> texts(const std::vector<int>& slots, std::string_view base) {
  std::vector<std::string> out;
  for (size_t g = 0; g + 1 < slots.size(); g += 2)
    out.push_back(slots[g] < 0 ? "-" : std::string(base.substr(slots[g], slots[g + 1] - slots[g])));
  return out;
}

void expect_submatch(const SubCase& c) {
  stapx::regex::Prog prog;
  auto err = stapx::regex::compile_submatch(c.pattern, prog);
  ASSERT_FALSE(err) << c.pattern << ": " << err->message;
  const std::string where = std::string("'") + c.subject + "' =~ '" + c.pattern + "'";
  EXPECT_EQ(texts(stapx::regex::submatch(prog, c.subject, 127), c.subject), c.groups) << where;
  std::vector<uint16_t> insts;
  for (const auto& in : prog.insts) insts.insert(insts.end(), {in.op, in.arg, in.x, in.y});
  std::vector<unsigned char> sets;
  for (const auto& s : prog.sets) sets.insert(sets.end(), s.begin(), s.end());
  std::vector<int> slots(prog.nslots);
  char str[128];
  int found = shim_regex_submatch(insts.data(), static_cast<unsigned>(prog.insts.size()), sets.data(),
                                  static_cast<unsigned>(prog.nslots), c.subject, slots.data(), str);
  EXPECT_EQ(found ? texts(slots, str) : std::vector<std::string>{}, c.groups) << "runtime: " << where;
  // The DFA agrees on whether there is a match at all.
  Dfa dfa;
  ASSERT_FALSE(compile(c.pattern, dfa));
  EXPECT_EQ(stapx::regex::match(dfa, c.subject, 127), !c.groups.empty()) << where;
}

TEST(RegexSubmatch, StapsExampleAndBasics) {
  for (const SubCase& c : std::initializer_list<SubCase>{
           {"str(ing)", "an example string", {"string", "ing"}},
           {"str(ing)", "an example strin", {}},
           {"abc", "xxabcxx", {"abc"}},
           {"", "abc", {""}},
           {"(a)(b)(c)", "abc", {"abc", "a", "b", "c"}},
           {"((a)(b))c", "xabc", {"abc", "ab", "a", "b"}},
           {"a|(b)", "a", {"a", "-"}},
           {"a|(b)", "b", {"b", "b"}},
           {"x()y", "xy", {"xy", ""}},
           {"([0-9]+)\\.([0-9]+)", "version 12.345 beta", {"12.345", "12", "345"}},
           {"^([^:]*):([^:]*)$", "key:value", {"key:value", "key", "value"}},
           {"^([^:]*):([^:]*)$", "key:va:lue", {}},
       })
    expect_submatch(c);
}

TEST(RegexSubmatch, LeftmostLongest) {
  for (const SubCase& c : std::initializer_list<SubCase>{
           {"a*", "aaa", {"aaa"}},
           {"a*", "baaa", {""}},  // leftmost: the empty match at 0
           {"a+", "baaab", {"aaa"}},
           {"abcd|b", "abcd", {"abcd"}},  // a later start matches first, the earlier one wins
           {"b|abcd", "abcd", {"abcd"}},
           {"(a|ab)(c|bcd)", "abcd", {"abcd", "a", "bcd"}},
           {"(a|ab)(bc|c)?", "abc", {"abc", "a", "bc"}},  // both parse abc: the first alternative
           {"(a*)(a*)", "aaa", {"aaa", "aaa", ""}},        // repetitions take what they can
       })
    expect_submatch(c);
}

TEST(RegexSubmatch, RepeatsAndAnchors) {
  for (const SubCase& c : std::initializer_list<SubCase>{
           {"(ab)+", "xababab", {"ababab", "ab"}},       // the last round
           {"(a|b)*c", "abbac", {"abbac", "a"}},
           {"^(a{2,3})(a*)$", "aaaaa", {"aaaaa", "aaa", "aa"}},
           {"(x)?y", "y", {"y", "-"}},
           {"(x){0}y", "y", {"y", "-"}},
           {"(^a|b)c", "xbc", {"bc", "b"}},
           {"(^a|b)c", "ac", {"ac", "a"}},
           {"(c$|cd)", "abcd", {"cd", "cd"}},
           {"(c$|cd)", "abc", {"c", "c"}},
           {"([a-z]+)@([a-z]+)\\.com$", "mail bob@example.com", {"bob@example.com", "bob", "example"}},
           {"(((a)))", "a", {"a", "a", "a", "a"}},
       })
    expect_submatch(c);
}

// The runtime looks at MAXSTRINGLEN - 1 bytes at most (127 in the shim).
TEST(RegexSubmatch, StopsAtMaxStringLen) {
  std::string s(126, 'a');
  s += "xyz";
  expect_submatch({"(a*)(x?)(y?)$", s.c_str(), {std::string(126, 'a') + "x", std::string(126, 'a'), "x", ""}});
}

TEST(RegexSubmatch, ProgramSizeIsBounded) {
  stapx::regex::Prog prog;
  EXPECT_FALSE(stapx::regex::compile_submatch("(a{1000})", prog));
  EXPECT_EQ(prog.nslots, 4);
  auto err = stapx::regex::compile_submatch("(a{1000}){5}", prog);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "regex too complex for matched() (more than 16384 sub-match states)");
  err = stapx::regex::compile_submatch("(", prog);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "expected ), found end of regex");
}

}  // namespace
