// kernel.trace("pattern"): probes on the kernel's tracepoints. BTF names
// each tracepoint through its iterator function __traceiter_NAME(void
// *__data, args...), which also gives the arguments' names and types, so
// $arg reads work as for kernel.function: the generated probe function
// (runtime-c/probes/tracepoints.c) lays the arguments out as at that
// function's entry.
#include <fmt/format.h>

#include "translator/codegen/cwriter.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/probes/probe_family.h"
#include "translator/probes/probe_env.h"

namespace stapx {

namespace {

constexpr const char kIter[] = "__traceiter_";

// The tracepoint a probe is on.
struct Tracepoint : ProbeData {
  explicit Tracepoint(std::string n) : name(std::move(n)) {}
  std::string name;
};

class KernelTraceFamily : public ProbeFamily {
 public:
  const char* name() const override { return "kernel.trace"; }
  std::vector<const char*> runtime_files() const override { return {"probes/tracepoints.c"}; }

  std::vector<PointPattern> patterns() const override { return {{"kernel.trace(string)"}}; }

  // kernel.trace("name") or kernel.trace("system:name"); the system part
  // is not needed to find a tracepoint by name.
  void expand(const PointMatch& m, const ProbeSpec& tmpl, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const ast::ProbePoint& point = *m.point;
    std::string pattern = m.string_arg(1);
    if (size_t colon = pattern.find(':'); colon != std::string::npos) pattern = pattern.substr(colon + 1);
    if (pattern.empty()) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), "kernel.trace", "a tracepoint name");
      return;
    }
    debug::DebugInfo* btf = ctx.env ? ctx.env->btf(diags, point.loc) : nullptr;
    if (!btf) return;
    std::vector<debug::ProbeSite> sites = btf->function_sites(kIter + pattern, false);
    if (sites.empty()) {
      if (!point.optional) diags.report(DiagId::SemNoMatch, point.components[1].arg->loc);
      return;
    }
    for (debug::ProbeSite& site : sites) {
      std::string tp = site.function.substr(sizeof(kIter) - 1);
      // The iterator's first parameter is the probe's private data.
      if (!site.params.empty()) site.params.erase(site.params.begin());
      site.function = tp;
      site.return_type = nullptr;
      ProbeSpec spec = tmpl;
      spec.family = this;
      spec.data = std::make_shared<Tracepoint>(tp);
      spec.pp = fmt::format("kernel.trace(\"{}\")", tp);
      spec.site = std::make_shared<const debug::ProbeSite>(std::move(site));
      out.push_back(std::move(spec));
    }
  }


  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    // One probe function per tracepoint, of its prototype: void *data, then
    // each argument in a 64-bit slot (x86-64 passes integers and pointers so).
    for (const ProbeSpec* p : probes) {
      size_t n = p->site->params.size();
      std::string params, args;
      for (size_t i = 0; i < n; ++i) {
        params += fmt::format(", unsigned long a{}", i);
        args += fmt::format("{}a{}", i ? ", " : "", i);
      }
      auto b = w.block(fmt::format("static notrace void _stpx_tp_fn_{}(void *data{})", p->index, params));
      w.line("const struct _stpx_tracepoint *t = data;");
      w.line("struct pt_regs regs;");
      w.line("unsigned long stack[{}];", n > 5 ? n - 4 : 1);
      if (n) w.line("const unsigned long args[] = {{ {} }};", args);
      w.line("_stpx_tp_regs(&regs, stack, {}, {});", n ? "args" : "NULL", n);
      w.line("regs.di = (unsigned long)data;");
      w.line("_stpx_run_probe(t->probe, &regs);");
    }
    auto b = w.block("static struct _stpx_tracepoint _stpx_tracepoints[] =", "};");
    for (const ProbeSpec* p : probes)
      w.line("{{ .probe = &_stpx_probes[{}], .name = \"{}\", .func = (void *)_stpx_tp_fn_{} }},", p->index,
             p->data_as<Tracepoint>().name, p->index);
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_tracepoints_arm(_stpx_tracepoints, ARRAY_SIZE(_stpx_tracepoints))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_tracepoints_disarm(_stpx_tracepoints, ARRAY_SIZE(_stpx_tracepoints));");
  }
};

}  // namespace

const ProbeFamily& kernel_trace_family() {
  static const KernelTraceFamily f;
  return f;
}

}  // namespace stapx
