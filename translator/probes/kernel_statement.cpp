// kernel.statement("function@file:line"), kernel.statement(ADDRESS) and
// module("m").statement("function@file:line" or ADDRESS, a module's address
// being where libdwfl lays the .ko out, as stap's):
// probes on source lines inside kernel functions, resolved through the
// target's DWARF line tables, so that handlers can read the variables in
// scope there ($var). Each line becomes one kprobe at its lowest address
// in each copy of the function (out of line, and each inlined instance),
// attached by symbol and offset. "function[@file]" without a line is the
// function's entry. kernel.statement(ADDRESS).absolute (guru) probes a raw
// address without looking at variables.
#include <fmt/format.h>

#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/locate.h"
#include "translator/probes/kprobe_table.h"
#include "translator/probes/probe_env.h"
#include "translator/probes/source_spec.h"

namespace stapx {

namespace {

class KernelStatementFamily : public KprobeTableFamily {
 public:
  explicit KernelStatementFamily(bool module) : module_(module) {}
  const char* name() const override { return module_ ? "module.statement" : "kernel.statement"; }

  std::vector<PointPattern> patterns() const override {
    if (module_)
      return {{"module(string).statement(string)", kSource},
              {"module(string).statement(string).nearest", kNearest},
              {"module(string).statement(number)", kAddress},
              {"module(string).statement(number).nearest", kAddress}};
    return {{"kernel.statement(string)", kSource},
            {"kernel.statement(string).nearest", kNearest},
            {"kernel.statement(number)", kAddress},
            // (The same as without .nearest, pp() too, as in stap 4.8.)
            {"kernel.statement(number).nearest", kAddress},
            {"kernel.statement(number).absolute", kAbsolute}};
  }

  void expand(const PointMatch& m, const ProbeSpec& tmpl, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const ast::ProbePoint& point = *m.point;
    Arg arg;
    if (m.tag == kSource || m.tag == kNearest) {
      arg.pattern = m.string_arg(1);
    } else {
      arg.address = static_cast<uint64_t>(m.number_arg(1));
      arg.is_address = true;
      arg.absolute = m.tag == kAbsolute;
    }
    SourceLoc at = point.components[1].arg->loc;
    if (arg.absolute && !ctx.guru) {
      diags.report(DiagId::SemNeedGuru, point.components[2].loc, "absolute statement probe");
      return;
    }
    SourceSpec where = SourceSpec::parse(arg.pattern);
    // "function[@file]" without a line is the function's entry, named by
    // its declaration's line, as stap places it.
    bool entry = !arg.is_address && where.valid && !where.has_line() && m.tag == kSource;
    if (!arg.is_address && !entry && (!where.valid || !where.has_line())) {
      diags.report(DiagId::SemProbeArg, at, name(), "\"function@file:line\" (or :N-M, :*, +N)");
      return;
    }
    if (!ctx.env) return;
    auto scopes = ctx.env->point_debuginfo(point, module_, diags);
    if (scopes.empty()) return;
    std::vector<std::pair<std::string, debug::ProbeSite>> sites;
    for (auto& [mod, di] : scopes) {
      if (arg.is_address) {
        // (A raw .absolute address need not start a line.)
        std::optional<debug::ProbeSite> site;
        if (address_statement_site(*di, arg.address, !arg.absolute, diags, site) && site)
          sites.emplace_back(mod, std::move(*site));
        continue;
      }
      if (entry) {
        debug::SiteFilter filter;
        filter.file = function_file_filter(where);
        for (debug::ProbeSite& site : di->function_sites(where.function, false, filter))
          if (!site.decl_file.empty()) sites.emplace_back(mod, std::move(site));  // (DWARF only)
        continue;
      }
      if (!di->has_lines()) {
        if (module_)
          diags.report(DiagId::SemNoModuleDebuginfo, at, mod,
                       di->source() + " has no line tables; " + module_debuginfo_hint(ctx.env->release(), mod));
        else
          diags.report(DiagId::SemNoDebuginfo, at, std::string(name()) + " (" + di->source() + " has no line tables)",
                       debuginfo_hint(ctx.env->release()));
        return;
      }
      for (debug::ProbeSite& site : source_statement_sites(*di, where, m.tag == kNearest))
        sites.emplace_back(mod, std::move(site));
    }
    if (sites.empty()) {
      if (point.optional) return;
      // One line without code: stap's words, with the lines around it.
      for (auto& [mod, di] : scopes)
        if (auto missing = arg.is_address ? std::nullopt : missing_line(*di, where)) {
          diags.report_early(DiagId::SemNoLineRecords, at, missing->first, missing->second);
          return;
        }
      diags.report(DiagId::SemNoMatch, at);
      return;
    }
    InlinedSiteCheck check(ctx, module_);
    for (auto& [mod, site] : sites) {
      if (!check.keep(site)) continue;
      ProbeSpec spec = tmpl;
      spec.family = this;
      set_kprobe_address(spec, site_address(mod, site));
      spec.probefunc = site.symbol;  // the function holding it, as stap's symname(addr())
      std::string prefix = mod.empty() ? "kernel" : fmt::format("module(\"{}\")", mod);
      if (arg.is_address)
        spec.pp = fmt::format("{}.statement(0x{:x}){}", prefix, arg.address, arg.absolute ? ".absolute" : "");
      else
        spec.pp = fmt::format("{}.statement(\"{}@{}:{}\")", prefix, site.function, site.decl_file, site.decl_line);
      if (arg.absolute) {
        site.params.clear();  // a raw address: no variables
        site.locals.clear();
      }
      spec.site = std::make_shared<const debug::ProbeSite>(std::move(site));
      out.push_back(std::move(spec));
    }
    check.report(diags, at, arg.pattern);
  }

 private:
  bool module_;
  const char* table() const override { return module_ ? "_stpx_mstmts" : "_stpx_kstmts"; }

  struct Arg {
    std::string pattern;
    uint64_t address = 0;
    bool is_address = false;
    bool absolute = false;
  };

  enum Shape { kSource, kNearest, kAddress, kAbsolute };
};

}  // namespace

const ProbeFamily& kernel_statement_family() {
  static const KernelStatementFamily f(false);
  return f;
}

const ProbeFamily& module_statement_family() {
  static const KernelStatementFamily f(true);
  return f;
}

}  // namespace stapx
