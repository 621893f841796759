#include "translator/probes/source_spec.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <set>

#include "frontend/diagnostics.h"
#include "support/glob.h"
#include "translator/debuginfo/debuginfo.h"

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

std::function<bool(const std::string& file, int line)> function_file_filter(const SourceSpec& spec) {
  if (spec.file.empty()) return {};
  return [spec](const std::string& file, int line) { return spec.keeps(file, line, line); };
}

bool file_matches(const std::string& pattern, const std::string& path) {
  return support::glob_match(pattern, path) || support::glob_match("*/" + pattern, path);
}

std::vector<debug::ProbeSite> source_statement_sites(debug::DebugInfo& di, const SourceSpec& spec, bool nearest) {
  debug::SiteFilter filter;
  if (!spec.file.empty()) filter.file = [&](const std::string& file, int) { return file_matches(spec.file, file); };
  const bool every_line = spec.lines == SourceSpec::Lines::Range && spec.hi == INT_MAX;
  if (!nearest || every_line) {
    filter.line = [&](const std::string& file, int line, int decl_line) { return spec.keeps(file, line, decl_line); };
    return di.statement_sites(spec.function, filter);
  }
  // The lines with code, by function (its declaration line), then for
  // each line named the nearest of its function's.
  std::map<int, std::set<int>> code;
  filter.line = [&](const std::string& file, int line, int decl_line) {
    if (spec.file.empty() || file_matches(spec.file, file)) code[decl_line].insert(line);
    return false;
  };
  di.statement_sites(spec.function, filter);
  std::map<int, std::set<int>> chosen;
  for (const auto& [decl, lines] : code) {
    int lo = spec.lines == SourceSpec::Lines::Relative ? decl + spec.lo : spec.lo;
    int hi = spec.lines == SourceSpec::Lines::Relative ? lo : spec.hi;
    for (int want = lo; want <= hi && want - lo < 100000; ++want) {
      auto after = lines.lower_bound(want);
      int best = after != lines.end() ? *after : *std::prev(after);
      if (after != lines.begin() && after != lines.end() && want - *std::prev(after) < *after - want)
        best = *std::prev(after);
      chosen[decl].insert(best);
    }
  }
  filter.line = [&](const std::string& file, int line, int decl_line) {
    auto it = chosen.find(decl_line);
    return (spec.file.empty() || file_matches(spec.file, file)) && it != chosen.end() && it->second.count(line);
  };
  return di.statement_sites(spec.function, filter);
}

bool address_statement_site(debug::DebugInfo& di, uint64_t addr, bool row_start, DiagSink& diags,
                            std::optional<debug::ProbeSite>& site) {
  site = di.address_site(addr);
  if (!site || !row_start || !site->row_addr || site->row_addr == addr) return true;
  diags.report_early(DiagId::SemNotStatementStart, SourceLoc{}, addr, site->row_addr);
  site.reset();
  return false;
}

std::optional<std::pair<std::string, std::string>> missing_line(debug::DebugInfo& di, const SourceSpec& spec) {
  if (spec.lines == SourceSpec::Lines::Any || (spec.lines == SourceSpec::Lines::Range && spec.lo != spec.hi))
    return std::nullopt;
  debug::SiteFilter filter;
  if (!spec.file.empty()) filter.file = [&](const std::string& file, int) { return file_matches(spec.file, file); };
  std::string where;
  int below = 0, above = 0;
  filter.line = [&](const std::string& file, int line, int decl_line) {
    if (!spec.file.empty() && !file_matches(spec.file, file)) return false;
    int want = spec.lines == SourceSpec::Lines::Relative ? decl_line + spec.lo : spec.lo;
    if (where.empty()) where = fmt::format("{}:{}", file, want);
    if (line < want && line > below) below = line;
    if (line > want && (!above || line < above)) above = line;
    return false;
  };
  di.statement_sites(spec.function, filter);
  if (where.empty() || (!below && !above)) return std::nullopt;
  std::string options = below && above ? fmt::format(":{} or :{}", below, above) : fmt::format(":{}", below ? below : above);
  return std::make_pair(where, options);
}

}  // namespace stapx
