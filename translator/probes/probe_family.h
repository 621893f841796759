// A probe family ("begin", "timer", "kprobe", ...) is one plugin: it claims
// the probe points it understands during elaboration and emits the tables
// that the runtime's probes code arms and disarms. Families are listed once,
// in registry.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace stapx {

class CWriter;
class KernelSymbols;
class ProbeEnv;
class ProbeFamily;
namespace debug {
struct ProbeSite;
}

// What a family may consult while expanding a point.
struct ProbeContext {
  // The target kernel's function symbols, opened on first call; null when
  // there is no symbol table for the target.
  std::function<const KernelSymbols*()> kernel_symbols;
  // The target's debug information (DWARF or BTF), opened on first use.
  ProbeEnv* env = nullptr;
  bool guru = false;  // -g: points only guru mode admits (kernel.statement(ADDR).absolute)
};

// One resolved probe point of one probe declaration.
struct ProbeSpec {
  const ProbeFamily* family = nullptr;
  ast::ProbeDecl* decl = nullptr;
  ast::ProbePoint* point = nullptr;
  std::string pp;  // canonical probe point text, as pp() shows it
  int index = 0;   // position in the module's probe table
  // Family-specific data.
  std::string symbol;       // kprobe: function symbol
  uint64_t offset = 0;      // kernel.function: address - symbol
  // kernel.function/statement: the kprobe is registered by this symbol
  // and attach_offset instead, when `symbol` names more than one function.
  std::string attach;
  uint64_t attach_offset = 0;
  std::shared_ptr<const debug::ProbeSite> site;  // kernel.function: the address's variables
  bool is_return = false;   // kprobe: .return
  int64_t interval_ns = 0;  // timer (for timer.jiffies: in jiffies)
  int64_t randomize = 0;    // timer: .randomize(M), in the interval's unit
  bool in_jiffies = false;  // timer.jiffies: interval_ns and randomize count jiffies
  int64_t priority = 0;     // begin/end sequence
};

class ProbeFamily {
 public:
  virtual ~ProbeFamily() = default;
  virtual const char* name() const = 0;
  // True if this family owns the point (its first component); fills `spec`
  // or reports why the point is malformed.
  virtual bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const = 0;
  // Like match, for families whose one point stands for many probes (a
  // wildcard) or none (an optional point that names nothing): appends one
  // spec per probe to `out`. By default, match().
  virtual bool expand(const ast::ProbePoint& point, const ProbeSpec& base, const ProbeContext& ctx,
                      std::vector<ProbeSpec>& out, DiagSink& diags) const {
    (void)ctx;
    ProbeSpec spec = base;
    if (!match(point, spec, diags)) return false;
    if (spec.family) out.push_back(std::move(spec));
    return true;
  }
  // C declarations of this family's probe table, for the given probes (all
  // of this family, in table order).
  virtual void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const = 0;
  // C statements that arm (return an errno on failure) and disarm them.
  virtual void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const = 0;
  virtual void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const = 0;
  // The point shapes this family accepts, for --dump-probe-types, in stap's
  // notation: "timer.ms(number)", "kprobe.function(string).return".
  virtual std::vector<std::string> point_types() const { return {}; }
  // Probe handlers run in this runtime state (begin: STARTING, end: STOPPING).
  virtual const char* run_state() const { return "STPX_STATE_RUNNING"; }
  // May a script checked with --privilege=stapusr use this family's points?
  // (stap's list: begin, end, error, never, timer.{jiffies,s,ms,us,ns,hz}.)
  virtual bool unprivileged() const { return false; }
};

const std::vector<const ProbeFamily*>& probe_families();

}  // namespace stapx
