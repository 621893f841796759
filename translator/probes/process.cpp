// process("PATH").function("NAME") and .function("NAME").return (with
// .call, which is the same for functions found in the symbol table): a
// uprobe on PATH, an executable or shared library, at each matching
// function's entry; a uretprobe for .return (runtime-c/probes/uprobes.c).
// PATH without a '/' is looked up in $PATH, as stap does, and shown
// absolute. With DWARF in the file, NAME is "func[@file[:line]]" as for
// kernel.function, the functions and their inlined copies are the DWARF's,
// handlers read $vars, and pp() names the source; without it, functions
// come from the ELF symbol table, so a stripped program is probed too
// (by name: no $vars).
#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>

#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_family.h"
#include "translator/probes/source_spec.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

namespace {

enum Suffix { kEntry, kCall, kReturn, kStatement, kStatementAddress };

class ProcessFamily : public UprobeTableFamily {
 public:
  const char* name() const override { return "process"; }
  std::vector<PointPattern> patterns() const override {
    // (Without a PATH: the -c command's program.)
    return {{"process(string).function(string)", kEntry},
            {"process(string).function(string).call", kCall},
            {"process(string).function(string).return", kReturn},
            {"process(string).statement(string)", kStatement},
            {"process(string).statement(number)", kStatementAddress},
            {"process.function(string)", kEntry},
            {"process.function(string).call", kCall},
            {"process.function(string).return", kReturn},
            {"process.statement(string)", kStatement},
            {"process.statement(number)", kStatementAddress}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    std::vector<const debug::UserBinary*> bins = process_binaries(m, ctx, diags);
    if (bins.empty()) return;
    size_t before = out.size();
    for (const debug::UserBinary* bin : bins)
      if (!(m.tag >= kStatement ? statements_in(m, base, *bin, out, diags) : expand_in(m, base, *bin, out, diags)))
        return;
    if (out.size() == before && !m.point->optional) diags.report(DiagId::SemNoMatch, m.arg_loc(1));
  }

 private:
  // process(...).statement("func@file:line") (lines as kernel.statement
  // takes them) or .statement(ADDRESS), in one file: through its DWARF;
  // an address without DWARF is probed bare. False after reporting.
  bool statements_in(const PointMatch& m, const ProbeSpec& base, const debug::UserBinary& bin,
                     std::vector<ProbeSpec>& out, DiagSink& diags) const {
    debug::DebugInfo* di = dwarf(bin.path());
    auto add = [&](uint64_t addr, const std::string& text, std::optional<debug::ProbeSite> site) {
      uint64_t offset = 0;
      if (!bin.file_offset(addr, offset)) return;
      ProbeSpec spec = base;
      spec.family = this;
      spec.pp = fmt::format("process(\"{}\").statement({})", bin.path(), text);
      spec.data = uprobe_at(bin, offset);
      if (site) {
        spec.ppfunc = spec.probefunc = site->function;
        site->user = true;
        site->relocated = bin.shared();
        spec.site = std::make_shared<const debug::ProbeSite>(std::move(*site));
      }
      out.push_back(std::move(spec));
    };
    if (m.tag == kStatementAddress) {
      uint64_t addr = static_cast<uint64_t>(m.number_arg(1));
      add(addr, fmt::format("0x{:x}", addr), di ? di->address_site(addr) : std::nullopt);
      return true;
    }
    SourceSpec where = SourceSpec::parse(m.string_arg(1));
    if (!where.valid || !where.has_line()) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), "process(...).statement", "\"function@file:line\" (or :N-M, :*, +N)");
      return false;
    }
    if (!di || !di->has_lines()) return true;  // (no match)
    debug::SiteFilter filter;
    if (!where.file.empty()) filter.file = [&](const std::string& file, int) { return file_matches(where.file, file); };
    filter.line = [&](const std::string& file, int line, int decl_line) { return where.keeps(file, line, decl_line); };
    for (debug::ProbeSite& site : di->statement_sites(where.function, filter)) {
      std::string text = fmt::format("\"{}@{}:{}\"", site.function, site.decl_file, site.decl_line);
      add(site.addr, text, std::move(site));
    }
    return true;
  }

  // The point's functions in one file; false after reporting a bad pattern.
  bool expand_in(const PointMatch& m, const ProbeSpec& base, const debug::UserBinary& file,
                 std::vector<ProbeSpec>& out, DiagSink& diags) const {
    const debug::UserBinary* bin = &file;
    const std::string& path = bin->path();
    const std::string pattern = m.string_arg(1);
    const char* suffix = m.tag == kReturn ? ".return" : m.tag == kCall ? ".call" : "";
    size_t before = out.size();
    auto add = [&](uint64_t offset, const std::string& function, std::string pp) {
      ProbeSpec spec = base;
      spec.family = this;
      spec.is_return = m.tag == kReturn;
      spec.ppfunc = spec.probefunc = function;
      spec.pp = fmt::format("process(\"{}\").function(\"{}\"){}", path, pp, suffix);
      spec.data = uprobe_at(*bin, offset);
      out.push_back(std::move(spec));
      return &out.back();
    };
    debug::DebugInfo* di = dwarf(path);
    if (di) {
      SourceSpec where = SourceSpec::parse(pattern);
      if (!where.valid || (where.has_line() && (where.lines != SourceSpec::Lines::Range || where.lo != where.hi))) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(1), "process(...).function", "\"function[@file[:line]]\"");
        return false;
      }
      debug::SiteFilter filter;
      if (!where.file.empty())
        filter.file = [&](const std::string& file, int line) { return where.keeps(file, line, line); };
      // (.call and .return: out-of-line functions only, as stap.)
      for (debug::ProbeSite& site : di->function_sites(where.function, m.tag == kEntry, filter)) {
        uint64_t offset = 0;
        if (!bin->file_offset(site.addr, offset)) continue;
        site.user = true;
        site.relocated = bin->shared();
        std::string pp = site.decl_file.empty() ? site.function
                                                : fmt::format("{}@{}:{}", site.function, site.decl_file, site.decl_line);
        ProbeSpec* spec = add(offset, site.function, pp);
        spec->site = std::make_shared<const debug::ProbeSite>(std::move(site));
      }
    }
    // And, as stap lists them, the symbol table's functions that the DWARF
    // does not describe (all of them without DWARF), by name: no $vars.
    std::set<std::string> described;
    for (size_t i = before; i < out.size(); ++i) described.insert(out[i].ppfunc);
    for (const debug::UserFunction& f : bin->functions(pattern))
      if (!described.count(f.name)) add(f.offset, f.name, f.name);
    return true;
  }

  const char* table() const override { return "_stpx_uprobes"; }

  // The file's DWARF, if it has any, read once (kept: sites point into it).
  debug::DebugInfo* dwarf(const std::string& path) const {
    auto [it, added] = dwarf_.try_emplace(path);
    if (added) {
      std::string error;
      it->second = debug::open_dwarf(path, error);
    }
    return it->second.get();
  }
  mutable std::map<std::string, std::unique_ptr<debug::DebugInfo>> dwarf_;
};

}  // namespace

const ProbeFamily& process_family() {
  static const ProcessFamily family;
  return family;
}

}  // namespace stapx
