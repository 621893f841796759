// What pass 2 asks of debug information: where a kernel.function point
// probes, which variables are visible there, where they live and what type
// they have. One interface, answered from DWARF (dwarf.cpp, libdw) or from
// BTF (btf.cpp) when there is no DWARF; a fixture-backed implementation
// serves unit tests. Nothing here emits C.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "translator/debuginfo/location.h"
#include "translator/debuginfo/types.h"

namespace stapx::debug {

struct Variable {
  std::string name;
  const DType* type = nullptr;
  Location loc;           // at the site's address
  bool is_param = false;
};

// One address a kernel.function point probes.
struct ProbeSite {
  std::string function;        // the function's name in the source
  std::string symbol;          // the ELF symbol the probe is attached to
  uint64_t symbol_offset = 0;  // address - symbol's address
  uint64_t addr = 0;           // link-time address
  // The symbol to register the kprobe by, and the address's offset from
  // it, when `symbol`'s name is not unique in the file (static functions
  // of one name in several units): the kernel resolves a name to its
  // first symbol. Empty: `symbol` itself.
  std::string anchor;
  uint64_t anchor_offset = 0;
  std::string decl_file;       // as DWARF names it
  int decl_line = 0;
  bool inlined = false;        // an inlined instance
  std::string label;           // label_sites(): the label's name
  // callee_sites(): the function the callee is inlined into, and where
  // that one is declared (pp() names both).
  std::string caller, caller_file;
  int caller_line = 0;
  bool at_entry = true;        // the function's entry (parameters in their entry locations)
  // address_site(): where the line-table row holding `addr` begins (0:
  // no row), which stap requires a statement(ADDRESS) to be.
  uint64_t row_addr = 0;
  bool from_btf = false;       // described by BTF: parameters only, no source position
  std::string dwarf_hint;      // from BTF: how to install the DWARF that has the rest
  // In a user-space program (process(...)): memory is the task's user
  // memory; `relocated`: the program is position-independent (a library,
  // a PIE), so its link-time addresses are not its run-time ones.
  bool user = false;
  bool relocated = false;
  const DType* return_type = nullptr;  // null: void
  std::vector<Variable> params;
  std::vector<Variable> locals;
  // function_sites() with prologue searching: the same function where its
  // prologue ends (past_prologue()), for probes at the call; a .return
  // probe stays at the entry.
  std::shared_ptr<const ProbeSite> after_prologue;
};

// The site a probe at the function's call uses: past its prologue when
// function_sites() found one (the kprobe's anchor moved along).
inline ProbeSite past_prologue(const ProbeSite& site) {
  if (!site.after_prologue) return site;
  ProbeSite moved = *site.after_prologue;
  moved.anchor = site.anchor;
  moved.anchor_offset = site.anchor.empty() ? 0 : site.anchor_offset + (moved.addr - site.addr);
  return moved;
}

// Where a function probe goes (stap's --prologue-searching): at the entry
// (Never), past the prologue (Always), or past it where the unit was
// compiled without optimization, whose parameters are in stack slots the
// prologue fills (Auto).
enum class Prologue { Auto, Always, Never };

// One row of a file's line table: from `addr` on (up to the next row),
// the code is line `line` of source file `file` (an index into the
// files line_rows() lists); line 0: no line (past a sequence's end).
struct LineRow {
  uint64_t addr = 0;
  uint32_t file = 0;
  uint32_t line = 0;
};

// Narrows function_sites() before sites are built (building one reads its
// variables and types): `file(decl_file, decl_line)` says whether to keep a
// function. Empty: keep all.
struct SiteFilter {
  std::function<bool(const std::string& file, int line)> file;
  // statement_sites(): which source lines (file as the line table names
  // it; decl_line is the enclosing function's).
  std::function<bool(const std::string& file, int line, int decl_line)> line;
  // .exported: only functions with global linkage.
  bool exported_only = false;
  // function_sites(): false for inlined instances only (.inline).
  bool out_of_line = true;
  // function_sites(): whether to find where prologues end.
  Prologue prologue = Prologue::Auto;
};

class DebugInfo {
 public:
  virtual ~DebugInfo() = default;
  // "DWARF from /usr/lib/debug/boot/vmlinux-R": for -v.
  virtual std::string source() const = 0;
  // Sites of the functions whose names match the fnmatch(3) pattern: each
  // out-of-line function's entry (unless filter.out_of_line is false), plus
  // the entry of each inlined instance when `inlines` is set, one site per
  // function and address. Empty when nothing matches.
  virtual std::vector<ProbeSite> function_sites(const std::string& pattern, bool inlines,
                                                const SiteFilter& filter = {}) = 0;
  // Sites of source lines inside the functions function_sites() would
  // match: the lowest address of each line that `filter.line` keeps, with
  // the variables in scope there. Empty without line information (BTF).
  virtual std::vector<ProbeSite> statement_sites(const std::string& pattern, const SiteFilter& filter) {
    (void)pattern, (void)filter;
    return {};
  }
  // Sites of the labels (DW_TAG_label, names matching the glob `label`)
  // in the out-of-line functions function_sites() would match, each with
  // `label` set and the variables in scope there (.label("L")). Empty
  // without DWARF.
  virtual std::vector<ProbeSite> label_sites(const std::string& pattern, const std::string& label,
                                             const SiteFilter& filter) {
    (void)pattern, (void)label, (void)filter;
    return {};
  }
  // .callee("CALLEE") / .callees(DEPTH): the functions inlined into the
  // out-of-line functions `pattern` names, directly (depth 1) or within
  // each other down to `depth`, whose names `callee` matches: one site
  // at each inlined copy's entry, `caller` set to the function it is
  // inlined into. (Calls of out-of-line functions are not callees here:
  // stap 4.8 lists none on the kernel's DWARF 5.) Empty without DWARF.
  virtual std::vector<ProbeSite> callee_sites(const std::string& pattern, const std::string& callee, int depth,
                                              const SiteFilter& filter) {
    (void)pattern, (void)callee, (void)depth, (void)filter;
    return {};
  }
  // The site at a link-time address inside a function (kernel.statement(ADDR)),
  // or nothing when no function holds it.
  virtual std::optional<ProbeSite> address_site(uint64_t addr) {
    (void)addr;
    return std::nullopt;
  }
  // A variable with static storage (@var("name@file")): a file-scope or
  // global variable of a compile unit whose source file `file_matches`
  // keeps (all units when it is empty), with a location. Nothing when no
  // unit defines it or the source has no such information (BTF).
  virtual std::optional<Variable> global_variable(const std::string& name,
                                                  const std::function<bool(const std::string&)>& file_matches) {
    (void)name, (void)file_matches;
    return std::nullopt;
  }
  // The whole line table of the file, by address, a row only where the
  // file or line changes; the source files' names into `files`. Empty
  // without DWARF.
  virtual std::vector<LineRow> line_rows(std::vector<std::string>& files) {
    (void)files;
    return {};
  }
  // Whether statement_sites() can answer (DWARF line tables).
  virtual bool has_lines() const { return false; }
  // A type by C name ("struct file", "task_struct", "unsigned int"), or null.
  virtual const DType* find_type(const std::string& name) = 0;
  // The link-time address of an ELF symbol (for run-time relocation).
  virtual std::optional<uint64_t> symbol_address(const std::string& name) = 0;
};

// Opens a vmlinux (or module) with DWARF; null with `error` set if it cannot.
std::unique_ptr<DebugInfo> open_dwarf(const std::string& path, std::string& error);

// Opens BTF: raw (/sys/kernel/btf/vmlinux) or an ELF file's .BTF section.
std::unique_ptr<DebugInfo> open_btf(const std::string& path, std::string& error);

// Opens a kernel module's split BTF (its .ko's .BTF section, the .ko
// compressed or not, or raw as in /sys/kernel/btf/MODULE) on top of the
// kernel's BTF at `base_path` (either form open_btf() takes).
std::unique_ptr<DebugInfo> open_module_btf(const std::string& path, const std::string& base_path,
                                           std::string& error);

}  // namespace stapx::debug
