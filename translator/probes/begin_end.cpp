// begin, end, error and their priority forms begin(N), end(N), error(N).
// They are not armed: the runtime's session code runs them in priority, then
// declaration, order; error probes instead of end probes when the session
// stops because of run-time errors.
#include <algorithm>

#include "translator/codegen/cwriter.h"
#include "translator/probes/families.h"

namespace stapx {

namespace {

class BeginEndFamily : public ProbeFamily {
 public:
  bool unprivileged() const override { return true; }
  explicit BeginEndFamily(const char* name) : name_(name) {}
  const char* name() const override { return name_; }
  const char* run_state() const override {
    return std::string(name_) == "begin" ? "STPX_STATE_STARTING" : "STPX_STATE_STOPPING";
  }

  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != name()) return false;
    if (c.size() > 1) {
      diags.report(DiagId::SemBadProbePoint, c[1].loc, "invalid suffix for probe");
      return true;
    }
    if (c[0].arg) {
      if (c[0].arg->kind != ast::ExprKind::Number) {
        diags.report(DiagId::SemProbeArg, c[0].arg->loc, name(), "a number (priority)");
        return true;
      }
      spec.priority = static_cast<const ast::NumberLit*>(c[0].arg)->value;
    }
    spec.family = this;
    return true;
  }

  std::vector<std::string> point_types() const override {
    return {name(), std::string(name()) + "(number)"};
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    std::vector<const ProbeSpec*> sorted = probes;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](auto* a, auto* b) { return a->priority < b->priority; });
    const char* n = name();
    {
      auto b = w.block(fmt::format("static const struct _stpx_probe *const _stpx_{}_probes[] =", n), "};");
      for (const ProbeSpec* p : sorted) w.line("&_stpx_probes[{}],", p->index);
      if (sorted.empty()) w.line("NULL,");
    }
    w.line("static const unsigned int _stpx_n_{} = {};", n, sorted.size());
  }
  void emit_arm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_disarm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}

 private:
  const char* name_;
};

}  // namespace

const ProbeFamily& begin_family() {
  static const BeginEndFamily f("begin");
  return f;
}
const ProbeFamily& end_family() {
  static const BeginEndFamily f("end");
  return f;
}
const ProbeFamily& error_family() {
  static const BeginEndFamily f("error");
  return f;
}

}  // namespace stapx
