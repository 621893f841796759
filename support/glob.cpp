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

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(CString(pattern).c_str(), CString(text).c_str(), 0) == 0;
}

bool glob_match(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace stapx::support
