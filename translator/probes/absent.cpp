// stap's probe point shapes that match nothing on any kernel stapx
// supports: a script that names one hears stap's "no match" (not "probe
// point mismatch"), and '?' leaves the point out.
#include <iterator>

#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

// Kernel markers (kernel.mark): gone from Linux since 2.6.32, so on every
// kernel stapx supports a marker point matches nothing, as in stap 4.8
// ("no match"), and "?" leaves it out silently.
constexpr const char* kAbsentShapes[] = {
    "kernel.mark(string)",
    "kernel.mark(string).format(string)",
};

class AbsentFamily : public ProbeFamily {
 public:
  const char* name() const override { return "absent"; }
  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out;
    for (size_t i = 0; i < std::size(kAbsentShapes); ++i) out.push_back({kAbsentShapes[i], static_cast<int>(i), true});
    return out;
  }
  void expand(const PointMatch& m, const ProbeSpec&, const ProbeContext&, std::vector<ProbeSpec>&,
              DiagSink& diags) const override {
    if (m.point->optional) return;  // "?": a point that does not resolve is left out
    diags.report(DiagId::SemNoMatch, m.arg_loc(1));
  }
  void emit_tables(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_arm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_disarm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
};

}  // namespace

const ProbeFamily& absent_family() {
  static const AbsentFamily f;
  return f;
}

}  // namespace stapx
