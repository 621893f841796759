// perf.type(T).config(C), with .sample(N) (a hit every N events, 1000000
// by default) or .hz(F) (F hits a second): kernel perf event counters on
// every CPU (runtime-c/probes/perf.c). stap passes T and C to the kernel
// unchecked, and so does stapx: a bad pair fails when the module starts.
// The counters of one process (.process, .counter, @perf) come with
// user-space probing.
#include "translator/codegen/cwriter.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

struct Counter : ProbeData {
  int64_t type = 0, config = 0, period = 1000000;
  bool freq = false;
};

class PerfFamily : public ProbeFamily {
 public:
  const char* name() const override { return "perf"; }
  std::vector<const char*> runtime_files() const override { return {"probes/perf.c"}; }
  std::vector<PointPattern> patterns() const override {
    return {{"perf.type(number).config(number)"},
            {"perf.type(number).config(number).sample(number)"},
            {"perf.type(number).config(number).hz(number)"}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    auto c = std::make_shared<Counter>();
    c->type = m.number_arg(1);
    c->config = m.number_arg(2);
    if (m.size() == 4) {
      c->period = m.number_arg(3);
      c->freq = m.component(3).name == "hz";
      if (!c->freq && c->period <= 0) {
        diags.report(DiagId::SemPerfPeriod, m.arg_loc(3), c->period);
        return;
      }
    }
    ProbeSpec spec = base;
    spec.family = this;
    spec.data = std::move(c);
    out.push_back(std::move(spec));
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_perf _stpx_perfs[] =", "};");
    for (const ProbeSpec* p : probes) {
      const Counter& c = p->data_as<Counter>();
      w.line("{{ .probe = &_stpx_probes[{}], .type = (u32){}, .config = (u64){}LL, .period = {}ULL, .freq = {} }},",
             p->index, c.type, c.config, static_cast<uint64_t>(c.period), c.freq ? 1 : 0);
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_perf_arm(_stpx_perfs, ARRAY_SIZE(_stpx_perfs))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_perf_disarm(_stpx_perfs, ARRAY_SIZE(_stpx_perfs));");
  }
};

}  // namespace

const ProbeFamily& perf_family() {
  static const PerfFamily family;
  return family;
}

}  // namespace stapx
