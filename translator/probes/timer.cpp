// timer.ms(N), timer.s(N), timer.sec(N), timer.us(N), timer.ns(N),
// timer.jiffies(N), timer.hz(N), each optionally .randomize(M): periodic
// hrtimers (runtime-c/probes/timers.c). A jiffies interval is converted
// with the target kernel's TICK_NSEC when the module is built.
// timer.profile: a pinned hrtimer per CPU at the tick rate.
#include "translator/codegen/cwriter.h"
#include "translator/probes/probe_family.h"

#include <iterator>
#include <string_view>

namespace stapx {

namespace {

constexpr int64_t kMinNs = 100000;  // 100us, as stap
constexpr int64_t kMaxNs = 86400LL * 1000000000LL;  // one day, as stap

// The units of timer.UNIT(N), with their length in ns (0: not fixed).
struct Unit {
  const char* name;
  int64_t ns;
};
constexpr Unit kUnits[] = {{"s", 1000000000}, {"sec", 1000000000}, {"ms", 1000000}, {"msec", 1000000},
                           {"us", 1000},      {"usec", 1000},      {"ns", 1},       {"nsec", 1},
                           {"jiffies", 0},    {"hz", 0}};

// A periodic timer: its interval and the most its start is moved by
// .randomize, in ns or, for timer.jiffies, in jiffies.
struct Interval : ProbeData {
  int64_t interval = 0, randomize = 0;
  bool in_jiffies = false;
};

class TimerFamily : public ProbeFamily {
 public:
  TimerFamily() {
    for (size_t i = 0; i < std::size(kUnits); ++i) {
      std::string unit = std::string("timer.") + kUnits[i].name + "(number)";
      texts_.emplace_back(unit, static_cast<int>(i));
      if (std::string_view(kUnits[i].name) != "hz") texts_.emplace_back(unit + ".randomize(number)", static_cast<int>(i));
    }
  }
  bool unprivileged() const override { return true; }
  const char* name() const override { return "timer"; }
  std::vector<const char*> runtime_files() const override { return {"probes/timers.c"}; }

  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out;
    for (const auto& [text, unit] : texts_) out.push_back({text, unit});  // tag: the unit's index
    return out;
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const Unit& unit = kUnits[m.tag];
    const std::string what = std::string("timer.") + unit.name;
    auto t = std::make_shared<Interval>();
    int64_t v = m.number_arg(1);
    int64_t rnd = 0;
    if (m.size() == 3) {
      rnd = m.number_arg(2);
      if (rnd < 0 || rnd > v) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(2), "randomize", "a value from 0 to the interval");
        return;
      }
    }
    if (std::string_view(unit.name) == "hz") {
      if (v <= 0) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(1), what, "a frequency greater than 0");
        return;
      }
      t->interval = 1000000000 / v;
    } else if (std::string_view(unit.name) == "jiffies") {
      // At most a day at HZ=1000; TICK_NSEC is applied in C.
      if (v <= 0 || v > kMaxNs / 1000000) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(1), what, "a valid jiffies interval");
        return;
      }
      t->interval = v;
      t->in_jiffies = true;
      t->randomize = rnd;
    } else {
      if (v <= 0 || v > kMaxNs / unit.ns) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(1), what,
                     v <= 0 ? "an interval greater than 0" : "an interval of at most one day");
        return;
      }
      t->interval = v * unit.ns;
      t->randomize = rnd * unit.ns;
    }
    if (!t->in_jiffies && t->interval < kMinNs) {
      diags.report(DiagId::SemProbeArg, m.arg_loc(1), what, "an interval of at least 100us");
      return;
    }
    ProbeSpec spec = base;
    spec.family = this;
    spec.data = std::move(t);
    out.push_back(std::move(spec));
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_timer _stpx_timers[] =", "};");
    for (const ProbeSpec* p : probes) {
      const Interval& t = p->data_as<Interval>();
      const char* unit = t.in_jiffies ? " * TICK_NSEC" : "";
      w.line("{{ .probe = &_stpx_probes[{}], .interval_ns = {}ULL{}, .randomize_ns = {}ULL{} }},", p->index,
             t.interval, unit, t.randomize, unit);
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_timers_arm(_stpx_timers, ARRAY_SIZE(_stpx_timers))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_timers_disarm(_stpx_timers, ARRAY_SIZE(_stpx_timers));");
  }

 private:
  std::vector<std::pair<std::string, int>> texts_;
};

// timer.profile (and its older name timer.profile.tick): every CPU's
// tick, in the interrupted code's context.
class ProfileFamily : public ProbeFamily {
 public:
  const char* name() const override { return "timer.profile"; }
  std::vector<const char*> runtime_files() const override { return {"probes/timers.c"}; }
  std::vector<PointPattern> patterns() const override { return {{"timer.profile"}, {"timer.profile.tick"}}; }
  void expand(const PointMatch&, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink&) const override {
    ProbeSpec spec = base;
    spec.family = this;
    out.push_back(std::move(spec));
  }
  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_profile _stpx_profiles[] =", "};");
    for (const ProbeSpec* p : probes) w.line("{{ .probe = &_stpx_probes[{}] }},", p->index);
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_profiles_arm(_stpx_profiles, ARRAY_SIZE(_stpx_profiles))");
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
  std::vector<PointPattern> patterns() const override { return {{"never"}}; }
  void expand(const PointMatch&, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink&) const override {
    ProbeSpec spec = base;
    spec.family = this;
    out.push_back(std::move(spec));
  }
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
