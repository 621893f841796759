// process("PATH").plt("NAME") and .plt("NAME").return (NAME a glob; no
// NAME: every entry), under any of the heads process_heads() lists:
// a uprobe on each PLT stub of the file that jumps to a matching symbol,
// so the probe fires on every call the program makes to that library
// function. $$name is the function's name, as in stap.
#include <fmt/format.h>

#include <memory>

#include "support/glob.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

namespace {

enum Shape { kEntry, kReturn };

class ProcessPltFamily : public UprobeTableFamily {
 public:
  const char* name() const override { return "process.plt"; }
  std::vector<PointPattern> patterns() const override { return shapes_.patterns(); }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    std::vector<ProcessTarget> targets = process_targets(m, ctx, diags);
    if (targets.empty()) return;
    const size_t plt = process_rest(m);
    support::NamePattern pattern(m.has_arg(plt) ? m.string_arg(plt) : "*");
    size_t before = out.size();
    for (const ProcessTarget& t : targets)
      for (const debug::UserFunction& f : t.file->plt_entries()) {
        if (!pattern.matches(f.name)) continue;
        ProbeSpec spec = base;
        spec.family = this;
        spec.is_return = m.tag == kReturn;
        spec.probefunc = f.name;
        spec.pp = fmt::format("process(\"{}\").plt(\"{}\"){}", t.file->path(), f.name, spec.is_return ? ".return" : "");
        spec.data = uprobe_at(t, f.offset);
        out.push_back(std::move(spec));
      }
    if (out.size() == before && !m.point->optional) diags.report(DiagId::SemNoMatch, m.point->loc);
  }

  // $$name; stap's .plt probes have no other context variables. It is the
  // point's function, its table entry's func: one handler serves every
  // point (ltrace-style scripts probe hundreds).
  bool has_context_vars() const override { return true; }
  bool context_vars_per_point() const override { return false; }
  std::optional<ContextVar> context_var(const ast::TargetExpr& t, const ProbeSpec&,
                                        DiagSink& diags) const override {
    if (t.base.view() != "$$name" || !t.components.empty() || !t.pretty.empty()) {
      diags.report(DiagId::SemProcessTarget, t.loc, "a .plt probe has only $$name");
      return std::nullopt;
    }
    ContextVar v;
    v.readable = true;
    v.c_string = true;
    v.c_expr = "c->probe->func";
    return v;
  }

 private:
  const char* table() const override { return "_stpx_uprobe_plts"; }

  const ProcessPatterns shapes_{
      {".plt", kEntry}, {".plt(string)", kEntry}, {".plt.return", kReturn}, {".plt(string).return", kReturn}};
};

}  // namespace

const ProbeFamily& process_plt_family() {
  static const ProcessPltFamily family;
  return family;
}

}  // namespace stapx
