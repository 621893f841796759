// Wildcard patterns, as stap reads them in probe points, tapset names,
// preprocessor conditions and -l/-L: fnmatch(3) without flags, so '*', '?'
// and '[...]' are wildcards and '\' quotes the next character.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace stapx::support {

// Whether `pattern` means anything but its own text: it holds a wildcard
// or a backslash (which quotes the next character, so "a\b" matches "ab").
bool is_glob(std::string_view pattern);

// The text every match of `pattern` begins with: the pattern up to its
// first wildcard or backslash. All of `pattern` when it is no glob.
std::string_view glob_prefix(std::string_view pattern);

// fnmatch(pattern, text, 0) == 0. The std::string form passes both as
// they are; the other copies them to be NUL-terminated.
bool glob_match(std::string_view pattern, std::string_view text);
bool glob_match(const std::string& pattern, const std::string& text);

// A dotted name ("syscall.open.return") against a pattern whose '*', '?'
// and '[...]' stay within one dot-separated component and whose '**'
// spans components: "ope**" matches "open" and "open.return".
bool glob_match_components(std::string_view pattern, std::string_view dotted);

// A name pattern: a glob matched as one, else compared as text.
inline bool name_matches(std::string_view pattern, std::string_view text) {
  return is_glob(pattern) ? glob_match(pattern, text) : pattern == text;
}

// A name pattern tested against many names (a symbol table): whether it
// is a glob is decided once.
class NamePattern {
 public:
  explicit NamePattern(std::string pattern) : pattern_(std::move(pattern)), glob_(support::is_glob(pattern_)) {}
  bool matches(const std::string& text) const { return glob_ ? glob_match(pattern_, text) : pattern_ == text; }
  bool is_glob() const { return glob_; }

 private:
  std::string pattern_;
  bool glob_;
};

}  // namespace stapx::support
