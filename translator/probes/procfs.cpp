// procfs("PATH").read, .write, .umask(N), .read.maxsize(N), and procfs.*
// for the file "command": files under /proc/systemtap/MODULE/ whose read
// runs the read probe (the handler sets the text through $value) and whose
// write runs the write probe with what was written in $value
// (runtime-c/probes/procfs.c). Permissions as stap: 0400 to read, 0200 to
// write, 0600 for both; with .umask(U), 0444, 0222 or 0666 less U.
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

struct ProcfsFile : ProbeData {
  std::string path;  // relative to the module's directory
  bool write = false;
  int64_t umask = -1;  // -1: none given
  int64_t maxsize = 0;  // 0: STP_PROCFS_BUFSIZE
};

// The shapes, each with what it says.
struct Shape {
  const char* text;
  bool has_path, write, has_umask, has_maxsize;
};
constexpr Shape kShapes[] = {
    {"procfs.read", false, false, false, false},
    {"procfs.write", false, true, false, false},
    {"procfs.read.maxsize(number)", false, false, false, true},
    {"procfs.umask(number).read", false, false, true, false},
    {"procfs.umask(number).write", false, true, true, false},
    {"procfs.umask(number).read.maxsize(number)", false, false, true, true},
    {"procfs(string).read", true, false, false, false},
    {"procfs(string).write", true, true, false, false},
    {"procfs(string).read.maxsize(number)", true, false, false, true},
    {"procfs(string).umask(number).read", true, false, true, false},
    {"procfs(string).umask(number).write", true, true, true, false},
    {"procfs(string).umask(number).read.maxsize(number)", true, false, true, true},
};

// Why stap refuses a path, or null.
const char* bad_path(const std::string& path) {
  if (path.empty() || path.back() == '/') return "procfs path cannot end with a '/'";
  if (path.front() == '/') return "procfs path cannot start with a '/'";
  size_t at = 0;
  for (;;) {
    size_t slash = path.find('/', at);
    std::string_view part(path.data() + at, (slash == std::string::npos ? path.size() : slash) - at);
    if (part.empty() || part == "." || part == "..") return "procfs path cannot be relative (and contain '.' or '..')";
    if (slash == std::string::npos) return nullptr;
    at = slash + 1;
  }
}

class ProcfsFamily : public ProbeFamily {
 public:
  const char* name() const override { return "procfs"; }
  std::vector<const char*> runtime_files() const override { return {"probes/procfs.c"}; }

  std::vector<PointPattern> patterns() const override {
    std::vector<PointPattern> out;
    for (size_t i = 0; i < std::size(kShapes); ++i) out.push_back({kShapes[i].text, static_cast<int>(i)});
    return out;
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const Shape& shape = kShapes[m.tag];
    auto f = std::make_shared<ProcfsFile>();
    f->path = shape.has_path ? m.string_arg(0) : "command";
    f->write = shape.write;
    if (const char* why = bad_path(f->path)) {
      diags.report(DiagId::SemProcfsPoint, m.point->loc, why);
      return;
    }
    for (size_t i = 0; i < m.size(); ++i) {
      std::string_view c = m.component(i).name;
      if (c == "umask") f->umask = m.number_arg(i) & 0777;
      if (c == "maxsize") {
        f->maxsize = m.number_arg(i);
        if (f->maxsize <= 0) {
          diags.report(DiagId::SemProcfsPoint, m.arg_loc(i), "maxsize must be greater than 0");
          return;
        }
      }
    }
    ProbeSpec spec = base;
    spec.family = this;
    spec.data = std::move(f);
    out.push_back(std::move(spec));
  }

  void check_all(const std::vector<const ProbeSpec*>& probes, DiagSink& diags) const override {
    // (As in stap, a file may have many write probes: each sees the data.)
    std::set<std::string> read_paths;
    for (const ProbeSpec* p : probes) {
      const auto& f = p->data_as<ProcfsFile>();
      if (!f.write && !read_paths.insert(f.path).second)
        diags.report(DiagId::SemProcfsDuplicate, p->point->loc, "read", f.path);
    }
  }

  bool has_context_vars() const override { return true; }
  std::optional<ContextVar> context_var(const ast::TargetExpr& t, const ProbeSpec& spec,
                                        DiagSink& diags) const override {
    if (t.base != "$value" || !t.components.empty() || !t.pretty.empty()) {
      diags.report(DiagId::SemProcfsTarget, t.loc);
      return std::nullopt;
    }
    // A read probe writes the file's text, a write probe reads it.
    bool write = spec.data_as<ProcfsFile>().write;
    ContextVar v;
    v.c_expr = "((struct _stpx_text *)c->family_data)";
    v.is_string = true;
    v.readable = write;
    v.writable = !write;
    v.write_diag = DiagId::SemProcfsReadOnly;
    return v;
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    // One file per path, with its read and write probes; a directory
    // for each path prefix, parents first.
    struct File {
      const ProbeSpec* read = nullptr;
      std::vector<const ProbeSpec*> writes;
      int64_t umask = -1;
      int64_t maxsize = 0;
    };
    std::map<std::string, File> files;
    std::map<std::string, int> dirs;  // path -> index, in creation order
    std::vector<std::string> dir_order;
    for (const ProbeSpec* p : probes) {
      const auto& f = p->data_as<ProcfsFile>();
      File& file = files[f.path];
      if (f.write)
        file.writes.push_back(p);
      else
        file.read = p;
      if (f.umask >= 0) file.umask = f.umask;
      if (!f.write) file.maxsize = f.maxsize;
      for (size_t slash = f.path.find('/'); slash != std::string::npos; slash = f.path.find('/', slash + 1)) {
        std::string dir = f.path.substr(0, slash);
        if (dirs.emplace(dir, static_cast<int>(dir_order.size())).second) dir_order.push_back(dir);
      }
    }
    auto parent_of = [&](const std::string& path) {
      size_t slash = path.rfind('/');
      return slash == std::string::npos ? -1 : dirs.at(path.substr(0, slash));
    };
    auto leaf = [](const std::string& path) {
      size_t slash = path.rfind('/');
      return slash == std::string::npos ? path : path.substr(slash + 1);
    };
    {
      auto b = w.block("static struct _stpx_procfs_dir _stpx_procfs_dirs[] =", "};");
      for (const std::string& d : dir_order)
        w.line("{{ .name = {}, .parent = {} }},", codegen::c_string(leaf(d)), parent_of(d));
      if (dir_order.empty()) w.line("{ .name = NULL },");
    }
    int n = 0;
    for (const auto& [path, f] : files) {
      if (f.writes.empty()) continue;
      auto b = w.block(fmt::format("static const struct _stpx_probe *const _stpx_procfs_writes{}[] =", n++), "};");
      for (const ProbeSpec* p : f.writes) w.line("&_stpx_probes[{}],", p->index);
    }
    n = 0;
    auto b = w.block("static struct _stpx_procfs_file _stpx_procfs_files[] =", "};");
    for (const auto& [path, f] : files) {
      int full = (f.read ? 0444 : 0) | (f.writes.empty() ? 0 : 0222);
      int mode = f.umask >= 0 ? full & ~static_cast<int>(f.umask) : full & 0600;
      std::string writes = f.writes.empty() ? "NULL" : fmt::format("_stpx_procfs_writes{}", n++);
      w.line("{{ .name = {}, .dir = {}, .mode = 0{:o}, .maxsize = {}, .read = {}, .writes = {}, .nwrites = {} }},",
             codegen::c_string(leaf(path)), parent_of(path), mode, f.maxsize ? std::to_string(f.maxsize) : "STP_PROCFS_BUFSIZE",
             f.read ? fmt::format("&_stpx_probes[{}]", f.read->index) : "NULL", writes, f.writes.size());
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    // (The directory table has a placeholder when there are none.)
    emit_arm_call(w,
                  "_stpx_procfs_arm(_stpx_procfs_dirs, ARRAY_SIZE(_stpx_procfs_dirs) - (_stpx_procfs_dirs[0].name == "
                  "NULL), _stpx_procfs_files, ARRAY_SIZE(_stpx_procfs_files))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_procfs_disarm();");
  }
};

}  // namespace

const ProbeFamily& procfs_family() {
  static const ProcfsFamily family;
  return family;
}

}  // namespace stapx
