// perf.type(T).config(C), with .sample(N) (a hit every N events, 1000000
// by default) or .hz(F) (F hits a second): kernel perf event counters on
// every CPU (runtime-c/probes/perf.c). stap passes T and C to the kernel
// unchecked, and so does stapx: a bad pair fails when the module starts.
//
// .process("PATH") (or .process: the -c command's program, the -x
// process's) binds the counters to the threads of the processes running
// PATH instead, each thread its own. .counter("NAME") makes a counter that
// never runs its probe: a handler reads the current thread's count with
// @perf("NAME") (stap's way to measure a stretch of a program); without
// .process, the current CPU's.
#include <fmt/format.h>

#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_family.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

namespace {

struct Counter : ProbeData {
  int64_t type = 0, config = 0, period = 1000000;
  bool freq = false;
  std::string path;  // .process: the program whose threads it counts
  std::string name;  // .counter: read by @perf(name), never runs the probe
};

class PerfFamily : public ProbeFamily {
 public:
  const char* name() const override { return "perf"; }
  std::vector<const char*> runtime_files() const override { return {"probes/tracepoints.c", "probes/perf.c"}; }
  std::vector<PointPattern> patterns() const override {
    // stap 4.8's shapes (its --dump-probe-types), no more.
    return {{"perf.type(number).config(number)"},
            {"perf.type(number).config(number).sample(number)"},
            {"perf.type(number).config(number).hz(number)"},
            {"perf.type(number).config(number).process"},
            {"perf.type(number).config(number).process(string)"},
            {"perf.type(number).config(number).counter(string)"},
            {"perf.type(number).config(number).process(string).counter(string)"}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    auto c = std::make_shared<Counter>();
    c->type = m.number_arg(1);
    c->config = m.number_arg(2);
    size_t i = 3;
    if (i < m.size() && (m.component(i).name == "sample" || m.component(i).name == "hz")) {
      c->period = m.number_arg(i);
      c->freq = m.component(i).name == "hz";
      if (!c->freq && c->period <= 0) {
        diags.report(DiagId::SemPerfPeriod, m.arg_loc(i), c->period);
        return;
      }
      ++i;
    }
    bool process = i < m.size() && m.component(i).name == "process";
    if (m.component(m.size() - 1).name == "counter") {
      c->name = m.string_arg(m.size() - 1);
      c->period = 0;  // counting only
      c->freq = false;
    }
    if (process) {
      // (.process without PATH: the -c/-x target's program.)
      std::vector<const debug::UserBinary*> bins = process_binaries(m, ctx, diags, i);
      if (bins.empty()) return;
      c->path = bins.front()->path();
    }
    ProbeSpec spec = base;
    spec.family = this;
    // stap's form: always .sample (the rate, for .hz too), the program's
    // real path, and .sample(0) for a counter.
    spec.pp = fmt::format("perf.type({}).config({}).sample({})", c->type, c->config, c->period);
    if (!c->path.empty()) spec.pp += fmt::format(".process(\"{}\")", c->path);
    if (!c->name.empty()) spec.pp += fmt::format(".counter(\"{}\")", c->name);
    spec.data = std::move(c);
    out.push_back(std::move(spec));
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    {
      auto b = w.block("static struct _stpx_perf _stpx_perfs[] =", "};");
      for (const ProbeSpec* p : probes) {
        const Counter& c = p->data_as<Counter>();
        w.line("{{ .probe = &_stpx_probes[{}], .type = (u32){}, .config = (u64){}LL, .period = {}ULL, .freq = {}, "
               ".path = {} }},",
               p->index, c.type, c.config, static_cast<uint64_t>(c.period), c.freq ? 1 : 0,
               c.path.empty() ? "NULL" : codegen::c_string(c.path));
      }
    }
    // @perf(NAME) in the handlers above (declared in perf.c).
    w.line("static notrace u64 _stpx_perf_read_slot(int i) { return _stpx_perf_read(&_stpx_perfs[i]); }");
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

std::string perf_counter_name(const ProbeSpec& spec) {
  if (spec.family != &perf_family()) return {};
  return spec.data_as<Counter>().name;
}

}  // namespace stapx
