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
