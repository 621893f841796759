// process.begin, process.end, process.thread.begin, process.thread.end:
// for every user process (of the -c/-x target's tree when there is a
// target), or process("PATH")... (each file a glob matches), or
// process(PID)... (runtime-c/probes/process_events.c says when each runs).
#include <fmt/format.h>

#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_family.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

namespace {

enum Kind { kBegin, kEnd, kThreadBegin, kThreadEnd };
constexpr const char* kKindC[] = {"STPX_PE_BEGIN", "STPX_PE_END", "STPX_PE_THREAD_BEGIN", "STPX_PE_THREAD_END"};
constexpr const char* kKindText[] = {"begin", "end", "thread.begin", "thread.end"};

struct ProcessEvent : ProbeData {
  Kind kind = kBegin;
  std::string path;  // empty: any
  int64_t pid = 0;   // 0: any
};

class ProcessEventFamily : public ProbeFamily {
 public:
  const char* name() const override { return "process events"; }
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
            {"process(number).thread.end", kThreadEnd}};
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
      int64_t pid = m.number_arg(0);
      if (pid < 1 || pid > 4194304) {  // the kernel's PID_MAX_LIMIT
        diags.report(DiagId::SemProbeArg, m.arg_loc(0), "process(PID)", "a process id");
        return;
      }
      add(fmt::format("process({})", pid), "", pid);
    } else {
      for (const debug::UserBinary* bin : process_binaries(m, ctx, diags))
        add(fmt::format("process(\"{}\")", bin->path()), bin->path(), 0);
    }
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
    if (!probes.empty())
      emit_arm_call(w, "_stpx_process_events_arm(_stpx_proc_events, ARRAY_SIZE(_stpx_proc_events))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_process_events_disarm(_stpx_proc_events, ARRAY_SIZE(_stpx_proc_events));");
  }
};

}  // namespace

const ProbeFamily& process_event_family() {
  static const ProcessEventFamily family;
  return family;
}

}  // namespace stapx
