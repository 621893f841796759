// The C that the kprobe-based families (kprobe.function, kernel.function,
// kernel.statement) share: one table of kprobes attached by symbol and
// offset, armed and disarmed by the runtime (runtime-c/probes/kprobes.c).
#pragma once

#include <vector>

#include "translator/codegen/cwriter.h"
#include "translator/probes/probe_family.h"

namespace stapx {

// The table: one entry per probe, and before it one generated entry point
// per declaration of its entry (not .return) probes, so that each hit runs
// that declaration's handler with its locks and flags known at compile
// time (STPX_KPROBE_PRE).
void emit_kprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);
void emit_kprobe_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);
void emit_kprobe_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);

// A family whose probes are the entries of one such table, named table().
class KprobeTableFamily : public ProbeFamily {
 public:
  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    emit_kprobe_table(w, probes, table());
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    emit_kprobe_arm(w, probes, table());
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    emit_kprobe_disarm(w, probes, table());
  }

 protected:
  virtual const char* table() const = 0;
};

}  // namespace stapx
