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

// kprobe.function("f"), or the same in kprobe.module("m").
enum Shape { kFunction, kModule, kAbsolute };

class KprobeFamily : public KprobeTableFamily {
 public:
  const char* name() const override { return "kprobe"; }

  std::vector<PointPattern> patterns() const override {
    // (.call: stap's "not an inlined copy", which a kprobe never is.)
    return {{"kprobe.function(string)", kFunction},
            {"kprobe.function(string).call", kFunction},
            {"kprobe.function(string).return", kFunction},
            {"kprobe.module(string).function(string)", kModule},
            {"kprobe.module(string).function(string).call", kModule},
            {"kprobe.module(string).function(string).return", kModule},
            {"kprobe.function(string).return.maxactive(number)", kFunction},
            {"kprobe.statement(number).absolute", kAbsolute},
            {"kprobe.module(string).function(string).return.maxactive(number)", kModule}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    ProbeSpec spec = base;
    spec.family = this;
    if (m.tag == kAbsolute) return expand_absolute(m, spec, ctx, out, diags);
    if (!take_return_suffix(m, spec, diags)) return;
    if (m.tag == kModule) return expand_module(m, spec, ctx, out, diags);
    const std::string pattern = m.string_arg(1);
    const bool optional = m.point->optional;
    if (!support::is_glob(pattern)) {
      if (!valid_symbol(pattern)) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(1), "kprobe.function", "a kernel symbol name");
        return;
      }
      const KernelSymbols* syms = ctx.kernel_symbols ? ctx.kernel_symbols() : nullptr;
      if (syms) {
        const KernelFunction* f = syms->find(pattern);
        if (!f) {
          if (!optional) report_no_match(diags, m.arg_loc(1), syms, pattern);
          return;
        }
        if (!f->unprobeable.empty()) {
          if (!optional)
            diags.report(DiagId::SemProbeArg, m.arg_loc(1), "kprobe.function",
                         "a probeable function: '" + f->name + "' is " + f->unprobeable);
          return;
        }
      }
      out.push_back(one(spec, pattern, ctx));
      return;
    }
    const KernelSymbols* syms = ctx.kernel_symbols ? ctx.kernel_symbols() : nullptr;
    if (!syms) {
      diags.report(DiagId::SemNoSymbols, m.arg_loc(1), pattern);
      return;
    }
    std::vector<const KernelFunction*> excluded;
    std::vector<const KernelFunction*> found = match_kernel_functions(*syms, pattern, &excluded);
    if (!excluded.empty()) {
      std::string names;
      for (size_t i = 0; i < excluded.size() && i < 5; ++i)
        names += (i ? ", " : "") + excluded[i]->name + " (" + excluded[i]->unprobeable + ")";
      if (excluded.size() > 5) names += fmt::format(", and {} more", excluded.size() - 5);
      diags.report(DiagId::WarnUnprobeable, m.arg_loc(1), excluded.size(), pattern, names);
    }
    if (found.empty()) {
      if (!optional) diags.report(DiagId::SemNoMatch, m.arg_loc(1));
      return;
    }
    for (const KernelFunction* f : found) {
      ProbeSpec p = one(spec, f->name, ctx);
      // pp() names the function probed, as stap's does.
      p.pp = "kprobe.function(\"" + f->name + "\")" + call_text(m) + return_text(p);
      out.push_back(std::move(p));
    }
  }

 private:
  const char* table() const override { return "_stpx_kprobes"; }

  // kprobe.statement(ADDRESS).absolute (guru): a kprobe at a raw run-time
  // address, unchecked, as stapprobes(3stap) describes it.
  void expand_absolute(const PointMatch& m, ProbeSpec& spec, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
                       DiagSink& diags) const {
    if (!ctx.guru) {
      diags.report(DiagId::SemNeedGuru, m.component(2).loc, "absolute statement probe");
      return;
    }
    auto at = std::make_shared<KprobeAddress>();
    at->raw = static_cast<uint64_t>(m.number_arg(1));
    if (!at->raw) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), "kprobe.statement", "a kernel address");
      return;
    }
    spec.pp = fmt::format("kprobe.statement({:#x}).absolute", at->raw);
    set_kprobe_address(spec, std::move(at));
    out.push_back(std::move(spec));
  }

  static const char* call_text(const PointMatch& m) {
    return m.component(m.size() - 1).name.view() == "call" ? ".call" : "";
  }

  // A probe on `symbol` ("m:f" for a module's function); probefunc() is
  // the bare name, as stap's symname() gives it.
  static ProbeSpec one(const ProbeSpec& spec, const std::string& symbol, const ProbeContext& ctx) {
    ProbeSpec p = spec;
    auto at = std::make_shared<KprobeAddress>();
    at->symbol = symbol;
    set_ftrace_entry(*at, ctx);
    set_kprobe_address(p, std::move(at));
    p.probefunc = symbol.substr(symbol.find(':') + 1);
    return p;
  }

  // kprobe.module("m").function("f")[.return]: attached by "m:f", which the
  // kernel resolves in the loaded module when the probe is armed. A
  // wildcard names the functions of the module's .ko (found as
  // module("m").function finds it); an exact name is left to the kernel.
  void expand_module(const PointMatch& m, const ProbeSpec& spec, const ProbeContext& ctx,
                     std::vector<ProbeSpec>& out, DiagSink& diags) const {
    const std::string mod = m.string_arg(1);
    const std::string fn = m.string_arg(2);
    if (mod.empty() || mod.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                           std::string::npos) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), "kprobe.module", "a module name");
      return;
    }
    if (!valid_symbol(fn) && !support::is_glob(fn)) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(2), "kprobe.module", "a function symbol name");
      return;
    }
    auto module_probe = [&](const std::string& name) {
      ProbeSpec p = one(spec, mod + ":" + name, ctx);
      p.pp = fmt::format("kprobe.module(\"{}\").function(\"{}\"){}{}", mod, name, call_text(m), return_text(p));
      return p;
    };
    if (!support::is_glob(fn)) {
      out.push_back(module_probe(fn));
      return;
    }
    if (!ctx.env) return;
    std::set<std::string> names;
    for (auto& [mname, di] : ctx.env->module_debuginfo(mod, diags, m.arg_loc(1), m.point->optional))
      for (const debug::ProbeSite& site : di->function_sites(fn, false)) names.insert(site.symbol);
    if (names.empty() && !m.point->optional) diags.report(DiagId::SemNoMatch, m.arg_loc(2));
    for (const std::string& name : names) out.push_back(module_probe(name));
  }
};

}  // namespace

const ProbeFamily& kprobe_family() {
  static const KprobeFamily f;
  return f;
}

}  // namespace stapx
