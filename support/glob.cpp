// Wildcard patterns (glob.h).
#include "support/glob.h"

#include <fnmatch.h>

#include <cstring>
#include <string>

namespace stapx::support {

namespace {

constexpr const char* kSpecial = "*?[\\";

// A NUL-terminated copy of `s`, on the stack when it is short (names are).
class CString {
 public:
  explicit CString(std::string_view s) {
    if (s.size() < sizeof(small_)) {
      std::memcpy(small_, s.data(), s.size());
      small_[s.size()] = '\0';
      p_ = small_;
    } else {
      big_.assign(s);
      p_ = big_.c_str();
    }
  }
  const char* c_str() const { return p_; }

 private:
  char small_[256];
  std::string big_;
  const char* p_;
};

}  // namespace

bool is_glob(std::string_view pattern) { return pattern.find_first_of(kSpecial) != std::string_view::npos; }

std::string_view glob_prefix(std::string_view pattern) {
  return pattern.substr(0, pattern.find_first_of(kSpecial));
}

bool glob_match_components(std::string_view p, std::string_view t) {
  while (!p.empty()) {
    if (p.substr(0, 2) == "**") {
      p.remove_prefix(2);
      for (size_t i = 0; i <= t.size(); ++i)
        if (glob_match_components(p, t.substr(i))) return true;
      return false;
    }
    if (p[0] == '*') {
      p.remove_prefix(1);
      for (size_t i = 0; i <= t.size(); ++i) {
        if (glob_match_components(p, t.substr(i))) return true;
        if (i < t.size() && t[i] == '.') break;  // not past this component
      }
      return false;
    }
    if (t.empty()) return false;
    size_t used = 1;
    if (p[0] == '?') {
      if (t[0] == '.') return false;
    } else if (p[0] == '[') {
      // A bracket expression, as fnmatch reads it: one character.
      size_t close = p.find(']', p.size() > 2 && (p[1] == '!' || p[1] == '^') ? 3 : 2);
      if (close == std::string_view::npos) {
        if (t[0] != '[') return false;
      } else {
        used = close + 1;
        char one[2] = {t[0], '\0'};
        if (t[0] == '.' || fnmatch(std::string(p.substr(0, used)).c_str(), one, 0) != 0) return false;
      }
    } else if (p[0] == '\\' && p.size() > 1) {
      if (p[1] != t[0]) return false;
      used = 2;
    } else if (p[0] != t[0]) {
      return false;
    }
    p.remove_prefix(used);
    t.remove_prefix(1);
  }
  return t.empty();
}

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(CString(pattern).c_str(), CString(text).c_str(), 0) == 0;
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace stapx::support
