// The one list of probe families, from families.def.
#include "translator/probes/probe_family.h"

#include "translator/codegen/cwriter.h"

namespace stapx {

#define STAPX_FAMILY(fn) const ProbeFamily& fn();
#include "translator/probes/families.def"
#undef STAPX_FAMILY

const std::vector<const ProbeFamily*>& probe_families() {
  static const std::vector<const ProbeFamily*> families = {
#define STAPX_FAMILY(fn) &fn(),
#include "translator/probes/families.def"
#undef STAPX_FAMILY
  };
  return families;
}

bool take_return_suffix(const PointMatch& m, ProbeSpec& spec, DiagSink& diags) {
  std::string_view last = m.component(m.size() - 1).name;
  spec.is_return = last == "return" || last == "maxactive";
  spec.maxactive = 0;  // the kernel's default
  if (last != "maxactive") return true;
  spec.maxactive = m.number_arg(m.size() - 1);
  if (spec.maxactive >= 0 && spec.maxactive <= 32767) return true;
  diags.report_early(DiagId::SemMaxactiveRange, m.point->loc);
  return false;
}

void emit_arm_call(CWriter& w, const std::string& call) {
  w.line("rc = {};", call);
  w.line("if (rc)");
  w.line("\treturn rc;");
}

const char* run_state_c(RunState s) {
  switch (s) {
    case RunState::Starting: return "STPX_STATE_STARTING";
    case RunState::Running: return "STPX_STATE_RUNNING";
    case RunState::Stopping: return "STPX_STATE_STOPPING";
  }
  return "STPX_STATE_RUNNING";
}

}  // namespace stapx
