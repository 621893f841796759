// timer.ms(N), timer.s(N), timer.sec(N), timer.us(N), timer.ns(N),
// timer.jiffies(N), timer.hz(N), each optionally .randomize(M): periodic
// hrtimers (runtime-c/probes/timers.c). A jiffies interval is converted
// with the target kernel's TICK_NSEC when the module is built.
// timer.profile: a pinned hrtimer per CPU at the tick rate.
#include "translator/codegen/cwriter.h"
#include "translator/probes/families.h"

namespace stapx {

namespace {

constexpr int64_t kMinNs = 100000;  // 100us, as stap
constexpr int64_t kMaxNs = 86400LL * 1000000000LL;  // one day, as stap

const ast::NumberLit* number_arg(const ast::ProbePointComponent& c) {
  if (!c.arg || c.arg->kind != ast::ExprKind::Number) return nullptr;
  return static_cast<const ast::NumberLit*>(c.arg);
}

class TimerFamily : public ProbeFamily {
 public:
  bool unprivileged() const override { return true; }
  const char* name() const override { return "timer"; }

  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != "timer") return false;
    static const std::pair<const char*, int64_t> units[] = {
        {"s", 1000000000}, {"sec", 1000000000}, {"ms", 1000000}, {"msec", 1000000},
        {"us", 1000},      {"usec", 1000},      {"ns", 1},       {"nsec", 1},
        {"jiffies", 0},    {"hz", 0}};
    if (c.size() < 2 || c.size() > 3 || c[0].arg) {
      diags.report(DiagId::SemBadProbePoint, point.loc, "expected timer.ms(N), timer.s(N), ...");
      return true;
    }
    const std::string unit(c[1].name);
    const int64_t* scale = nullptr;
    for (auto& [u, ns] : units)
      if (unit == u) scale = &ns;
    if (!scale) {
      diags.report(DiagId::SemBadProbePoint, c[1].loc, "unknown timer unit '" + unit + "'");
      return true;
    }
    const ast::NumberLit* n = number_arg(c[1]);
    if (!n) {
      diags.report(DiagId::SemProbeArg, c[1].arg ? c[1].arg->loc : c[1].loc, "timer." + unit, "a number");
      return true;
    }
    int64_t rnd = 0;
    if (c.size() == 3) {
      const ast::NumberLit* m = number_arg(c[2]);
      if (c[2].name != "randomize") {
        diags.report(DiagId::SemBadProbePoint, c[2].loc, "invalid suffix for probe");
        return true;
      }
      if (!m) {
        diags.report(DiagId::SemProbeArg, c[2].arg ? c[2].arg->loc : c[2].loc, "randomize", "a number");
        return true;
      }
      rnd = m->value;
      if (rnd < 0 || rnd > n->value) {
        diags.report(DiagId::SemProbeArg, c[2].arg->loc, "randomize", "a value from 0 to the interval");
        return true;
      }
    }
    int64_t v = n->value;
    if (unit == "hz") {
      if (v <= 0) {
        diags.report(DiagId::SemProbeArg, c[1].arg->loc, "timer.hz", "a frequency greater than 0");
        return true;
      }
      spec.interval_ns = 1000000000 / v;
      if (c.size() == 3) {
        diags.report(DiagId::SemBadProbePoint, c[2].loc, "invalid suffix for probe");
        return true;
      }
    } else if (unit == "jiffies") {
      // At most a day at HZ=1000; TICK_NSEC is applied in C.
      if (v <= 0 || v > kMaxNs / 1000000) {
        diags.report(DiagId::SemProbeArg, c[1].arg->loc, "timer.jiffies", "a valid jiffies interval");
        return true;
      }
      spec.interval_ns = v;
      spec.in_jiffies = true;
      spec.randomize = rnd;
      spec.family = this;
      return true;
    } else {
      if (v <= 0 || v > kMaxNs / *scale) {
        diags.report(DiagId::SemProbeArg, c[1].arg->loc, "timer." + unit, "an interval of at most one day");
        return true;
      }
      spec.interval_ns = v * *scale;
      spec.randomize = rnd * *scale;
    }
    if (spec.interval_ns < kMinNs) {
      diags.report(DiagId::SemProbeArg, c[1].arg->loc, "timer." + unit, "an interval of at least 100us");
      return true;
    }
    spec.family = this;
    return true;
  }

  std::vector<std::string> point_types() const override {
    std::vector<std::string> out;
    for (const char* u : {"s", "sec", "ms", "msec", "us", "usec", "ns", "nsec", "jiffies"}) {
      out.push_back(std::string("timer.") + u + "(number)");
      out.push_back(std::string("timer.") + u + "(number).randomize(number)");
    }
    out.push_back("timer.hz(number)");
    return out;
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_timer _stpx_timers[] =", "};");
    for (const ProbeSpec* p : probes) {
      const char* unit = p->in_jiffies ? " * TICK_NSEC" : "";
      w.line("{{ .probe = &_stpx_probes[{}], .interval_ns = {}ULL{}, .randomize_ns = {}ULL{} }},", p->index,
             p->interval_ns, unit, p->randomize, unit);
    }
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

// timer.profile (and its older name timer.profile.tick): every CPU's
// tick, in the interrupted code's context.
class ProfileFamily : public ProbeFamily {
 public:
  const char* name() const override { return "timer.profile"; }
  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.size() < 2 || c[0].name != "timer" || c[1].name != "profile") return false;
    for (size_t i = 0; i < c.size(); ++i) {
      if (c[i].arg) {
        diags.report(DiagId::SemBadProbePoint, c[i].arg->loc, "timer.profile takes no parameter");
        return true;
      }
    }
    if (c.size() > 3 || (c.size() == 3 && c[2].name != "tick")) {
      diags.report(DiagId::SemBadProbePoint, c.back().loc, "invalid suffix for probe");
      return true;
    }
    spec.family = this;
    return true;
  }
  std::vector<std::string> point_types() const override { return {"timer.profile", "timer.profile.tick"}; }
  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_profile _stpx_profiles[] =", "};");
    for (const ProbeSpec* p : probes) w.line("{{ .probe = &_stpx_probes[{}] }},", p->index);
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    w.line("rc = _stpx_profiles_arm(_stpx_profiles, ARRAY_SIZE(_stpx_profiles));");
    w.line("if (rc)");
    w.line("\treturn rc;");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_profiles_disarm(_stpx_profiles, ARRAY_SIZE(_stpx_profiles));");
  }
};

// "never": a probe that is checked like any other but never armed.
class NeverFamily : public ProbeFamily {
 public:
  bool unprivileged() const override { return true; }
  const char* name() const override { return "never"; }
  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != "never") return false;
    if (c.size() > 1) {
      diags.report(DiagId::SemBadProbePoint, c[1].loc, "invalid suffix for probe");
      return true;
    }
    if (c[0].arg) {
      diags.report(DiagId::SemBadProbePoint, c[0].arg->loc, "'never' takes no parameter");
      return true;
    }
    spec.family = this;
    return true;
  }
  std::vector<std::string> point_types() const override { return {"never"}; }
  void emit_tables(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_arm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_disarm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
};

}  // namespace

const ProbeFamily& timer_family() {
  static const TimerFamily f;
  return f;
}

const ProbeFamily& profile_family() {
  static const ProfileFamily f;
  return f;
}

const ProbeFamily& never_family() {
  static const NeverFamily f;
  return f;
}

}  // namespace stapx
