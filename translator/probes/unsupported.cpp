// stap's kernel-side probe point shapes that stapx does not implement yet.
// Matching them here lets a script that uses one hear that plainly ("...
// is not implemented in this stapx version") instead of "probe point
// mismatch"; none is listed by --dump-probe-types. A family that comes to
// implement a shape takes its line out of this list.
#include <iterator>

#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

constexpr const char* kShapes[] = {
    "kernel.mark(string)",
    "kernel.mark(string).format(string)",
    "module(string).function(number)",
    "module(string).function(number).call",
    "module(string).function(number).exported",
    "module(string).function(number).return",
    "module(string).function(number).return.maxactive(number)",
    "module(string).statement(number).nearest",
};

class UnsupportedFamily : public ProbeFamily {
 public:
  const char* name() const override { return "unsupported"; }
  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out;
    for (size_t i = 0; i < std::size(kShapes); ++i) out.push_back({kShapes[i], static_cast<int>(i), false});
    return out;
  }
  void expand(const PointMatch& m, const ProbeSpec&, const ProbeContext&, std::vector<ProbeSpec>&,
              DiagSink& diags) const override {
    if (m.point->optional) return;  // "?": a point that does not resolve is left out
    diags.report(DiagId::SemUnsupported, m.point->loc, std::string("probe point ") + kShapes[m.tag]);
  }
  void emit_tables(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_arm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
  void emit_disarm(CWriter&, const std::vector<const ProbeSpec*>&) const override {}
};

}  // namespace

const ProbeFamily& unsupported_family() {
  static const UnsupportedFamily f;
  return f;
}

}  // namespace stapx
