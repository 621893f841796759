// kernel.data(ADDRESS)[.length(N)].write / .rw and kernel.data("symbol")
// .write / .rw: hardware watchpoints (runtime-c/probes/watchpoints.c). A
// length is rounded up to what x86 watches (1, 2, 4 or 8 bytes; more is
// refused), as stapprobes(3stap) says; a symbol is found in the kernel's
// symbol table at its link-time address, which the module moves as KASLR
// moved the kernel. More points than the 4 debug registers is a warning.
#include <fmt/format.h>

#include "translator/codegen/cwriter.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/probes/probe_env.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

constexpr int kDebugRegisters = 4;

struct Watch : ProbeData {
  uint64_t addr = 0;
  bool relocate = false;  // a symbol's link-time address
  int len = 1;
  bool rw = false;
};

class KernelDataFamily : public ProbeFamily {
 public:
  const char* name() const override { return "kernel.data"; }
  std::vector<const char*> runtime_files() const override { return {"probes/watchpoints.c"}; }
  std::vector<PointPattern> patterns() const override {
    return {{"kernel.data(number).write"},
            {"kernel.data(number).rw"},
            {"kernel.data(number).length(number).write"},
            {"kernel.data(number).length(number).rw"},
            {"kernel.data(string).write"},
            {"kernel.data(string).rw"}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    auto w = std::make_shared<Watch>();
    w->rw = m.component(m.size() - 1).name == "rw";
    const ast::Expr* what = m.component(1).arg;
    if (what->kind == ast::ExprKind::String) {
      const std::string sym = m.string_arg(1);
      debug::DebugInfo* di = ctx.env ? ctx.env->debuginfo(diags, m.arg_loc(1)) : nullptr;
      if (!di) return;  // reported
      std::optional<uint64_t> addr = di->symbol_address(sym);
      if (!addr) {
        diags.report(DiagId::SemDataSymbol, m.arg_loc(1), sym);
        return;
      }
      w->addr = *addr;
      w->relocate = true;
    } else {
      w->addr = static_cast<uint64_t>(m.number_arg(1));
    }
    int64_t given = 1;  // (stap's default, which pp() names)
    if (m.size() == 4) {
      int64_t len = given = m.number_arg(2);
      if (len <= 0 || len > 8) {
        diags.report(DiagId::SemProbeArg, m.arg_loc(2), "kernel.data", "a length of 1 to 8 bytes (x86's most)");
        return;
      }
      w->len = len <= 1 ? 1 : len <= 2 ? 2 : len <= 4 ? 4 : 8;
    }
    ProbeSpec spec = base;
    spec.family = this;
    // As stap names it: the address in hex, the length always.
    spec.pp = fmt::format("kernel.data({}).length({}).{}",
                          what->kind == ast::ExprKind::String ? fmt::format("\"{}\"", m.string_arg(1))
                                                              : fmt::format("{:#x}", w->addr),
                          given, w->rw ? "rw" : "write");
    spec.link_address = w->relocate;
    spec.data = std::move(w);
    out.push_back(std::move(spec));
  }

  void check_all(const std::vector<const ProbeSpec*>& probes, DiagSink& diags) const override {
    if (probes.size() > kDebugRegisters)
      diags.report(DiagId::WarnTooManyWatchpoints, probes[kDebugRegisters]->point->loc, probes.size(),
                   kDebugRegisters);
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_watch _stpx_watches[] =", "};");
    for (const ProbeSpec* p : probes) {
      const Watch& x = p->data_as<Watch>();
      w.line("{{ .probe = &_stpx_probes[{}], .addr = {:#x}UL, .relocate = {}, .len = {}, .rw = {} }},", p->index,
             x.addr, x.relocate ? 1 : 0, x.len, x.rw ? 1 : 0);
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    emit_arm_call(w, "_stpx_watch_arm(_stpx_watches, ARRAY_SIZE(_stpx_watches))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_watch_disarm(_stpx_watches, ARRAY_SIZE(_stpx_watches));");
  }
};

}  // namespace

const ProbeFamily& kernel_data_family() {
  static const KernelDataFamily family;
  return family;
}

}  // namespace stapx
