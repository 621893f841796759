#include "translator/probes/source_spec.h"

#include "support/glob.h"


namespace stapx {

namespace {

// A line number: 1..999999999.
bool number(const std::string& s, int& out) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::stoi(s);
  return out > 0;
}

}  // namespace

SourceSpec SourceSpec::parse(const std::string& text) {
  SourceSpec spec;
  size_t at = text.find('@');
  spec.function = text.substr(0, at);
  if (spec.function.empty()) return spec;
  if (at == std::string::npos) {
    spec.valid = true;
    return spec;
  }
  std::string rest = text.substr(at + 1);
  size_t colon = rest.rfind(':'), plus = rest.rfind('+');
  if (colon != std::string::npos) {
    std::string lines = rest.substr(colon + 1);
    rest.resize(colon);
    spec.lines = Lines::Range;
    if (lines != "*") {
      size_t dash = lines.find('-');
      if (!number(lines.substr(0, dash), spec.lo)) return spec;
      spec.hi = spec.lo;
      if (dash != std::string::npos && (!number(lines.substr(dash + 1), spec.hi) || spec.hi < spec.lo)) return spec;
    }
  } else if (plus != std::string::npos) {
    if (!number(rest.substr(plus + 1), spec.lo)) return spec;
    rest.resize(plus);
    spec.lines = Lines::Relative;
  }
  spec.file = rest;
  spec.valid = !spec.file.empty();
  return spec;
}

bool SourceSpec::keeps(const std::string& path, int line, int decl_line) const {
  if (!file.empty() && !file_matches(file, path)) return false;
  switch (lines) {
    case Lines::Any: return true;
    case Lines::Range: return lo <= line && line <= hi;
    case Lines::Relative: return line == decl_line + lo;
  }
  return false;
}

bool file_matches(const std::string& pattern, const std::string& path) {
  return support::glob_match(pattern, path) || support::glob_match("*/" + pattern, path);
}

}  // namespace stapx
