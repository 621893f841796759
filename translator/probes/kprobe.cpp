// kprobe.function("sym") and kprobe.function("sym").return: kprobes and
// kretprobes on a named kernel function (runtime-c/probes/kprobes.c). The
// name may be a glob ("vfs_*"), matched against the target kernel's symbol
// table; functions the kernel won't kprobe are left out with a warning.
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <map>

#include "translator/debuginfo/kernel_symbols.h"

#include "support/glob.h"
#include "translator/codegen/cwriter.h"
#include "translator/probes/families.h"
#include "translator/probes/kprobe_table.h"
#include "translator/probes/probe_env.h"

namespace stapx {

namespace {

bool valid_symbol(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.') return false;
  return true;
}

class KprobeFamily : public KprobeTableFamily {
 public:
  const char* name() const override { return "kprobe"; }

  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != "kprobe") return false;
    if (c.size() >= 2 && c[1].name == "module") return match_module(point, spec, diags);
    if (c.size() < 2 || c[1].name != "function" || c.size() > 3 ||
        (c.size() == 3 && c[2].name != "return")) {
      diags.report(DiagId::SemBadProbePoint, point.loc,
                   "expected kprobe.function(\"name\") or kprobe.function(\"name\").return");
      return true;
    }
    if (!c[1].arg || c[1].arg->kind != ast::ExprKind::String) {
      diags.report(DiagId::SemProbeArg, c[1].loc, "kprobe.function", "a function name string");
      return true;
    }
    const std::string sym(static_cast<const ast::StringLit*>(c[1].arg)->value);
    if (!valid_symbol(sym)) {
      diags.report(DiagId::SemProbeArg, c[1].arg->loc, "kprobe.function", "a kernel symbol name");
      return true;
    }
    spec.symbol = sym;
    spec.is_return = c.size() == 3;
    spec.family = this;
    return true;
  }

  bool expand(const ast::ProbePoint& point, const ProbeSpec& base, const ProbeContext& ctx,
              std::vector<ProbeSpec>& out, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != "kprobe") return false;
    if (c.size() >= 2 && c[1].name == "module") return expand_module(point, base, ctx, out, diags);
    ProbeSpec spec = base;
    std::string pattern;
    if (c.size() >= 2 && c[1].arg && c[1].arg->kind == ast::ExprKind::String)
      pattern = static_cast<const ast::StringLit*>(c[1].arg)->value;
    if (!support::is_glob(pattern)) {
      if (!match(point, spec, diags) || !spec.family) return true;
      const KernelSymbols* syms = ctx.kernel_symbols ? ctx.kernel_symbols() : nullptr;
      if (syms) {
        const KernelFunction* f = syms->find(spec.symbol);
        if (!f) {
          if (!point.optional) report_no_match(diags, c[1].arg->loc, syms, spec.symbol);
          return true;
        }
        if (!f->unprobeable.empty()) {
          if (!point.optional)
            diags.report(DiagId::SemProbeArg, c[1].arg->loc, "kprobe.function",
                         "a probeable function: '" + f->name + "' is " + f->unprobeable);
          return true;
        }
      }
      out.push_back(std::move(spec));
      return true;
    }
    // A pattern: check the point's shape with a stand-in name, then expand.
    ast::StringLit standin;
    standin.loc = c[1].arg->loc;
    standin.type = c[1].arg->type;
    standin.value = "x";
    ast::ProbePoint shape = point;
    shape.components[1].arg = &standin;
    if (!match(shape, spec, diags) || !spec.family) return true;
    const KernelSymbols* syms = ctx.kernel_symbols ? ctx.kernel_symbols() : nullptr;
    if (!syms) {
      diags.report(DiagId::SemNoSymbols, c[1].arg->loc, pattern);
      return true;
    }
    std::vector<const KernelFunction*> excluded;
    std::vector<const KernelFunction*> found = match_kernel_functions(*syms, pattern, &excluded);
    if (!excluded.empty()) {
      std::string names;
      for (size_t i = 0; i < excluded.size() && i < 5; ++i)
        names += (i ? ", " : "") + excluded[i]->name + " (" + excluded[i]->unprobeable + ")";
      if (excluded.size() > 5) names += fmt::format(", and {} more", excluded.size() - 5);
      diags.report(DiagId::WarnUnprobeable, c[1].arg->loc, excluded.size(), pattern, names);
    }
    if (found.empty()) {
      if (!point.optional) diags.report(DiagId::SemNoMatch, c[1].arg->loc);
      return true;
    }
    for (const KernelFunction* f : found) {
      ProbeSpec one = spec;
      one.symbol = f->name;
      // pp() names the function probed, as stap's does.
      one.pp = "kprobe.function(\"" + f->name + "\")" + (one.is_return ? ".return" : "");
      out.push_back(std::move(one));
    }
    return true;
  }

  std::vector<std::string> point_types() const override {
    return {"kprobe.function(string)", "kprobe.function(string).return", "kprobe.module(string).function(string)",
            "kprobe.module(string).function(string).return"};
  }

 private:
  const char* table() const override { return "_stpx_kprobes"; }

  // kprobe.module("m").function("f")[.return]: attached by "m:f", which the
  // kernel resolves in the loaded module when the probe is armed.
  bool match_module(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const {
    const auto& c = point.components;
    if (c.size() < 3 || c[2].name != "function" || c.size() > 4 || (c.size() == 4 && c[3].name != "return")) {
      diags.report(DiagId::SemBadProbePoint, point.loc,
                   "expected kprobe.module(\"m\").function(\"name\") or ....return");
      return true;
    }
    for (size_t i : {1, 2}) {
      if (!c[i].arg || c[i].arg->kind != ast::ExprKind::String) {
        diags.report(DiagId::SemProbeArg, c[i].loc, "kprobe.module", i == 1 ? "a module name string" : "a function name string");
        return true;
      }
    }
    const std::string mod(static_cast<const ast::StringLit*>(c[1].arg)->value);
    const std::string fn(static_cast<const ast::StringLit*>(c[2].arg)->value);
    if (mod.empty() || mod.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                           std::string::npos) {
      diags.report(DiagId::SemProbeArg, c[1].arg->loc, "kprobe.module", "a module name");
      return true;
    }
    if (!valid_symbol(fn) && !support::is_glob(fn)) {
      diags.report(DiagId::SemProbeArg, c[2].arg->loc, "kprobe.module", "a function symbol name");
      return true;
    }
    spec.symbol = mod + ":" + fn;
    spec.is_return = c.size() == 4;
    spec.pp = fmt::format("kprobe.module(\"{}\").function(\"{}\"){}", mod, fn, spec.is_return ? ".return" : "");
    spec.family = this;
    return true;
  }

  // A wildcard names the functions of the module's .ko (found as
  // module("m").function finds it); an exact name is left to the kernel.
  bool expand_module(const ast::ProbePoint& point, const ProbeSpec& base, const ProbeContext& ctx,
                     std::vector<ProbeSpec>& out, DiagSink& diags) const {
    ProbeSpec spec = base;
    if (!match_module(point, spec, diags) || !spec.family) return true;
    const auto& c = point.components;
    const std::string mod(static_cast<const ast::StringLit*>(c[1].arg)->value);
    const std::string fn(static_cast<const ast::StringLit*>(c[2].arg)->value);
    if (!support::is_glob(fn)) {
      out.push_back(std::move(spec));
      return true;
    }
    if (!ctx.env) return true;
    std::set<std::string> names;
    for (auto& [m, di] : ctx.env->module_debuginfo(mod, diags, c[1].arg->loc, point.optional))
      for (const debug::ProbeSite& site : di->function_sites(fn, false)) names.insert(site.symbol);
    if (names.empty() && !point.optional) diags.report(DiagId::SemNoMatch, c[2].arg->loc);
    for (const std::string& name : names) {
      ProbeSpec one = spec;
      one.symbol = mod + ":" + name;
      one.pp = fmt::format("kprobe.module(\"{}\").function(\"{}\"){}", mod, name, one.is_return ? ".return" : "");
      out.push_back(std::move(one));
    }
    return true;
  }
};

}  // namespace

const ProbeFamily& kprobe_family() {
  static const KprobeFamily f;
  return f;
}

}  // namespace stapx
