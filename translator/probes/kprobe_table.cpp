#include "translator/probes/kprobe_table.h"

#include <map>

namespace stapx {

void emit_kprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* name) {
  if (probes.empty()) return;
  // The first entry probe of each declaration stands for all of them: its
  // handler, locks, state and flags are the declaration's.
  std::map<const ast::ProbeDecl*, int> proto;
  for (const ProbeSpec* p : probes) {
    if (p->is_return || proto.count(p->decl)) continue;
    proto[p->decl] = p->index;
    w.line("STPX_KPROBE_PRE(_stpx_kpre_{0}, &_stpx_probes[{0}]);", p->index);
  }
  auto b = w.block(fmt::format("static struct _stpx_kprobe {}[] =", name), "};");
  for (const ProbeSpec* p : probes) {
    std::string pre = p->is_return ? "" : fmt::format(", .pre = _stpx_kpre_{}", proto.at(p->decl));
    std::string offset = p->offset ? fmt::format(", .offset = {}", p->offset) : "";
    w.line("{{ .probe = &_stpx_probes[{}], .symbol = \"{}\"{}, .is_return = {}{} }},", p->index, p->symbol,
           offset, p->is_return ? 1 : 0, pre);
  }
}

void emit_kprobe_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (probes.empty()) return;
  w.line("rc = _stpx_kprobes_arm({0}, ARRAY_SIZE({0}));", array);
  w.line("if (rc)");
  w.line("\treturn rc;");
}

void emit_kprobe_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (!probes.empty()) w.line("_stpx_kprobes_disarm({0}, ARRAY_SIZE({0}));", array);
}

}  // namespace stapx
