// The probe families stapx knows; registry.cpp lists them in match order.
#pragma once

#include "translator/probes/probe_family.h"

namespace stapx {

const ProbeFamily& begin_family();
const ProbeFamily& end_family();
const ProbeFamily& error_family();
const ProbeFamily& timer_family();
const ProbeFamily& never_family();
const ProbeFamily& kprobe_family();
const ProbeFamily& kernel_function_family();
const ProbeFamily& kernel_trace_family();

// The kprobe table NAME of a family that arms struct _stpx_kprobe
// (kprobe.function, kernel.function): one entry per probe, and before it
// one generated entry point per declaration of its entry (not .return)
// probes, so that each hit runs that declaration's handler with its
// locks and flags known at compile time (STPX_KPROBE_PRE).
void emit_kprobe_table(CWriter& w, const std::string& name, const std::vector<const ProbeSpec*>& probes);

}  // namespace stapx
