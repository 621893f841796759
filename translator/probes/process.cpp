// process("PATH").function("NAME") with .call, .return, .inline,
// .exported and .label("L"), and .statement("func@file:line") or
// .statement(ADDRESS), under any head process_heads() lists (PATH, PID,
// -c/-x's program; .library("LIB")): a uprobe on the file, an executable
// or shared library, at each matching function's entry (or line, label,
// address); a uretprobe for .return (runtime-c/probes/uprobes.c).
// PATH without a '/' is looked up in $PATH, as stap does, and shown
// absolute. With DWARF in the file, NAME is "func[@file[:line]]" as for
// kernel.function, the functions and their inlined copies are the DWARF's,
// handlers read $vars, and pp() names the source; without it, functions
// come from the ELF symbol table, so a stripped program is probed too
// (by name: no $vars). .function(ADDRESS) is the function whose code holds
// the address.
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

enum Suffix {
  kEntry,
  kCall,
  kReturn,
  kInline,
  kExported,
  kLabel,
  kCallee,
  kCalleeCall,
  kCalleeReturn,
  kCallees,
  kCalleesDepth,
  kStatement,
  kStatementNearest,
  kStatementAddress,
  kInsn,
  kInsnBlock,
  kStatementAbsolute
};

class ProcessFamily : public UprobeTableFamily {
 public:
  const char* name() const override { return "process"; }
  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out = shapes_.patterns();
    for (PointPattern& p : out)  // (matched to say why they cannot be; not listed as types)
      if (p.tag == kInsn || p.tag == kInsnBlock || p.tag == kStatementAbsolute || p.tag == kCalleeReturn)
        p.listed = false;
    return out;
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    if (m.tag == kStatementAbsolute) {  // (stap 4.8 refuses it in the same words)
      diags.report(DiagId::SemProcessAbsolute, m.component(m.size() - 1).loc);
      return;
    }
    if (m.tag == kCalleeReturn) {
      diags.report(DiagId::SemCalleeReturn, m.component(m.size() - 1).loc, "process(...).function(...)");
      return;
    }
    if (m.tag == kInsn || m.tag == kInsnBlock) {  // stap's, on utrace kernels only
      diags.report(DiagId::SemProcessInsn, m.component(process_rest(m)).loc, m.tag == kInsn ? "insn" : "insn.block");
      return;
    }
    std::vector<ProcessTarget> targets = process_targets(m, ctx, diags);
    if (targets.empty()) return;
    const size_t at = process_rest(m);
    size_t before = out.size();
    for (const ProcessTarget& t : targets)
      if (!(m.tag >= kStatement && m.tag <= kStatementAddress ? statements_in(m, at, base, t, out, diags) : expand_in(m, at, base, t, ctx.prologue, out, diags)))
        return;
    if (out.size() == before && !m.point->optional) diags.report(DiagId::SemNoMatch, m.arg_loc(at));
  }

 private:
  // process(...).statement("func@file:line") (lines as kernel.statement
  // takes them) or .statement(ADDRESS), in one file: through its DWARF;
  // an address without DWARF is probed bare. False after reporting.
  bool statements_in(const PointMatch& m, size_t at, const ProbeSpec& base, const ProcessTarget& t,
                     std::vector<ProbeSpec>& out, DiagSink& diags) const {
    const debug::UserBinary& bin = *t.file;
    debug::DebugInfo* di = dwarf(bin.path());
    auto add = [&](uint64_t addr, const std::string& text, std::optional<debug::ProbeSite> site) {
      uint64_t offset = 0;
      if (!bin.file_offset(addr, offset)) return;
      ProbeSpec spec = base;
      spec.family = this;
      spec.pp = fmt::format("process(\"{}\").statement({})", bin.path(), text);
      spec.data = uprobe_at(t, offset);
      if (site) {
        spec.probefunc = site->function;
        site->user = true;
        site->relocated = bin.shared();
        spec.site = std::make_shared<const debug::ProbeSite>(std::move(*site));
      }
      out.push_back(std::move(spec));
    };
    if (m.tag == kStatementAddress) {
      uint64_t addr = static_cast<uint64_t>(m.number_arg(at));
      std::optional<debug::ProbeSite> site;
      if (di && !address_statement_site(*di, addr, true, diags, site)) return true;  // (refused: no match)
      add(addr, fmt::format("0x{:x}", addr), std::move(site));
      return true;
    }
    SourceSpec where = SourceSpec::parse(m.string_arg(at));
    if (!where.valid || !where.has_line()) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(at), "process(...).statement", "\"function@file:line\" (or :N-M, :*, +N)");
      return false;
    }
    if (!di || !di->has_lines()) return true;  // (no match)
    std::vector<debug::ProbeSite> sites = source_statement_sites(*di, where, m.tag == kStatementNearest);
    if (sites.empty() && !m.point->optional)
      if (auto missing = missing_line(*di, where)) {  // (stap's words, with the lines around it)
        diags.report_early(DiagId::SemNoLineRecords, m.arg_loc(at), missing->first, missing->second);
        return false;
      }
    for (debug::ProbeSite& site : sites) {
      std::string text = fmt::format("\"{}@{}:{}\"", site.function, site.decl_file, site.decl_line);
      add(site.addr, text, std::move(site));
    }
    return true;
  }

  // The point's functions (or their labels) in one file; false after
  // reporting a bad pattern.
  bool expand_in(const PointMatch& m, size_t at, const ProbeSpec& base, const ProcessTarget& t,
                 debug::Prologue prologue, std::vector<ProbeSpec>& out, DiagSink& diags) const {
    const debug::UserBinary* bin = t.file;
    const std::string& path = bin->path();
    const Suffix suffix = static_cast<Suffix>(m.tag);
    const char* text = suffix == kReturn ? ".return"
                       : suffix == kCall     ? ".call"
                       : suffix == kInline   ? ".inline"
                       : suffix == kExported ? ".exported"
                                             : "";
    size_t before = out.size();
    auto add = [&](uint64_t offset, const std::string& function, const std::string& pp) {
      ProbeSpec spec = base;
      spec.family = this;
      spec.is_return = suffix == kReturn;
      spec.probefunc = function;
      spec.pp = fmt::format("process(\"{}\").function({}){}", path, pp, text);
      spec.data = uprobe_at(t, offset);
      out.push_back(std::move(spec));
      return &out.back();
    };
    auto quoted = [](const debug::ProbeSite& site) {
      return site.decl_file.empty() ? fmt::format("\"{}\"", site.function)
                                    : fmt::format("\"{}@{}:{}\"", site.function, site.decl_file, site.decl_line);
    };
    // .function(ADDRESS): the function whose code holds it, by its name
    // and address.
    std::string pattern;
    std::optional<std::pair<uint64_t, uint64_t>> range;  // [lo, hi) of that function
    if (m.component(at).arg->kind == ast::ExprKind::Number) {
      uint64_t addr = static_cast<uint64_t>(m.number_arg(at));
      for (const debug::UserFunction& f : bin->functions(bin->function_at(addr)))
        if (addr >= f.address && addr < f.address + std::max<uint64_t>(f.size, 1)) {
          pattern = f.name;
          range = {f.address, f.address + std::max<uint64_t>(f.size, 1)};
        }
      if (!range) return true;  // (no match)
    } else {
      pattern = m.string_arg(at);
    }
    debug::DebugInfo* di = dwarf(path);
    if (di) {
      SourceSpec where = SourceSpec::parse(pattern);
      if (!where.valid || (where.has_line() && (where.lines != SourceSpec::Lines::Range || where.lo != where.hi))) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(at), "process(...).function", "\"function[@file[:line]]\"");
        return false;
      }
      debug::SiteFilter filter;
      filter.file = function_file_filter(where);
      filter.exported_only = suffix == kExported;
      filter.out_of_line = suffix != kInline;
      filter.prologue = prologue;
      if (suffix == kCallee || suffix == kCalleeCall || suffix == kCallees || suffix == kCalleesDepth) {
        // The functions inlined into it (stap's callees), at their
        // copies' entries, named after their caller as stap names them.
        int depth = suffix == kCalleesDepth ? static_cast<int>(m.number_arg(at + 1)) : 1;
        if (depth < 1) {
          diags.report(DiagId::SemProbeArg, m.arg_loc(at + 1), "callees", "a depth of 1 or more");
          return false;
        }
        for (debug::ProbeSite& site :
             di->callee_sites(where.function, suffix == kCallees || suffix == kCalleesDepth ? "*" : m.string_arg(at + 1),
                              depth, filter)) {
          uint64_t offset = 0;
          if (!bin->file_offset(site.addr, offset)) continue;
          site.user = true;
          site.relocated = bin->shared();
          ProbeSpec spec = base;
          spec.family = this;
          spec.probefunc = site.function;
          // pp() names the callee as a function, pn() and -l caller and
          // callee, as stap's do.
          const char* call = suffix == kCalleeCall ? ".call" : "";
          spec.pn = fmt::format("process(\"{}\").function(\"{}@{}:{}\").callee(\"{}@{}:{}\"){}", path, site.caller,
                                site.caller_file, site.caller_line, site.function, site.decl_file, site.decl_line,
                                call);
          spec.pp = fmt::format("process(\"{}\").function(\"{}@{}:{}\"){}", path, site.function, site.decl_file,
                                site.decl_line, call);
          spec.data = uprobe_at(t, offset);
          spec.site = std::make_shared<const debug::ProbeSite>(std::move(site));
          out.push_back(std::move(spec));
        }
        return true;
      }
      std::vector<debug::ProbeSite> sites =
          suffix == kLabel ? di->label_sites(where.function, m.string_arg(at + 1), filter)
                           // (.call, .return and .exported: out-of-line functions only, as stap.)
                           : di->function_sites(where.function, suffix == kEntry || suffix == kInline, filter);
      for (debug::ProbeSite& site : sites) {
        uint64_t offset = 0;
        if (range && (site.addr < range->first || site.addr >= range->second)) continue;
        if (suffix != kReturn) site = debug::past_prologue(site);
        if (!bin->file_offset(site.addr, offset)) continue;
        site.user = true;
        site.relocated = bin->shared();
        // (A label's pp() is its line's, without .label, as stap's.)
        ProbeSpec* spec = add(offset, site.function, quoted(site));
        spec->site = std::make_shared<const debug::ProbeSite>(std::move(site));
      }
    }
    // Labels, inlined copies and callees are the DWARF's alone.
    if (suffix == kLabel || suffix == kInline || suffix == kCallee || suffix == kCalleeCall || suffix == kCallees ||
        suffix == kCalleesDepth)
      return true;
    // And, as stap lists them, the symbol table's functions that the DWARF
    // does not describe (all of them without DWARF), by name: no $vars.
    // (Described: by name, or at the address of a function the DWARF
    // names otherwise, "__getppid" for "getppid".)
    std::set<std::string> described;
    std::set<uint64_t> at_symbols;
    for (size_t i = before; i < out.size(); ++i) {
      described.insert(out[i].probefunc);
      if (out[i].site) at_symbols.insert(out[i].site->addr - out[i].site->symbol_offset);
    }
    for (const debug::UserFunction& f : bin->functions(pattern)) {
      if (described.count(f.name) || at_symbols.count(f.address) || (suffix == kExported && !f.global)) continue;
      if (range && f.address != range->first) continue;
      add(f.offset, f.name, fmt::format("\"{}\"", f.name));
    }
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

  const ProcessPatterns shapes_{
      {".function(string)", kEntry},
      {".function(string).call", kCall},
      {".function(string).return", kReturn},
      {".function(string).inline", kInline},
      {".function(string).exported", kExported},
      {".function(string).label(string)", kLabel},
      {".function(string).callee(string)", kCallee},
      {".function(string).callee(string).call", kCalleeCall},
      {".function(string).callee(string).return", kCalleeReturn},
      {".function(string).callees", kCallees},
      {".function(string).callees(number)", kCalleesDepth},
      {".function(number)", kEntry},
      {".function(number).call", kCall},
      {".function(number).return", kReturn},
      {".function(number).exported", kExported},
      {".statement(string)", kStatement},
      {".statement(string).nearest", kStatementNearest},
      {".statement(number)", kStatementAddress},
      // (The same as without .nearest, pp() too, as in stap 4.8.)
      {".statement(number).nearest", kStatementAddress},
      {".statement(number).absolute", kStatementAbsolute},
      {".insn", kInsn},
      {".insn.block", kInsnBlock},
  };
};

}  // namespace

const ProbeFamily& process_family() {
  static const ProcessFamily family;
  return family;
}

}  // namespace stapx
