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
    "module(string).function(number)",
    "module(string).function(number).call",
    "module(string).function(number).exported",
    "module(string).function(number).return",
    "module(string).function(number).return.maxactive(number)",
    "module(string).statement(number).nearest",
};

// Kernel markers (kernel.mark): gone from Linux since 2.6.32, so on every
// kernel stapx supports a marker point matches nothing, as in stap 4.8
// ("no match"), and "?" leaves it out silently.
constexpr const char* kAbsentShapes[] = {
    "kernel.mark(string)",
    "kernel.mark(string).format(string)",
};

class UnsupportedFamily : public ProbeFamily {
 public:
  const char* name() const override { return "unsupported"; }
  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out;
    for (size_t i = 0; i < std::size(kShapes); ++i) out.push_back({kShapes[i], static_cast<int>(i), false});
    for (size_t i = 0; i < std::size(kAbsentShapes); ++i)
      out.push_back({kAbsentShapes[i], static_cast<int>(std::size(kShapes) + i), true});
    return out;
  }
  void expand(const PointMatch& m, const ProbeSpec&, const ProbeContext&, std::vector<ProbeSpec>&,
              DiagSink& diags) const override {
    if (m.point->optional) return;  // "?": a point that does not resolve is left out
    if (static_cast<size_t>(m.tag) >= std::size(kShapes))
      diags.report(DiagId::SemNoMatch, m.arg_loc(1));
    else
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
