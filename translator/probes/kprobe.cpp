// kprobe.function("sym") and kprobe.function("sym").return: kprobes and
// kretprobes on a named kernel function (runtime-c/probes/kprobes.c).
#include <cctype>

#include "translator/codegen/cwriter.h"
#include "translator/probes/families.h"

namespace stapx {

namespace {

bool valid_symbol(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.') return false;
  return true;
}

class KprobeFamily : public ProbeFamily {
 public:
  const char* name() const override { return "kprobe"; }

  bool match(const ast::ProbePoint& point, ProbeSpec& spec, DiagSink& diags) const override {
    const auto& c = point.components;
    if (c.empty() || c[0].name != "kprobe") return false;
    if (c.size() < 2 || c[1].name != "function" || c.size() > 3 ||
        (c.size() == 3 && c[2].name != "return")) {
      diags.report(DiagId::SemBadProbePoint, point.loc,
                   "expected kprobe.function(\"name\") or kprobe.function(\"name\").return");
      return true;
    }
    if (!c[1].arg || c[1].arg->kind != ast::ExprKind::String) {
      diags.report(DiagId::SemProbeArg, c[1].loc, "kprobe.function", "a function name string");
      return true;
    }
    const std::string& sym = static_cast<const ast::StringLit*>(c[1].arg)->value;
    if (sym.find_first_of("*?[") != std::string::npos) {
      diags.report(DiagId::SemUnsupported, c[1].arg->loc, "a wildcard in kprobe.function");
      return true;
    }
    if (!valid_symbol(sym)) {
      diags.report(DiagId::SemProbeArg, c[1].arg->loc, "kprobe.function", "a kernel symbol name");
      return true;
    }
    spec.symbol = sym;
    spec.is_return = c.size() == 3;
    spec.family = this;
    return true;
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_kprobe _stpx_kprobes[] =", "};");
    for (const ProbeSpec* p : probes)
      w.line("{{ .probe = &_stpx_probes[{}], .symbol = \"{}\", .is_return = {} }},", p->index,
             p->symbol, p->is_return ? 1 : 0);
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    w.line("rc = _stpx_kprobes_arm(_stpx_kprobes, ARRAY_SIZE(_stpx_kprobes));");
    w.line("if (rc)");
    w.line("\treturn rc;");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_kprobes_disarm(_stpx_kprobes, ARRAY_SIZE(_stpx_kprobes));");
  }
};

}  // namespace

const ProbeFamily& kprobe_family() {
  static const KprobeFamily f;
  return f;
}

}  // namespace stapx
