// begin, end, error and their priority forms begin(N), end(N), error(N).
// They are not armed: the runtime's session code runs them in priority, then
// declaration, order; error probes instead of end probes when the session
// stops because of run-time errors.
#include <algorithm>
#include <string_view>

#include "translator/codegen/cwriter.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

// begin(N): the order among the family's probes.
struct Priority : ProbeData {
  explicit Priority(int64_t v) : value(v) {}
  int64_t value;
};

class BeginEndFamily : public ProbeFamily {
 public:
  explicit BeginEndFamily(const char* name) : name_(name) {}
  bool unprivileged() const override { return true; }
  const char* name() const override { return name_; }
  RunState run_state() const override {
    return std::string_view(name_) == "begin" ? RunState::Starting : RunState::Stopping;
  }

  std::vector<PointPattern> patterns() const override {
    return {{text_}, {text_number_}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink&) const override {
    ProbeSpec spec = base;
    spec.family = this;
    spec.data = std::make_shared<Priority>(m.has_arg(0) ? m.number_arg(0) : 0);
    out.push_back(std::move(spec));
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    std::vector<const ProbeSpec*> sorted = probes;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const ProbeSpec* a, const ProbeSpec* b) { return a->data_as<Priority>().value < b->data_as<Priority>().value; });
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
  std::string text_ = name_, text_number_ = text_ + "(number)";
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
