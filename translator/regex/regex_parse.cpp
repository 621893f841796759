// The POSIX extended regular expression grammar (egrep's, without
// back-references), parsed by recursive descent into regex::Node. Errors
// carry the pattern offset they were found at.
#include <fmt/format.h>

#include <cctype>

#include "translator/regex/regex.h"

namespace stapx::regex {

namespace {

// Parenthesised groups nest at most this deep (the parser recurses).
constexpr int kMaxDepth = 200;

struct ParseError {
  Error error;
};

std::vector<bool> no_bytes() { return std::vector<bool>(256, false); }

Node bytes_node(std::vector<bool> set) {
  Node n;
  n.kind = Node::Bytes;
  n.bytes = std::move(set);
  return n;
}

// The POSIX character classes, in the C locale.
bool in_class(std::string_view name, int c, bool& known) {
  known = true;
  if (name == "alpha") return std::isalpha(c);
  if (name == "digit") return std::isdigit(c);
  if (name == "alnum") return std::isalnum(c);
  if (name == "upper") return std::isupper(c);
  if (name == "lower") return std::islower(c);
  if (name == "space") return std::isspace(c);
  if (name == "blank") return c == ' ' || c == '\t';
  if (name == "punct") return std::ispunct(c);
  if (name == "print") return std::isprint(c);
  if (name == "graph") return std::isgraph(c);
  if (name == "cntrl") return std::iscntrl(c);
  if (name == "xdigit") return std::isxdigit(c);
  known = false;
  return false;
}

// The byte an escape `\c` stands for: C's control escapes, else c itself.
unsigned char escaped(unsigned char c) {
  switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    case 'a': return '\a';
    default: return c;
  }
}

class Parser {
 public:
  explicit Parser(std::string_view re) : re_(re) {}

  Node run() {
    Node n = alternation(0);
    if (pos_ < re_.size()) fail(pos_, fmt::format("unexpected '{}'", re_[pos_]));
    return n;
  }
  int groups() const { return groups_; }

 private:
  [[noreturn]] void fail(size_t pos, std::string message) { throw ParseError{{pos, std::move(message)}}; }
  bool at_end() const { return pos_ >= re_.size(); }
  char peek() const { return re_[pos_]; }

  // alternation := branch ('|' branch)*
  Node alternation(int depth) {
    Node alt;
    alt.kind = Node::Alt;
    alt.kids.push_back(branch(depth));
    while (!at_end() && peek() == '|') {
      ++pos_;
      alt.kids.push_back(branch(depth));
    }
    return alt.kids.size() == 1 ? std::move(alt.kids[0]) : std::move(alt);
  }

  // branch := piece*   (an empty branch matches the empty string)
  Node branch(int depth) {
    Node cat;
    cat.kind = Node::Concat;
    while (!at_end() && peek() != '|' && !(peek() == ')' && depth > 0)) cat.kids.push_back(piece(depth));
    if (cat.kids.empty()) return Node{};
    return cat.kids.size() == 1 ? std::move(cat.kids[0]) : std::move(cat);
  }

  // piece := atom ('*' | '+' | '?' | '{' m [',' [n]] '}')*
  Node piece(int depth) {
    char c = peek();
    if (c == '*' || c == '+' || c == '?' || c == '{') fail(pos_, fmt::format("unexpected '{}'", c));
    Node atom_node = atom(depth);
    const Node* bare = &atom_node;  // a group's contents ("(^)*" is as "^*")
    while (bare->kind == Node::Group) bare = &bare->kids[0];
    bool anchor = bare->kind == Node::Bol || bare->kind == Node::Eol;
    while (!at_end()) {
      c = peek();
      int min, max;
      size_t op = pos_;
      if (c == '*') {
        min = 0, max = -1, ++pos_;
      } else if (c == '+') {
        min = 1, max = -1, ++pos_;
      } else if (c == '?') {
        min = 0, max = 1, ++pos_;
      } else if (c == '{') {
        ++pos_;
        bounds(min, max);
      } else {
        break;
      }
      if (anchor) fail(op, fmt::format("postfix closure '{}' applied to anchoring operator", c));
      Node rep;
      rep.kind = Node::Repeat;
      rep.min = min;
      rep.max = max;
      rep.kids.push_back(std::move(atom_node));
      atom_node = std::move(rep);
    }
    return atom_node;
  }

  int number() {
    if (at_end() || !std::isdigit(static_cast<unsigned char>(peek()))) fail(pos_, "expected number");
    long v = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) {
      v = v * 10 + (peek() - '0');
      if (v > 99999999) v = 99999999;
      ++pos_;
    }
    if (v > kMaxRepeat) fail(pos_, fmt::format("{} is too large (at most {})", v, kMaxRepeat));
    return static_cast<int>(v);
  }

  // '{' already consumed: m [',' [n]] '}'
  void bounds(int& min, int& max) {
    size_t open = pos_ - 1;
    min = number();
    max = min;
    if (!at_end() && peek() == ',') {
      ++pos_;
      max = -1;
      if (!at_end() && peek() != '}') max = number();
    }
    if (at_end()) fail(pos_, "unexpected end of regex");
    if (peek() != '}') fail(pos_, fmt::format("expected }}, found {}", peek()));
    ++pos_;
    if (max >= 0 && max < min)
      fail(open, fmt::format("invalid repetition {}: the minimum exceeds the maximum", re_.substr(open, pos_ - open)));
  }

  // atom := '(' alternation ')' | '[' bracket ']' | '.' | '^' | '$' | '\' byte | byte
  Node atom(int depth) {
    size_t start = pos_;
    unsigned char c = static_cast<unsigned char>(re_[pos_++]);
    switch (c) {
      case '(': {
        if (depth >= kMaxDepth) fail(start, "groups nested too deeply");
        Node group;
        group.kind = Node::Group;
        group.group = ++groups_;  // numbered by their '(', as POSIX does
        group.kids.push_back(at_end() || peek() != ')' ? alternation(depth + 1) : Node{});
        if (at_end()) fail(start, "expected ), found end of regex");
        ++pos_;  // ')'
        return group;
      }
      case '[': return bracket(start);
      case '.': {
        std::vector<bool> set(256, true);
        set[0] = false;
        return bytes_node(std::move(set));
      }
      case '^': {
        Node n;
        n.kind = Node::Bol;
        return n;
      }
      case '$': {
        Node n;
        n.kind = Node::Eol;
        return n;
      }
      case '\\':
        if (at_end()) fail(pos_, "unexpected end of regex");
        c = escaped(static_cast<unsigned char>(re_[pos_++]));
        break;
      default: break;
    }
    std::vector<bool> set = no_bytes();
    set[c] = true;
    return bytes_node(std::move(set));
  }

  // One element of a bracket expression: a byte, or (returned through
  // `set`) a whole [:class:].
  int bracket_byte(size_t open, std::vector<bool>& set) {
    if (at_end()) fail(re_.size() - 1, "unclosed character class");
    size_t start = pos_;
    unsigned char c = static_cast<unsigned char>(re_[pos_++]);
    if (c == '\\') {
      if (at_end()) fail(re_.size() - 1, "unclosed character class");
      return escaped(static_cast<unsigned char>(re_[pos_++]));
    }
    if (c == '[' && !at_end() && (peek() == ':' || peek() == '.' || peek() == '=')) {
      char kind = peek();
      size_t name_start = pos_ + 1;
      size_t close = re_.find(std::string{kind, ']'}, name_start);
      if (close == std::string_view::npos)
        fail(start, fmt::format("unclosed character class '{}'", re_.substr(start)));
      std::string_view name = re_.substr(name_start, close - name_start);
      pos_ = close + 2;
      if (kind == ':') {
        bool known = false;
        for (int b = 1; b < 256; ++b)
          if (in_class(name, b, known)) set[b] = true;
        in_class(name, 'a', known);
        if (!known) fail(Error::kNoPos, fmt::format("unknown character class '{}'", name));  // (stap: no position)
        return -1;
      }
      // [.c.] and [=c=]: in the C locale, single bytes only.
      if (name.size() != 1) fail(start, fmt::format("unsupported collating element '{}'", name));
      return static_cast<unsigned char>(name[0]);
    }
    return c;
  }

  // '[' already consumed: ['^'] [']'] element* ']'
  Node bracket(size_t open) {
    std::vector<bool> set = no_bytes();
    bool negate = !at_end() && peek() == '^';
    if (negate) ++pos_;
    bool first = true;
    for (;;) {
      if (at_end()) fail(re_.size() - 1, "unclosed character class");
      if (peek() == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      size_t elem = pos_;
      int lo;
      if (peek() == ']') {  // a leading ']' is literal
        ++pos_;
        lo = ']';
      } else {
        lo = bracket_byte(open, set);
      }
      if (lo < 0) continue;
      // A range lo-hi, unless the '-' is the last thing before ']'.
      if (pos_ + 1 < re_.size() && peek() == '-' && re_[pos_ + 1] != ']') {
        ++pos_;
        int hi = bracket_byte(open, set);
        if (hi < 0) fail(elem, "character class used as a range endpoint");
        if (hi < lo)
          fail(elem, fmt::format("inverted character range {}", re_.substr(elem, pos_ - elem)));
        for (int b = lo; b <= hi; ++b) set[b] = true;
      } else {
        set[lo] = true;
      }
    }
    if (negate)
      for (int b = 0; b < 256; ++b) set[b] = !set[b];
    set[0] = false;  // strings end at NUL
    return bytes_node(std::move(set));
  }

  std::string_view re_;
  size_t pos_ = 0;
  int groups_ = 0;
};

}  // namespace

std::optional<Error> parse(std::string_view pattern, Node& out, int* groups) {
  try {
    Parser parser(pattern);
    out = parser.run();
    if (groups) *groups = parser.groups();
  } catch (const ParseError& e) {
    return e.error;
  }
  return std::nullopt;
}

}  // namespace stapx::regex
