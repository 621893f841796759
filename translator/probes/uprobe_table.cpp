// The uprobe tables (uprobe_table.h).
#include "translator/probes/uprobe_table.h"

#include <fmt/format.h>

#include <glob.h>
#include <unistd.h>

#include <climits>

#include <algorithm>
#include <map>

#include "support/glob.h"
#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/debuginfo.h"
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

namespace {

std::vector<const debug::UserBinary*> files_named(const std::string& pattern, bool search, std::string& error);

// A shared library named by a path where it is not ("/lib*/libc.so.6",
// written for distributions that keep libc in /lib64; Debian keeps it in
// /lib/x86_64-linux-gnu): the files of that name (a glob too) in the
// loader's directories, as the loader would find the library. Empty if
// the name is not a library's (lib*.so*) or none is there.
std::vector<const debug::UserBinary*> library_elsewhere(const std::string& pattern) {
  std::string name = pattern.substr(pattern.rfind('/') + 1);
  if (!name.starts_with("lib") || name.find(".so") == std::string::npos) return {};
  for (const std::string& dir : debug::shared_library_dirs()) {
    std::string why;
    std::vector<const debug::UserBinary*> found = files_named(fmt::format("{}/{}", dir, name), false, why);
    if (!found.empty()) return found;
  }
  return {};
}

// The x86-64 programs and libraries `pattern` names: a path, or each match
// of a glob; a name without a '/' is looked up in $PATH (`search`).
std::vector<const debug::UserBinary*> files_named(const std::string& pattern, bool search, std::string& error) {
  std::vector<const debug::UserBinary*> out;
  if (!support::is_glob(pattern)) {
    std::string path = search || pattern.find('/') != std::string::npos ? debug::resolve_process_path(pattern, error)
                                                                         : std::string();
    if (path.empty() && error.empty()) error = "no file " + pattern;
    if (const debug::UserBinary* bin = path.empty() ? nullptr : user_binary(path, error)) out.push_back(bin);
    return out;
  }
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
  return out;
}

// The program process `pid` runs on this machine, as /proc/PID/exe names it.
const debug::UserBinary* program_of(int64_t pid, std::string& error) {
  char buf[PATH_MAX];
  std::string link = fmt::format("/proc/{}/exe", pid);
  ssize_t n = ::readlink(link.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) {
    error = fmt::format("no process {} on this machine (cannot read {})", pid, link);
    return nullptr;
  }
  std::string path(buf, static_cast<size_t>(n));
  if (path.ends_with(" (deleted)")) {
    error = fmt::format("process {} runs {}, which was deleted", pid, path.substr(0, path.size() - 10));
    return nullptr;
  }
  return user_binary(path, error);
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<std::pair<std::string, const debug::UserBinary*>> needed_libraries(const debug::UserBinary& exe) {
  std::vector<std::pair<std::string, const debug::UserBinary*>> out;
  std::vector<const debug::UserBinary*> todo{&exe};
  for (size_t i = 0; i < todo.size(); ++i)
    for (const std::string& name : todo[i]->needed()) {
      std::string path = debug::find_shared_library(name), error;
      const debug::UserBinary* lib = path.empty() ? nullptr : user_binary(path, error);
      if (!lib || std::find(todo.begin(), todo.end(), lib) != todo.end()) continue;
      todo.push_back(lib);
      out.emplace_back(name, lib);
    }
  return out;
}

int64_t process_pid(const PointMatch& m, DiagSink& diags) {
  int64_t pid = m.number_arg(0);
  if (pid >= 1 && pid <= 4194304) return pid;  // the kernel's PID_MAX_LIMIT
  diags.report(DiagId::SemProbeArg, m.arg_loc(0), "process(PID)", "a process id");
  return 0;
}

const std::vector<std::string>& process_heads() {
  // (stap has no process(PID).library(...).)
  static const std::vector<std::string> heads = {"process(string)", "process(number)", "process",
                                                 "process(string).library(string)", "process.library(string)"};
  return heads;
}

ProcessPatterns::ProcessPatterns(std::initializer_list<std::pair<const char*, int>> tails) {
  for (const std::string& head : process_heads())
    for (const auto& [tail, tag] : tails) texts_.emplace_back(head + tail, tag);
}

std::vector<PointPattern> ProcessPatterns::patterns() const {
  std::vector<PointPattern> out;
  for (const auto& [text, tag] : texts_) out.push_back({text, tag});
  return out;
}

size_t process_rest(const PointMatch& m) {
  return m.size() > 2 && m.component(1).name.view() == "library" ? 2 : 1;
}

std::vector<const debug::UserBinary*> process_binaries(const PointMatch& m, const ProbeContext& ctx,
                                                       DiagSink& diags, size_t at) {
  std::vector<const debug::UserBinary*> out;
  std::string pattern;
  std::string error;
  if (m.component(at).arg) {
    pattern = m.string_arg(at);
  } else if (!ctx.target_command.empty()) {
    // The command's first word, when the command is only a program and
    // its arguments (stap's rule).
    const std::string& cmd = ctx.target_command;
    if (cmd.find_first_of("|&;<>(){}`$") != std::string::npos) {
      if (!m.point->optional) diags.report(DiagId::SemProcessBadCommand, m.point->loc);
      return out;
    }
    size_t start = cmd.find_first_not_of(" \t");
    size_t end = start == std::string::npos ? start : cmd.find_first_of(" \t", start);
    pattern = start == std::string::npos ? "" : cmd.substr(start, end - start);
  } else if (ctx.target_pid) {
    if (const debug::UserBinary* bin = program_of(ctx.target_pid, error)) out.push_back(bin);
    else if (!m.point->optional) diags.report(DiagId::SemProcessNoFile, m.point->loc, error);
    return out;
  } else {
    if (!m.point->optional) diags.report(DiagId::SemProcessUnspecified, m.point->loc);
    return out;
  }
  out = files_named(pattern, true, error);
  if (out.empty() && pattern.find('/') != std::string::npos) {
    out = library_elsewhere(pattern);
    // (An optional point, a library alias's "wherever it is", says nothing.)
    if (!out.empty() && !m.point->optional)
      diags.report(DiagId::WarnLibraryElsewhere, m.arg_loc(at), pattern, out.front()->path());
  }
  if (out.empty() && !m.point->optional) diags.report(DiagId::SemProcessNoFile, m.arg_loc(at), error);
  return out;
}

std::vector<ProcessTarget> process_targets(const PointMatch& m, const ProbeContext& ctx, DiagSink& diags) {
  std::vector<ProcessTarget> out;
  // The programs (and, for process(PID), the process).
  int64_t pid = 0;
  std::vector<const debug::UserBinary*> programs;
  if (m.component(0).arg && m.component(0).arg->kind == ast::ExprKind::Number) {
    std::string error;
    const debug::UserBinary* bin = nullptr;
    if (!(pid = process_pid(m, diags))) return out;
    if (!(bin = program_of(pid, error))) {
      if (!m.point->optional) diags.report(DiagId::SemProcessNoFile, m.arg_loc(0), error);
      return out;
    }
    programs.push_back(bin);
  } else {
    programs = process_binaries(m, ctx, diags);
  }
  if (process_rest(m) == 1) {
    for (const debug::UserBinary* bin : programs) out.push_back({bin, "", pid});
    return out;
  }
  // .library("LIB"): in those programs' processes only.
  const std::string lib = m.string_arg(1);
  std::string error;
  for (const debug::UserBinary* exe : programs) {
    std::vector<const debug::UserBinary*> libs;
    if (lib.find('/') != std::string::npos) {
      libs = files_named(lib, false, error);
    } else {
      support::NamePattern want(lib);
      for (const auto& [name, file] : needed_libraries(*exe))
        if (want.matches(name) || want.matches(base_name(file->path()))) libs.push_back(file);
      if (libs.empty()) error = fmt::format("{} needs no library that matches {}", exe->path(), lib);
    }
    for (const debug::UserBinary* file : libs) out.push_back({file, exe->path(), pid});
  }
  if (out.empty() && !programs.empty() && !m.point->optional) diags.report(DiagId::SemProcessNoFile, m.arg_loc(1), error);
  return out;
}

std::shared_ptr<Uprobe> uprobe_at(const ProcessTarget& t, uint64_t offset) {
  const debug::UserBinary& bin = *t.file;
  auto u = std::make_shared<Uprobe>();
  u->path = bin.path();
  u->offset = offset;
  u->file_size = bin.file_size();
  u->code = bin.code_at(offset);
  // (A file without a note section for it is checked by size and code alone.)
  u->build_id = bin.build_id_note();
  u->build_id_offset = bin.build_id_offset();
  u->exe = t.exe;
  u->pid = t.pid;
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

void emit_user_symbols(CWriter& w, const std::vector<std::string>& paths, const std::string& array,
                       bool with_lines) {
  std::vector<size_t> counts, nrows, nlines;
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
    // Its line table, for usymline() and the like: by offset.
    nlines.push_back(0);
    std::string why;
    std::unique_ptr<debug::DebugInfo> di = with_lines && bin ? debug::open_dwarf(paths[k], why) : nullptr;
    if (di) {
      std::vector<std::string> files;
      std::vector<debug::LineRow> lines = di->line_rows(files);
      std::vector<std::string> rows_c;
      for (const debug::LineRow& r : lines) {
        uint64_t offset = 0;
        if (bin->file_offset(r.addr, offset)) rows_c.push_back(fmt::format("{{ {:#x}, {}, {} }},", offset, r.file, r.line));
      }
      if (!rows_c.empty()) {
        {
          auto b = w.block(fmt::format("static const char *const {}_lfiles{}[] =", array, k), "};");
          for (const std::string& f : files) w.line("{},", codegen::c_string(f));
        }
        auto b = w.block(fmt::format("static const struct _stpx_uline {}_lines{}[] =", array, k), "};");
        for (const std::string& r : rows_c) w.line(r);
        nlines.back() = rows_c.size();
      }
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
  for (size_t k = 0; k < paths.size(); ++k) {
    std::string error;
    const debug::UserBinary* bin = user_binary(paths[k], error);
    w.line("{{ .path = {}, .build_id = {}, .syms = {}, .n = {}, .rows = {}, .nrows = {}{} }},",
           codegen::c_string(paths[k]), codegen::c_string(bin ? bin->build_id() : ""),
           counts[k] ? fmt::format("{}_syms{}", array, k) : "NULL", counts[k],
           nrows[k] ? fmt::format("{}_rows{}", array, k) : "NULL", nrows[k],
           nlines[k] ? fmt::format(", .lines = {0}_lines{1}, .nlines = {2}, .lfiles = {0}_lfiles{1}", array, k,
                                   nlines[k])
                     : "");
  }
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
    std::string only;
    if (!u.exe.empty()) only += ", .exe = " + codegen::c_string(u.exe);
    if (u.pid) only += fmt::format(", .pid = {}", u.pid);
    if (!u.build_id.empty()) {
      std::string bytes;
      for (char c : u.build_id) bytes += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      only += fmt::format(", .build_id = \"{}\", .build_id_len = {}, .build_id_offset = {:#x}", bytes,
                          u.build_id.size(), u.build_id_offset);
    }
    w.line("{{ .probe = &_stpx_probes[{}], .path = {}, .offset = {:#x}, .ref_ctr_offset = {:#x}, .size = {}, "
           ".code = {{ {:#04x}, {:#04x}, {:#04x}, {:#04x} }}, .is_return = {}{}{} }},",
           p->index, codegen::c_string(u.path), u.offset, u.ref_ctr_offset, u.file_size, u.code[0], u.code[1],
           u.code[2], u.code[3], p->is_return ? 1 : 0, entry, only);
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
