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
#include "translator/probes/kprobe_table.h"
#include "translator/probes/probe_env.h"
#include "translator/probes/source_spec.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace stapx {

namespace {

class KernelFunctionFamily : public KprobeTableFamily {
 public:
  explicit KernelFunctionFamily(bool module) : module_(module) {
    std::string f = std::string(module_ ? "module(string)" : "kernel") + ".function(string)";
    texts_ = {{f, Suffix::None},
              {f + ".call", Suffix::Call},
              {f + ".return", Suffix::Return},
              {f + ".return.maxactive(number)", Suffix::ReturnMaxactive},
              {f + ".inline", Suffix::Inline},
              {f + ".exported", Suffix::Exported},
              {f + ".label(string)", Suffix::Label},
              {f + ".callee(string)", Suffix::Callee},
              {f + ".callee(string).call", Suffix::CalleeCall},
              {f + ".callee(string).return", Suffix::CalleeReturn},
              {f + ".callees", Suffix::Callees},
              {f + ".callees(number)", Suffix::CalleesDepth}};
    // kernel.function(ADDRESS): the function whose code holds ADDRESS; a
    // module's ADDRESS is where libdwfl lays the .ko's sections out (as
    // stap's: its .text from 0x10000 on, after the notes).
    const std::string a = std::string(module_ ? "module(string)" : "kernel") + ".function(number)";
    texts_.insert(texts_.end(), {{a, Suffix::None},
                                 {a + ".call", Suffix::Call},
                                 {a + ".return", Suffix::Return},
                                 {a + ".return.maxactive(number)", Suffix::ReturnMaxactive},
                                 {a + ".exported", Suffix::Exported}});
  }
  const char* name() const override { return module_ ? "module.function" : "kernel.function"; }

  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out;
    for (const auto& [text, suffix] : texts_)
      out.push_back({text, static_cast<int>(suffix), suffix != Suffix::CalleeReturn});  // (refused, with why)
    return out;
  }

  void expand(const PointMatch& m, const ProbeSpec& tmpl, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const ast::ProbePoint& point = *m.point;
    const auto suffix = static_cast<Suffix>(m.tag);
    if (module_ && m.string_arg(0).empty()) {
      diags.report(DiagId::SemProbeArg, m.component(0).loc, "module", "a module name string");
      return;
    }
    std::optional<uint64_t> address;
    if (m.component(1).arg->kind == ast::ExprKind::Number) address = static_cast<uint64_t>(m.number_arg(1));
    const std::string pattern = address ? fmt::format("{:#x}", *address) : m.string_arg(1);
    if (pattern.empty()) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), name(), "a function name");
      return;
    }
    if (suffix == Suffix::CalleeReturn) {
      diags.report(DiagId::SemCalleeReturn, m.component(m.size() - 1).loc, module_ ? "module(...).function(...)"
                                                                                  : "kernel.function(...)");
      return;
    }
    ProbeSpec ret_spec;  // is_return and maxactive
    if (!take_return_suffix(m, ret_spec, diags)) return;
    // As stap: without a suffix, out-of-line functions and inlined
    // instances; .inline only inlined instances; .call, .return and
    // .exported only out-of-line functions.
    bool inline_only = suffix == Suffix::Inline;
    bool inlines = inline_only || suffix == Suffix::None;
    bool exported = suffix == Suffix::Exported;
    bool label = suffix == Suffix::Label;
    bool callees = suffix == Suffix::Callee || suffix == Suffix::CalleeCall || suffix == Suffix::Callees ||
                   suffix == Suffix::CalleesDepth;
    int depth = suffix == Suffix::CalleesDepth ? static_cast<int>(m.number_arg(2)) : 1;
    if (suffix == Suffix::CalleesDepth && depth < 1) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(2), "callees", "a depth of 1 or more");
      return;
    }
    std::string suffix_text = ret_spec.is_return   ? return_text(ret_spec)
                              : inline_only        ? ".inline"
                              : exported           ? ".exported"
                              : suffix == Suffix::Call || suffix == Suffix::CalleeCall ? ".call"
                                                       : "";
    // "func@file:line": the functions declared in that file (at that line).
    SourceSpec where = SourceSpec::parse(address ? "*" : pattern);
    if (!where.valid || (where.has_line() && (where.lines != SourceSpec::Lines::Range || where.lo != where.hi))) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), name(), "\"function[@file[:line]]\"");
      return;
    }
    debug::SiteFilter filter;
    // (function(ADDRESS).exported: the function there, global or not, as
    // stap 4.8 takes it.)
    filter.exported_only = exported && !address;
    filter.out_of_line = !inline_only;
    filter.file = function_file_filter(where);
    filter.prologue = ctx.prologue;
    if (!ctx.env) return;
    auto scopes = ctx.env->point_debuginfo(point, module_, diags);
    if (scopes.empty()) return;
    size_t before = out.size();
    InlinedSiteCheck check(ctx, module_);
    for (auto& [mod, di] : scopes) {
      // function(ADDRESS): the out-of-line function whose code holds
      // the address, by its entry (as stap resolves it).
      std::optional<uint64_t> entry;
      if (address) {
        std::optional<debug::ProbeSite> at = di->address_site(*address);
        if (!at) continue;
        entry = at->addr - at->symbol_offset;
        where.function = at->function;
      }
      // .label("L"): the labels' own addresses (the DWARF's alone), and
      // pp() names the label's line without .label, as stap's does.
      // .callee("C")/.callees: the inlined copies of the callees (their
      // entries); pp() names the callee as a function, pn() and -l caller
      // and callee, as stap's do.
      std::vector<debug::ProbeSite> sites =
          label     ? di->label_sites(where.function, m.string_arg(2), filter)
          : callees ? di->callee_sites(where.function, suffix == Suffix::Callees || suffix == Suffix::CalleesDepth
                                                           ? "*" : m.string_arg(2), depth, filter)
                    : di->function_sites(where.function, inlines, filter);
      if (entry)
        sites.erase(std::remove_if(sites.begin(), sites.end(), [&](const auto& s) { return s.addr != *entry; }),
                    sites.end());
      for (debug::ProbeSite& site : sites) {
        if (!callees && !check.keep(site)) continue;
        if (!ret_spec.is_return && !label && !callees) site = debug::past_prologue(site);
        ProbeSpec spec = tmpl;
        spec.family = this;
        std::shared_ptr<KprobeAddress> at = site_address(mod, site);
        if (mod.empty()) set_ftrace_entry(*at, ctx);
        spec.probefunc = site.symbol;  // (bare, as stap's symname(addr()))
        set_kprobe_address(spec, std::move(at));
        spec.is_return = ret_spec.is_return;
        spec.maxactive = ret_spec.maxactive;
        // stap's form names the source; BTF knows none.
        std::string prefix = mod.empty() ? "kernel" : fmt::format("module(\"{}\")", mod);
        if (callees)
          spec.pn = fmt::format("{}.function(\"{}@{}:{}\").callee(\"{}@{}:{}\"){}", prefix, site.caller,
                                site.caller_file, site.caller_line, site.function, site.decl_file, site.decl_line,
                                suffix_text);
        if (address)
          spec.pp = fmt::format("{}.function({}){}", prefix, pattern, suffix_text);
        else
          spec.pp = site.decl_file.empty()
                        ? fmt::format("{}.function(\"{}\"){}", prefix, site.function, suffix_text)
                        : fmt::format("{}.function(\"{}@{}:{}\"){}", prefix, site.function, site.decl_file,
                                      site.decl_line, suffix_text);
        if (site.from_btf)  // (after what the BTF reader noted, if anything)
          site.dwarf_hint = (mod.empty() ? debuginfo_hint(ctx.env->release())
                                         : module_debuginfo_hint(ctx.env->release(), mod)) +
                            (site.dwarf_hint.empty() ? "" : " " + site.dwarf_hint);
        spec.site = std::make_shared<const debug::ProbeSite>(std::move(site));
        out.push_back(std::move(spec));
      }
    }
    check.report(diags, point.components[1].arg->loc, pattern);
    // A suffix only DWARF can serve, where BTF describes the function:
    // say what BTF lacks rather than "no match".
    auto btf_lacks = [&](const debug::SiteFilter& f, const std::string& what, bool module_hint) {
      for (auto& [mod, di] : scopes) {
        std::vector<debug::ProbeSite> all = di->function_sites(where.function, false, f);
        if (!all.empty() && all[0].from_btf) {
          diags.report(DiagId::SemNoDebuginfo, point.components[2].loc,
                       std::string(name()) + "(...)." + what + " (" + di->source() + " records no " +
                           (what == "label" ? "labels" : "linkage") + ")",
                       module_hint && !mod.empty() ? module_debuginfo_hint(ctx.env->release(), mod)
                                                   : debuginfo_hint(ctx.env->release()));
          return true;
        }
      }
      return false;
    };
    // Labels are in DWARF only.
    if (out.size() == before && label && !point.optional && btf_lacks(filter, "label", true)) return;
    // The kernel's BTF records every function as static: without the
    // symbol table (DWARF's vmlinux) .exported cannot tell. (A module's
    // BTF comes with its .ko's symbol table, which can.)
    debug::SiteFilter any = filter;
    any.exported_only = false;
    if (out.size() == before && exported && !module_ && !point.optional && btf_lacks(any, "exported", false)) return;
    if (out.size() == before && !point.optional) {
      // stap lists the kernel's functions nearest the name.
      const KernelSymbols* syms = !module_ && where.file.empty() && ctx.kernel_symbols ? ctx.kernel_symbols() : nullptr;
      report_no_match(diags, point.components[1].arg->loc, syms, where.function);
    }
  }

 private:
  bool module_;

  const char* table() const override { return module_ ? "_stpx_mfuncs" : "_stpx_kfuncs"; }

  // kernel.function("pattern")[.call|.return|...], module("m").function(...)
  enum class Suffix { None, Call, Return, ReturnMaxactive, Inline, Exported, Label, Callee, CalleeCall, CalleeReturn,
                      Callees, CalleesDepth };
  std::vector<std::pair<std::string, Suffix>> texts_;
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
