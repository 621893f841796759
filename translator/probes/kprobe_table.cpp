#include "translator/probes/kprobe_table.h"

#include <algorithm>
#include <map>

#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/kernel_symbols.h"
#include "translator/probes/probe_env.h"

namespace stapx {

void set_kprobe_address(ProbeSpec& spec, std::shared_ptr<KprobeAddress> at) {
  if (at->attach.empty()) {
    spec.entry_symbol = at->symbol;
    spec.entry_offset = 0;
  } else {
    spec.entry_symbol = at->attach;
    spec.entry_offset = at->attach_offset - at->offset;
  }
  spec.data = std::move(at);
}

void set_ftrace_entry(KprobeAddress& at, const ProbeContext& ctx) {
  if (at.offset || !at.attach.empty() || at.symbol.find(':') != std::string::npos || !ctx.ftrace_addresses) return;
  const FtraceAddresses* fa = ctx.ftrace_addresses();
  FtraceAddresses::Entry e = fa ? fa->entry(at.symbol) : FtraceAddresses::Entry{};
  if (!e.addr) return;
  at.ftrace = true;
  at.ftrace_rel = static_cast<int64_t>(e.addr - fa->reference());
  at.ftrace_size = e.size;
  at.ftrace_aliased = e.aliased;
}

std::shared_ptr<KprobeAddress> site_address(const std::string& module, const debug::ProbeSite& site) {
  auto in_module = [&](const std::string& symbol) { return module.empty() ? symbol : module + ":" + symbol; };
  auto at = std::make_shared<KprobeAddress>();
  at->symbol = in_module(site.symbol);
  at->offset = site.symbol_offset;
  if (!site.anchor.empty()) {
    at->attach = in_module(site.anchor);
    at->attach_offset = site.anchor_offset;
  }
  return at;
}

void emit_kprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* name) {
  if (probes.empty()) return;
  // The first entry probe of each declaration stands for all of them: its
  // handler, locks, state and flags are the declaration's.
  // The first .return probe of each declaration likewise.
  std::map<const ast::ProbeDecl*, int> proto, ret_proto;
  for (const ProbeSpec* p : probes) {
    if (p->is_return) {
      if (ret_proto.count(p->decl)) continue;
      ret_proto[p->decl] = p->index;
      w.line("STPX_KRETPROBE_HIT(_stpx_kret_{0}, &_stpx_probes[{0}]);", p->index);
      continue;
    }
    if (proto.count(p->decl)) continue;
    proto[p->decl] = p->index;
    w.line("STPX_KPROBE_PRE(_stpx_kpre_{0}, &_stpx_probes[{0}]);", p->index);
  }
  auto b = w.block(fmt::format("static struct _stpx_kprobe {}[] =", name), "};");
  for (const ProbeSpec* p : probes) {
    std::string pre = p->is_return ? fmt::format(", .post = _stpx_kret_{}", ret_proto.at(p->decl))
                                   : fmt::format(", .pre = _stpx_kpre_{}", proto.at(p->decl));
    const KprobeAddress& at = p->data_as<KprobeAddress>();
    const std::string& symbol = at.attach.empty() ? at.symbol : at.attach;
    uint64_t off = at.attach.empty() ? at.offset : at.attach_offset;
    std::string offset = off ? fmt::format(", .offset = {}", off) : "";
    std::string maxactive = p->maxactive ? fmt::format(", .maxactive = {}", p->maxactive) : "";
    std::string ftrace;
    if (at.ftrace && !p->is_return)
      ftrace = fmt::format(", .ftrace = {}, .ftrace_rel = {}LL, .ftrace_size = {}", at.ftrace_aliased ? 2 : 1,
                           at.ftrace_rel, at.ftrace_size);
    if (at.raw) offset = fmt::format(", .addr = {:#x}UL", at.raw);
    w.line("{{ .probe = &_stpx_probes[{}], .symbol = \"{}\"{}, .is_return = {}{}{}{} }},", p->index, symbol, offset,
           p->is_return ? 1 : 0, maxactive, pre, ftrace);
  }
}

void emit_kprobe_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (probes.empty()) return;
  emit_arm_call(w, fmt::format("_stpx_kprobes_arm({0}, ARRAY_SIZE({0}))", array));
}

void emit_kprobe_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (!probes.empty()) w.line("_stpx_kprobes_disarm({0}, ARRAY_SIZE({0}));", array);
}

bool InlinedSiteCheck::keep(const debug::ProbeSite& site) {
  if (!site.inlined) return true;
  if (!read_) {
    syms_ = ctx_.env->unprobeable_kernel_functions();
    read_ = true;
  }
  const KernelFunction* f = syms_ ? syms_->find(site.symbol) : nullptr;
  if (!f || f->unprobeable.empty()) return true;
  std::string entry = site.function + " in " + site.symbol + " (" + f->unprobeable + ")";
  if (std::find(excluded_.begin(), excluded_.end(), entry) == excluded_.end()) excluded_.push_back(entry);
  return false;
}

void InlinedSiteCheck::report(DiagSink& diags, SourceLoc at, const std::string& pattern) const {
  if (excluded_.empty()) return;
  std::string names;
  for (size_t i = 0; i < excluded_.size() && i < 5; ++i) names += (i ? ", " : "") + excluded_[i];
  if (excluded_.size() > 5) names += fmt::format(", and {} more", excluded_.size() - 5);
  diags.report(DiagId::WarnUnprobeable, at, excluded_.size(), pattern, names);
}

}  // namespace stapx
