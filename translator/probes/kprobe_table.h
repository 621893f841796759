// The C that the kprobe-based families (kprobe.function, kernel.function,
// kernel.statement) share: one table of kprobes attached by symbol and
// offset, armed and disarmed by the runtime (runtime-c/probes/kprobes.c).
#pragma once

#include <string>
#include <vector>

#include "translator/codegen/cwriter.h"
#include "translator/probes/probe_family.h"

namespace stapx {

// Where a kprobe is registered: by `symbol` and `offset` into it, or, when
// `symbol` names more than one function, by `attach` and `attach_offset`.
// A module's symbols are "module:symbol", which the kernel resolves in the
// loaded module.
struct KprobeAddress : ProbeData {
  std::string symbol;
  uint64_t offset = 0;
  // A raw run-time address instead of a symbol (kprobe.statement(A).absolute).
  uint64_t raw = 0;
  std::string attach;
  uint64_t attach_offset = 0;
  // An entry probe on this kernel function may join the module's ftrace
  // batch (runtime-c/probes/kprobes.c): the function's address less
  // kFtraceReference's, which the runtime adds to the reference's run-time
  // address (the kernel's KASLR offset included).
  // Its size and whether other names share its address, for the runtime's
  // check that the kernel names that address as the table does.
  bool ftrace = false;
  int64_t ftrace_rel = 0;
  uint64_t ftrace_size = 0;
  bool ftrace_aliased = false;
};

// Marks `at` for the ftrace batch when it is a vmlinux function's entry
// that ctx's FtraceAddresses knows.
void set_ftrace_entry(KprobeAddress& at, const ProbeContext& ctx);

// Sets a kprobe-table probe's address, and from it the entry of its
// function (the symbol, or the same address from `attach`).
void set_kprobe_address(ProbeSpec& spec, std::shared_ptr<KprobeAddress> at);

namespace debug {
struct ProbeSite;
}

// The address of a DWARF or BTF site, in the kernel (`module` empty) or
// in a module.
std::shared_ptr<KprobeAddress> site_address(const std::string& module, const debug::ProbeSite& site);

// The table: one entry per probe, and before it one generated entry point
// per declaration of its entry (not .return) probes, so that each hit runs
// that declaration's handler with its locks and flags known at compile
// time (STPX_KPROBE_PRE), and one per declaration of its .return probes
// (STPX_KRETPROBE_HIT). Entry probes marked by set_ftrace_entry() carry
// their relative address for the ftrace batch.
void emit_kprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);
void emit_kprobe_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);
void emit_kprobe_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);

// A family whose probes are the entries of one such table, named table().
class KprobeTableFamily : public ProbeFamily {
 public:
  std::vector<const char*> runtime_files() const override {
    return {"probes/kprobes.c", "probes/entry_values.c"};
  }
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

// Kernel code inlined into functions the kernel will not kprobe (the kprobe
// blacklist, noinstr and entry code): such inlined sites are left out of a
// kernel.function or kernel.statement point, and one warning names them.
// The list of those functions (of the vmlinux the sites' DWARF is from) is
// read at the first inlined site only; a module's sites are all kept.
class InlinedSiteCheck {
 public:
  InlinedSiteCheck(const ProbeContext& ctx, bool module) : ctx_(ctx), read_(module || !ctx.env) {}
  // False (and noted) when the site is an inlined one the kernel refuses.
  bool keep(const debug::ProbeSite& site);
  // The warning, if any site was left out.
  void report(DiagSink& diags, SourceLoc at, const std::string& pattern) const;

 private:
  const ProbeContext& ctx_;
  bool read_;
  const KernelSymbols* syms_ = nullptr;
  std::vector<std::string> excluded_;
};

}  // namespace stapx
