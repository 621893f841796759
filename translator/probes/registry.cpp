// The one list of probe families, in the order they are asked to match.
#include "translator/probes/families.h"

namespace stapx {

const std::vector<const ProbeFamily*>& probe_families() {
  static const std::vector<const ProbeFamily*> families = {
      &begin_family(), &end_family(), &error_family(), &profile_family(), &timer_family(), &never_family(),
      &kprobe_family(), &kernel_function_family(), &module_function_family(), &kernel_statement_family(), &module_statement_family(),
      &kernel_trace_family()};
  return families;
}

}  // namespace stapx
