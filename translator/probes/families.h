// The probe families stapx knows; registry.cpp lists them in match order.
#pragma once

#include "translator/probes/probe_family.h"

namespace stapx {

const ProbeFamily& begin_family();
const ProbeFamily& end_family();
const ProbeFamily& error_family();
const ProbeFamily& timer_family();
const ProbeFamily& profile_family();
const ProbeFamily& never_family();
const ProbeFamily& kprobe_family();
const ProbeFamily& kernel_function_family();
const ProbeFamily& kernel_statement_family();
const ProbeFamily& module_statement_family();
const ProbeFamily& module_function_family();
const ProbeFamily& kernel_trace_family();

}  // namespace stapx
