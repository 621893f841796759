#include "translator/probes/kprobe_table.h"

namespace stapx {

void emit_kprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (probes.empty()) return;
  auto b = w.block(fmt::format("static struct _stpx_kprobe {}[] =", array), "};");
  for (const ProbeSpec* p : probes)
    w.line("{{ .probe = &_stpx_probes[{}], .symbol = \"{}\", .offset = {}, .is_return = {} }},", p->index,
           p->symbol, p->offset, p->is_return ? 1 : 0);
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
