// kernel.function("pattern") and module("m").function("pattern"), with
// .call, .return, .inline and .exported (as stap: only functions whose own
// symbol is global or weak): probes on the entry of each function the
// pattern names, resolved through the debug information (DWARF, else BTF)
// of the kernel or of the module, so that handlers can read the function's
// parameters ($var).
// Each matched function becomes one kprobe (or kretprobe) attached by
// symbol and offset, which survives KASLR; a module's function by
// "module:symbol", which the kernel resolves in the loaded module.
#include "translator/codegen/cwriter.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/kernel_symbols.h"
#include "translator/debuginfo/locate.h"
#include "translator/probes/families.h"
#include "translator/probes/kprobe_table.h"
#include "translator/probes/probe_env.h"
#include "translator/probes/source_spec.h"

#include <algorithm>

#include <fmt/format.h>

namespace stapx {

namespace {

class KernelFunctionFamily : public KprobeTableFamily {
 public:
  explicit KernelFunctionFamily(bool module) : module_(module) {}
  const char* name() const override { return module_ ? "module.function" : "kernel.function"; }

  // Syntax only; expand() does the work.
  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    std::string pattern;
    Suffix suffix = Suffix::None;
    if (!parse(point, pattern, suffix, diags)) return owns(point);
    (void)spec;
    return true;
  }

  bool expand(const ast::ProbePoint& point, const ProbeSpec& tmpl, const ProbeContext& ctx,
              std::vector<ProbeSpec>& out, DiagSink& diags) const override {
    if (!owns(point)) return false;
    std::string pattern;
    Suffix suffix = Suffix::None;
    if (!parse(point, pattern, suffix, diags)) return true;
    bool ret = suffix == Suffix::Return;
    // As stap: without a suffix, out-of-line functions and inlined
    // instances; .inline only inlined instances; .call, .return and
    // .exported only out-of-line functions.
    bool inline_only = suffix == Suffix::Inline;
    bool inlines = inline_only || suffix == Suffix::None;
    bool exported = suffix == Suffix::Exported;
    const char* suffix_text = ret                  ? ".return"
                              : inline_only        ? ".inline"
                              : exported           ? ".exported"
                              : suffix == Suffix::Call ? ".call"
                                                       : "";
    // "func@file:line": the functions declared in that file (at that line).
    SourceSpec where = SourceSpec::parse(pattern);
    if (!where.valid || (where.has_line() && (where.lines != SourceSpec::Lines::Range || where.lo != where.hi))) {
      diags.report(DiagId::SemProbeArg, point.components[1].arg->loc, name(), "\"function[@file[:line]]\"");
      return true;
    }
    debug::SiteFilter filter;
    filter.exported_only = exported;
    filter.out_of_line = !inline_only;
    if (!where.file.empty())
      filter.file = [&](const std::string& file, int line) {
        return where.keeps(file, line, line);
      };
    if (!ctx.env) return true;
    auto scopes = ctx.env->point_debuginfo(point, module_, diags);
    if (scopes.empty()) return true;
    size_t before = out.size();
    InlinedSiteCheck check(ctx, module_);
    for (auto& [mod, di] : scopes) {
      std::vector<debug::ProbeSite> sites = di->function_sites(where.function, inlines, filter);
      for (debug::ProbeSite& site : sites) {
        if (!check.keep(site)) continue;
        ProbeSpec spec = tmpl;
        spec.family = this;
        spec.symbol = mod.empty() ? site.symbol : mod + ":" + site.symbol;
        spec.offset = site.symbol_offset;
        if (!site.anchor.empty()) {
          spec.attach = mod.empty() ? site.anchor : mod + ":" + site.anchor;
          spec.attach_offset = site.anchor_offset;
        }
        spec.is_return = ret;
        // stap's form names the source; BTF knows none.
        std::string prefix = mod.empty() ? "kernel" : fmt::format("module(\"{}\")", mod);
        spec.pp = site.decl_file.empty()
                      ? fmt::format("{}.function(\"{}\"){}", prefix, site.function, suffix_text)
                      : fmt::format("{}.function(\"{}@{}:{}\"){}", prefix, site.function, site.decl_file,
                                    site.decl_line, suffix_text);
        if (site.from_btf)
          site.dwarf_hint = mod.empty() ? debuginfo_hint(ctx.env->release()) : module_debuginfo_hint(ctx.env->release(), mod);
        spec.site = std::make_shared<const debug::ProbeSite>(std::move(site));
        out.push_back(std::move(spec));
      }
    }
    check.report(diags, point.components[1].arg->loc, pattern);
    if (out.size() == before && exported && !module_ && !point.optional) {
      // The kernel's BTF records every function as static: without the
      // symbol table (DWARF's vmlinux) .exported cannot tell. (A module's
      // BTF comes with its .ko's symbol table, which can.)
      debug::SiteFilter any = filter;
      any.exported_only = false;
      for (auto& [mod, di] : scopes) {
        std::vector<debug::ProbeSite> all = di->function_sites(where.function, false, any);
        if (!all.empty() && all[0].from_btf) {
          diags.report(DiagId::SemNoDebuginfo, point.components[2].loc,
                       std::string(name()) + "(...).exported (" + di->source() + " records no linkage)",
                       debuginfo_hint(ctx.env->release()));
          return true;
        }
      }
    }
    if (out.size() == before && !point.optional) {
      // stap lists the kernel's functions nearest the name.
      const KernelSymbols* syms = !module_ && where.file.empty() && ctx.kernel_symbols ? ctx.kernel_symbols() : nullptr;
      report_no_match(diags, point.components[1].arg->loc, syms, where.function);
    }
    return true;
  }

  std::vector<std::string> point_types() const override {
    if (module_)
      return {"module(string).function(string)", "module(string).function(string).call",
              "module(string).function(string).return", "module(string).function(string).inline",
              "module(string).function(string).exported"};
    return {"kernel.function(string)", "kernel.function(string).call", "kernel.function(string).return",
            "kernel.function(string).inline", "kernel.function(string).exported"};
  }


 private:
  bool module_;

  const char* table() const override { return module_ ? "_stpx_mfuncs" : "_stpx_kfuncs"; }

  bool owns(const ast::ProbePoint& point) const {
    const auto& c = point.components;
    if (c.size() < 2 || c[1].name != "function") return false;
    return module_ ? c[0].name == "module" && c[0].arg : c[0].name == "kernel" && !c[0].arg;
  }

  // kernel.function("pattern")[.call|.return], module("m").function(...)
  enum class Suffix { None, Call, Return, Inline, Exported };

  bool parse(const ast::ProbePoint& point, std::string& pattern, Suffix& suffix, DiagSink& diags) const {
    if (!owns(point)) return false;
    const auto& c = point.components;
    if (module_ && (c[0].arg->kind != ast::ExprKind::String ||
                    static_cast<const ast::StringLit*>(c[0].arg)->value.empty())) {
      diags.report(DiagId::SemProbeArg, c[0].loc, "module", "a module name string");
      return false;
    }
    if (!c[1].arg || c[1].arg->kind != ast::ExprKind::String) {
      diags.report(DiagId::SemProbeArg, c[1].loc, name(), "a function name string");
      return false;
    }
    pattern = static_cast<const ast::StringLit*>(c[1].arg)->value;
    for (size_t i = 2; i < c.size(); ++i) {
      if (c[i].arg || (c[i].name != "call" && c[i].name != "return" && c[i].name != "inline" &&
                       c[i].name != "exported") || i != 2) {
        if (!c[i].arg && (c[i].name == "label" || c[i].name == "callee" || c[i].name == "callees"))
          diags.report(DiagId::SemUnsupported, c[i].loc,
                       std::string(module_ ? "module(...).function(...)." : "kernel.function(...).") + c[i].name);
        else
          diags.report(DiagId::SemBadProbePoint, c[i].loc,
                       module_ ? "expected module(\"m\").function(\"name\"), .call, .return, .inline or .exported"
                               : "expected kernel.function(\"name\"), .call, .return, .inline or .exported");
        return false;
      }
      suffix = c[i].name == "return"     ? Suffix::Return
               : c[i].name == "inline"   ? Suffix::Inline
               : c[i].name == "exported" ? Suffix::Exported
                                         : Suffix::Call;
    }
    if (pattern.empty()) {
      diags.report(DiagId::SemProbeArg, c[1].arg->loc, name(), "a function name");
      return false;
    }
    return true;
  }
};

}  // namespace

const ProbeFamily& kernel_function_family() {
  static const KernelFunctionFamily f(false);
  return f;
}

const ProbeFamily& module_function_family() {
  static const KernelFunctionFamily f(true);
  return f;
}

}  // namespace stapx
