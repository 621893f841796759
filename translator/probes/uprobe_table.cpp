// The uprobe tables (uprobe_table.h).
#include "translator/probes/uprobe_table.h"

#include <fmt/format.h>

#include <glob.h>

#include <algorithm>
#include <map>

#include "support/glob.h"
#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/user_binary.h"

namespace stapx {

const debug::UserBinary* user_binary(const std::string& path, std::string& error) {
  static std::map<std::string, std::pair<std::unique_ptr<debug::UserBinary>, std::string>> read;
  auto it = read.find(path);
  if (it == read.end()) {
    std::string why;
    it = read.emplace(path, std::make_pair(debug::UserBinary::open(path, why), why)).first;
  }
  if (!it->second.first) error = it->second.second;
  return it->second.first.get();
}

std::vector<const debug::UserBinary*> process_binaries(const PointMatch& m, const ProbeContext& ctx,
                                                       DiagSink& diags) {
  std::vector<const debug::UserBinary*> out;
  std::string pattern;
  if (m.component(0).arg) {
    pattern = m.string_arg(0);
  } else {
    // The command's first word, when the command is only a program and
    // its arguments (stap's rule).
    const std::string& cmd = ctx.target_command;
    if (cmd.empty()) {
      if (m.point->optional) return out;
      if (ctx.target_pid)
        diags.report(DiagId::SemUnsupported, m.point->loc, "a process(...) point without a PATH under -x");
      else
        diags.report(DiagId::SemProcessUnspecified, m.point->loc);
      return out;
    }
    if (cmd.find_first_of("|&;<>(){}`$") != std::string::npos) {
      if (!m.point->optional) diags.report(DiagId::SemProcessBadCommand, m.point->loc);
      return out;
    }
    size_t start = cmd.find_first_not_of(" \t");
    size_t end = start == std::string::npos ? start : cmd.find_first_of(" \t", start);
    pattern = start == std::string::npos ? "" : cmd.substr(start, end - start);
  }
  std::string error;
  if (!support::is_glob(pattern)) {
    std::string path = debug::resolve_process_path(pattern, error);
    if (const debug::UserBinary* bin = path.empty() ? nullptr : user_binary(path, error)) out.push_back(bin);
  } else {
    glob_t g{};
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string why;
        std::string path = debug::resolve_process_path(g.gl_pathv[i], why);
        const debug::UserBinary* bin = path.empty() ? nullptr : user_binary(path, why);
        if (bin && std::find(out.begin(), out.end(), bin) == out.end()) out.push_back(bin);
      }
    globfree(&g);
    error = "no x86-64 program or library matches " + pattern;
  }
  if (out.empty() && !m.point->optional) diags.report(DiagId::SemProcessNoFile, m.arg_loc(0), error);
  return out;
}

std::shared_ptr<Uprobe> uprobe_at(const debug::UserBinary& bin, uint64_t offset) {
  auto u = std::make_shared<Uprobe>();
  u->path = bin.path();
  u->offset = offset;
  u->file_size = bin.file_size();
  u->code = bin.code_at(offset);
  return u;
}

namespace {

// Of functions at one address (aliases: strtol, strtoq, __strtol), the
// name to show: not a reserved one (leading '_') if there is another, then
// the shortest, then the first in order.
bool better_name(const std::string& a, const std::string& b) {
  bool ra = a.starts_with('_'), rb = b.starts_with('_');
  if (ra != rb) return rb;
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

}  // namespace

void emit_user_symbols(CWriter& w, const std::vector<std::string>& paths, const std::string& array) {
  std::vector<size_t> counts, nrows;
  for (size_t k = 0; k < paths.size(); ++k) {
    std::string error;
    const debug::UserBinary* bin = user_binary(paths[k], error);
    // Its unwind rows, for ubacktrace().
    const std::vector<debug::UnwindRow> none;
    const std::vector<debug::UnwindRow>& rows = bin ? bin->unwind_rows() : none;
    nrows.push_back(rows.size());
    if (!rows.empty()) {
      auto b = w.block(fmt::format("static const struct _stpx_urow {}_rows{}[] =", array, k), "};");
      for (const debug::UnwindRow& r : rows)
        w.line("{{ {:#x}, {}, {}, {} }},", r.offset, r.cfa_rbp ? 1 : 0, r.cfa_offset, r.bp_offset);
    }
    std::vector<debug::UserFunction> fns = bin ? bin->functions("*") : std::vector<debug::UserFunction>{};
    std::sort(fns.begin(), fns.end(), [](const auto& a, const auto& b) {
      return a.offset != b.offset ? a.offset < b.offset : better_name(a.name, b.name);
    });
    fns.erase(std::unique(fns.begin(), fns.end(), [](const auto& a, const auto& b) { return a.offset == b.offset; }),
              fns.end());
    counts.push_back(fns.size());
    if (fns.empty()) continue;
    auto b = w.block(fmt::format("static const struct _stpx_usym {}_syms{}[] =", array, k), "};");
    for (const debug::UserFunction& f : fns)
      w.line("{{ {:#x}, {:#x}, {} }},", f.offset, f.size, codegen::c_string(f.name));
  }
  auto b = w.block(fmt::format("static struct _stpx_usym_file {}_usyms[] =", array), "};");
  for (size_t k = 0; k < paths.size(); ++k)
    w.line("{{ .path = {}, .syms = {}, .n = {}, .rows = {}, .nrows = {} }},", codegen::c_string(paths[k]),
           counts[k] ? fmt::format("{}_syms{}", array, k) : "NULL", counts[k],
           nrows[k] ? fmt::format("{}_rows{}", array, k) : "NULL", nrows[k]);
}

void emit_uprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (probes.empty()) return;
  // The first entry probe of each declaration stands for all of them (as
  // for kprobes, emit_kprobe_table).
  std::map<const ast::ProbeDecl*, int> proto;
  for (const ProbeSpec* p : probes) {
    if (p->is_return || proto.count(p->decl)) continue;
    proto[p->decl] = p->index;
    w.line("STPX_UPROBE_HIT(_stpx_uhit_{0}, &_stpx_probes[{0}]);", p->index);
  }
  auto b = w.block(fmt::format("static struct _stpx_uprobe {}[] =", array), "};");
  for (const ProbeSpec* p : probes) {
    const Uprobe& u = p->data_as<Uprobe>();
    std::string entry = p->is_return ? "" : fmt::format(", .entry = _stpx_uhit_{}", proto.at(p->decl));
    w.line("{{ .probe = &_stpx_probes[{}], .path = {}, .offset = {:#x}, .ref_ctr_offset = {:#x}, .size = {}, "
           ".code = {{ {:#04x}, {:#04x}, {:#04x}, {:#04x} }}, .is_return = {}{} }},",
           p->index, codegen::c_string(u.path), u.offset, u.ref_ctr_offset, u.file_size, u.code[0], u.code[1],
           u.code[2], u.code[3], p->is_return ? 1 : 0, entry);
  }
}

void emit_uprobe_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (probes.empty()) return;
  emit_arm_call(w, fmt::format("_stpx_uprobes_arm({0}, ARRAY_SIZE({0}))", array));
}

void emit_uprobe_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array) {
  if (probes.empty()) return;
  w.line("_stpx_uprobes_disarm({0}, ARRAY_SIZE({0}));", array);
}

}  // namespace stapx
