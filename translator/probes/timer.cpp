// timer.ms(N), timer.s(N), timer.sec(N), timer.us(N), timer.ns(N):
// periodic hrtimers (runtime-c/probes/timers.c).
#include "translator/codegen/cwriter.h"
#include "translator/probes/families.h"

namespace stapx {

namespace {

class TimerFamily : public ProbeFamily {
 public:
  const char* name() const override { return "timer"; }

  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != "timer") return false;
    static const std::pair<const char*, int64_t> units[] = {
        {"s", 1000000000}, {"sec", 1000000000}, {"ms", 1000000}, {"msec", 1000000},
        {"us", 1000},      {"usec", 1000},      {"ns", 1},       {"nsec", 1}};
    if (c.size() != 2) {
      diags.report(DiagId::SemBadProbePoint, point.loc, "expected timer.ms(N), timer.s(N), ...");
      return true;
    }
    const int64_t* scale = nullptr;
    for (auto& [u, ns] : units)
      if (c[1].name == u) scale = &ns;
    if (!scale) {
      diags.report(DiagId::SemBadProbePoint, c[1].loc, "unknown timer unit '" + c[1].name + "'");
      return true;
    }
    if (!c[1].arg || c[1].arg->kind != ast::ExprKind::Number ||
        static_cast<const ast::NumberLit*>(c[1].arg)->value <= 0) {
      diags.report(DiagId::SemProbeArg, c[1].arg ? c[1].arg->loc : c[1].loc, "timer." + c[1].name,
                   "a positive number");
      return true;
    }
    int64_t n = static_cast<const ast::NumberLit*>(c[1].arg)->value;
    if (n > INT64_MAX / *scale || n * *scale < 100000) {
      diags.report(DiagId::SemProbeArg, c[1].arg->loc, "timer." + c[1].name,
                   "an interval between 100us and 292 years");
      return true;
    }
    spec.interval_ns = n * *scale;
    spec.family = this;
    return true;
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_timer _stpx_timers[] =", "};");
    for (const ProbeSpec* p : probes)
      w.line("{{ .probe = &_stpx_probes[{}], .interval_ns = {}ULL }},", p->index, p->interval_ns);
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    w.line("rc = _stpx_timers_arm(_stpx_timers, ARRAY_SIZE(_stpx_timers));");
    w.line("if (rc)");
    w.line("\treturn rc;");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_timers_disarm(_stpx_timers, ARRAY_SIZE(_stpx_timers));");
  }
};

}  // namespace

const ProbeFamily& timer_family() {
  static const TimerFamily f;
  return f;
}

}  // namespace stapx
