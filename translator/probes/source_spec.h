// The "function@file:line" argument of kernel.function and
// kernel.statement, split into its parts.
#pragma once

#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stapx {

struct SourceSpec {
  enum class Lines { Any, Range, Relative };
  std::string function;  // fnmatch pattern; never empty when valid
  std::string file;      // fnmatch pattern; empty: any file
  Lines lines = Lines::Any;
  int lo = 0, hi = INT_MAX;  // Range: lo..hi ("N", "N-M", "*"); Relative: lo lines after the declaration
  bool valid = false;

  // "name", "name@file", "name@file:N", "name@file:N-M", "name@file:*",
  // "name@file+N"; `valid` false when malformed.
  static SourceSpec parse(const std::string& text);
  bool has_line() const { return lines != Lines::Any; }
  // Whether a source line's (file, line) is one this spec names; `decl_line`
  // is the enclosing function's, for the relative form.
  bool keeps(const std::string& path, int line, int decl_line) const;
};

class DiagSink;
namespace debug {
class DebugInfo;
struct ProbeSite;
}  // namespace debug

// function_sites()'s file filter for "function@file": a function declared
// in a file `spec` names; empty (any file) when it names none.
std::function<bool(const std::string& file, int line)> function_file_filter(const SourceSpec& spec);

// The statement sites `spec` names in `di` (a line it names, of its
// file); with `nearest` (.statement(...).nearest), for each line it names,
// the line of the same function nearest it that has code (the later of
// two as near), as stap places them.
std::vector<debug::ProbeSite> source_statement_sites(debug::DebugInfo& di, const SourceSpec& spec, bool nearest);

// When `spec` names one line of a function and the line has no code: the
// line as "FILE:N" (the file as the DWARF names it) and the lines nearest
// it that have, ":A or :B", for stap's "no line records for ... (try
// ...)". Nothing when it names several lines, or its function has none.
std::optional<std::pair<std::string, std::string>> missing_line(debug::DebugInfo& di, const SourceSpec& spec);

// The site at link-time address `addr` into `site` (.statement(ADDRESS),
// kernel or process; nothing when no function holds the address). With
// `row_start`, false, after stap's "address 0x... does not match the
// beginning of a statement (try 0x...)", unless a line-table row begins
// there.
bool address_statement_site(debug::DebugInfo& di, uint64_t addr, bool row_start, DiagSink& diags,
                            std::optional<debug::ProbeSite>& site);

// A source file pattern matches the path DWARF gives, or its tail after a
// '/' ("read_write.c" and "fs/*.c" match "fs/read_write.c").
bool file_matches(const std::string& pattern, const std::string& path);

}  // namespace stapx
