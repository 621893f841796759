// begin, end and their priority forms begin(N), end(N). They are not armed:
// the runtime's session code runs them in priority, then declaration, order.
#include <algorithm>

#include "translator/codegen/cwriter.h"
#include "translator/probes/families.h"

namespace stapx {

namespace {

class BeginEndFamily : public ProbeFamily {
 public:
  explicit BeginEndFamily(bool is_end) : end_(is_end) {}
  const char* name() const override { return end_ ? "end" : "begin"; }
  const char* run_state() const override {
    return end_ ? "STPX_STATE_STOPPING" : "STPX_STATE_STARTING";
  }

  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != name()) return false;
    if (c.size() > 1) {
      diags.report(DiagId::SemBadProbePoint, c[1].loc, "unexpected '" + c[1].name + "' after " + name());
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
  bool end_;
};

}  // namespace

const ProbeFamily& begin_family() {
  static const BeginEndFamily f(false);
  return f;
}
const ProbeFamily& end_family() {
  static const BeginEndFamily f(true);
  return f;
}

}  // namespace stapx
