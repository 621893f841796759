// A probe family ("begin", "timer", "kprobe", ...) is one plugin: it
// declares the probe points it accepts as patterns, turns each point that
// fits one into probes during elaboration, and emits the tables that the
// runtime's probes code arms and disarms. A family is one file under
// translator/probes/ and one line in families.def.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/probes/point_grammar.h"

namespace stapx {

class CWriter;
class FtraceAddresses;
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
  // Where a probe on a kernel function's entry can join the ftrace batch
  // (kprobe_table.h), opened on first call; null when nothing says.
  std::function<const FtraceAddresses*()> ftrace_addresses;
  // The target's debug information (DWARF or BTF), opened on first use.
  ProbeEnv* env = nullptr;
  bool guru = false;  // -g: points only guru mode admits (kernel.statement(ADDR).absolute)
  // --skip-badvars: a $var that does not resolve reads as 0, with a warning.
  bool skip_badvars = false;
  // -P, --prologue-searching=WHEN: where function probes go.
  debug::Prologue prologue = debug::Prologue::Auto;
  // -c COMMAND and -x PID: a process(...) point without a PATH probes the
  // command's program.
  std::string target_command;
  long target_pid = 0;
};

// The runtime state a probe's handler runs in (runtime-c/session.h).
enum class RunState { Starting, Running, Stopping };
const char* run_state_c(RunState s);  // "STPX_STATE_RUNNING"

// What a family keeps about each of its probes beyond what every probe
// has: a timer's interval, a kprobe's symbol. Each family derives its own.
struct ProbeData {
  virtual ~ProbeData() = default;
  // The user-space program or library the probe is in (process(...)
  // points), whose symbols and unwind rows the module carries; "" if none.
  virtual std::string user_file() const { return {}; }
};

// One resolved probe point of one probe declaration.
struct ProbeSpec {
  const ProbeFamily* family = nullptr;
  ast::ProbeDecl* decl = nullptr;
  ast::ProbePoint* point = nullptr;
  std::string pp;  // canonical probe point text, as pp() shows it
  // pn() and -l's text where they are not pp (outside aliases): a callee's
  // point, which stap names by caller and callee.
  std::string pn;
  // pn() and -l's text: the alias's name, else `pn`, else `point` (pp as
  // the caller shows it).
  const std::string& pn_text(const std::string& point) const {
    return decl && !decl->pn.empty() ? decl->pn : !pn.empty() ? pn : point;
  }
  int index = 0;   // position in the module's probe table
  // probefunc(): the symbol the probe is attached to; empty for points
  // that name no function. (ppfunc() comes from pp.)
  std::string probefunc;
  // Probes that read target variables: the address's variables, whether
  // the probe fires on the function's return, and where the function's
  // entry is (symbol and offset), for entry values read away from it.
  std::shared_ptr<const debug::ProbeSite> site;
  bool is_return = false;
  int64_t maxactive = 0;  // .return.maxactive(N): kretprobe instances (0: the kernel's default)
  std::string entry_symbol;
  uint64_t entry_offset = 0;
  // The family's own data, of the family's own type.
  std::shared_ptr<const ProbeData> data;
  // That data holds a link-time kernel address, which the module moves as
  // KASLR moved the kernel (kernel.data("symbol")).
  bool link_address = false;

  template <typename T>
  const T& data_as() const {
    return static_cast<const T&>(*data);
  }
};

// A $name that a family's probes give their handlers without debug
// information (procfs's $value, netfilter's $skb): through the C
// expression `c_expr`, a string (a struct _stpx_text pointer,
// runtime-c/probes/procfs.c) or a number (an lvalue), which the handler
// may read when `readable` and assign when `writable` (else a write is
// `write_diag`, at the name).
struct ContextVar {
  std::string c_expr;
  bool is_string = false;
  bool readable = false, writable = false;
  DiagId write_diag = DiagId::SemTargetWrite;
  // A string made as snprintf(format, parts...) makes it, each part a
  // number's C expression, %#llx in `format` ($$parms of a mark; with no
  // parts, a constant: $$name).
  bool formatted = false;
  std::string format;
  std::vector<std::string> parts;
  // c_expr is a `const char *` that stays put (the probe table's), read
  // only: a string without a copy per point.
  bool c_string = false;
};

class ProbeFamily {
 public:
  virtual ~ProbeFamily() = default;
  // Whether a body that reads this family's context variables needs a
  // copy per probe point (their C differs by point); false when they are
  // read from the probe's own table entry at run time.
  virtual bool context_vars_per_point() const { return true; }
  virtual const char* name() const = 0;
  // The point shapes this family accepts (point_grammar.h).
  virtual std::vector<PointPattern> patterns() const = 0;
  // Turns a point that fits one of the patterns into probes: one, many (a
  // wildcard, a function with inlined copies) or none (an optional point
  // that names nothing); reports what is wrong with the point otherwise.
  // `base` carries the declaration, the point and its text.
  virtual void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx,
                      std::vector<ProbeSpec>& out, DiagSink& diags) const = 0;
  // C declarations of this family's probe table, for the given probes (all
  // of this family, in table order).
  virtual void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const = 0;
  // C statements that arm (return an errno on failure) and disarm them.
  virtual void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const = 0;
  virtual void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const = 0;
  // The family's part of the runtime (under runtime-c/), included by every
  // module after runtime.h: "probes/timers.c".
  virtual std::vector<const char*> runtime_files() const { return {}; }
  // Checks among all of this family's probes (two procfs read probes on
  // one file), once every point has been expanded.
  virtual void check_all(const std::vector<const ProbeSpec*>&, DiagSink&) const {}
  // Whether this family's probes have $names of their own (context_var).
  virtual bool has_context_vars() const { return false; }
  // The $name `t` in a handler of `spec`; reports why not and returns
  // nullopt if there is no such name.
  virtual std::optional<ContextVar> context_var(const ast::TargetExpr& /*t*/, const ProbeSpec& /*spec*/,
                                                DiagSink& /*diags*/) const {
    return std::nullopt;
  }
  // What -L lists after a point of this family that has no debug site:
  // its $names, each "$name:type" (a mark's "$arg1:long").
  virtual std::vector<std::string> listed_vars(const ProbeSpec& /*spec*/) const { return {}; }
  // Probe handlers run in this runtime state (begin: Starting, end: Stopping).
  virtual RunState run_state() const { return RunState::Running; }
  // May a script checked with --privilege=stapusr use this family's points?
  // (stap's list: begin, end, error, never, timer.{jiffies,s,ms,us,ns,hz}.)
  virtual bool unprivileged() const { return false; }
};

// A return point's suffix: .return, or .return.maxactive(N) when the
// point's last component is maxactive (N its number argument, 0..32767,
// else stap's error and false). Sets spec.is_return and spec.maxactive.
bool take_return_suffix(const PointMatch& m, ProbeSpec& spec, DiagSink& diags);

// ".return", ".return.maxactive(N)" or "" for a point's pp().
inline std::string return_text(const ProbeSpec& p) {
  if (!p.is_return) return "";
  return p.maxactive ? ".return.maxactive(" + std::to_string(p.maxactive) + ")" : ".return";
}

// `rc = CALL; if (rc) return rc;`: an emit_arm step whose failure stops
// the arming (CALL: "_stpx_timers_arm(_stpx_timers, ARRAY_SIZE(...))").
void emit_arm_call(CWriter& w, const std::string& call);

// Every family, in the order their tables are emitted and armed.
const std::vector<const ProbeFamily*>& probe_families();

// The counter name of a perf ....counter("NAME") probe, for @perf("NAME");
// "" for any other probe.
std::string perf_counter_name(const ProbeSpec& spec);
const ProbeFamily& perf_family();

}  // namespace stapx
