// process.begin, process.end, process.thread.begin, process.thread.end:
// for every user process (of the -c/-x target's tree when there is a
// target), or process("PATH")... (each file a glob matches), or
// process(PID)... (runtime-c/probes/process_events.c says when each runs).
#include <fmt/format.h>

#include <cstdlib>

#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_family.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

namespace {

enum Kind { kBegin, kEnd, kThreadBegin, kThreadEnd, kSyscall, kSyscallReturn };
constexpr const char* kKindC[] = {"STPX_PE_BEGIN",      "STPX_PE_END",     "STPX_PE_THREAD_BEGIN",
                                  "STPX_PE_THREAD_END", "STPX_PE_SYSCALL", "STPX_PE_SYSCALL_RETURN"};
constexpr const char* kKindText[] = {"begin", "end", "thread.begin", "thread.end", "syscall", "syscall.return"};

struct ProcessEvent : ProbeData {
  Kind kind = kBegin;
  std::string path;  // empty: any
  int64_t pid = 0;   // 0: any
  std::string user_file() const override { return path; }
};

class ProcessEventFamily : public ProbeFamily {
 public:
  const char* name() const override { return "process events"; }
  // (For --privilege=stapusr they fire in the user's own processes only.)
  bool unprivileged() const override { return true; }
  std::vector<const char*> runtime_files() const override {
    return {"probes/tracepoints.c", "probes/process_events.c"};
  }
  std::vector<PointPattern> patterns() const override {
    // (Pattern texts are kept by the registry: literals.)
    return {{"process.begin", kBegin},
            {"process(string).begin", kBegin},
            {"process(number).begin", kBegin},
            {"process.end", kEnd},
            {"process(string).end", kEnd},
            {"process(number).end", kEnd},
            {"process.thread.begin", kThreadBegin},
            {"process(string).thread.begin", kThreadBegin},
            {"process(number).thread.begin", kThreadBegin},
            {"process.thread.end", kThreadEnd},
            {"process(string).thread.end", kThreadEnd},
            {"process(number).thread.end", kThreadEnd},
            {"process.syscall", kSyscall},
            {"process(string).syscall", kSyscall},
            {"process(number).syscall", kSyscall},
            {"process.syscall.return", kSyscallReturn},
            {"process(string).syscall.return", kSyscallReturn},
            {"process(number).syscall.return", kSyscallReturn}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const Kind kind = static_cast<Kind>(m.tag);
    auto add = [&](const std::string& who, std::string path, int64_t pid) {
      ProbeSpec spec = base;
      spec.family = this;
      spec.pp = fmt::format("{}.{}", who, kKindText[kind]);
      auto e = std::make_shared<ProcessEvent>();
      e->kind = kind;
      e->path = std::move(path);
      e->pid = pid;
      spec.data = std::move(e);
      out.push_back(std::move(spec));
    };
    const ast::ProbePointComponent& first = m.component(0);
    if (!first.arg) {
      add("process", "", 0);
    } else if (first.arg->kind == ast::ExprKind::Number) {
      if (int64_t pid = process_pid(m, diags)) add(fmt::format("process({})", pid), "", pid);
    } else {
      for (const debug::UserBinary* bin : process_binaries(m, ctx, diags))
        add(fmt::format("process(\"{}\")", bin->path()), bin->path(), 0);
    }
  }

  // $syscall, $arg1..$arg6 and (.syscall.return) $return, with stap's
  // messages for the rest.
  bool has_context_vars() const override { return true; }
  std::optional<ContextVar> context_var(const ast::TargetExpr& t, const ProbeSpec& spec,
                                        DiagSink& diags) const override {
    const Kind kind = spec.data_as<ProcessEvent>().kind;
    const std::string name(t.base.view());
    if (kind != kSyscall && kind != kSyscallReturn) {
      diags.report(DiagId::SemProcessTarget, t.loc,
                   "only \"process(PATH_OR_PID).syscall\" and \"process(PATH_OR_PID).syscall.return\" probes "
                   "support target symbols");
      return std::nullopt;
    }
    const std::string hit = "((struct _stpx_pe_hit *)c->family_data)->";
    ContextVar v;
    v.readable = true;
    if (name == "$syscall") {
      v.c_expr = hit + "syscall";
    } else if (name == "$return") {
      if (kind != kSyscallReturn) {
        diags.report(DiagId::SemProcessTarget, t.loc, "only \"process(PATH_OR_PID).syscall.return\" support $return.");
        return std::nullopt;
      }
      v.c_expr = hit + "ret";
    } else if (name.size() > 4 && name.compare(0, 4, "$arg") == 0 &&
               name.find_first_not_of("0123456789", 4) == std::string::npos) {
      long n = std::strtol(name.c_str() + 4, nullptr, 10);
      if (n < 1 || n > 6) {
        diags.report(DiagId::SemProcessTarget, t.loc, "invalid syscall argument number (1-6)");
        return std::nullopt;
      }
      v.c_expr = fmt::format("(int64_t){}args[{}]", hit, n - 1);
    } else {
      diags.report(DiagId::SemProcessTarget, t.loc, "unknown context variable; a system call probe has $syscall, "
                   "$arg1..$arg6 and, at its return, $return");
      return std::nullopt;
    }
    if (!t.components.empty() || !t.pretty.empty()) {
      diags.report(DiagId::SemUnsupported, t.loc, "'->', '[]' or pretty printing on a system call's number (use @cast)");
      return std::nullopt;
    }
    return v;
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_proc_event _stpx_proc_events[] =", "};");
    for (const ProbeSpec* p : probes) {
      const ProcessEvent& e = p->data_as<ProcessEvent>();
      w.line("{{ .probe = &_stpx_probes[{}], .kind = {}, .path = {}, .pid = {} }},", p->index, kKindC[e.kind],
             e.path.empty() ? "NULL" : codegen::c_string(e.path), e.pid);
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_process_events_arm(_stpx_proc_events, ARRAY_SIZE(_stpx_proc_events))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    w.line("_stpx_process_events_disarm(_stpx_proc_events, ARRAY_SIZE(_stpx_proc_events));");
  }
};

}  // namespace

const ProbeFamily& process_event_family() {
  static const ProcessEventFamily family;
  return family;
}

}  // namespace stapx
