// Finding the kernel's debug information (see locate.h for the order).
#include "translator/debuginfo/locate.h"

#include <sys/stat.h>
#include <sys/utsname.h>


#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "support/glob.h"
#include "translator/debuginfo/debuginfod.h"

namespace stapx {

namespace {

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void add_dir(std::vector<std::string>& out, const std::string& dir, const std::string& r) {
  if (dir.empty()) return;
  out.push_back(dir);
  for (const char* rel : {"/vmlinux-", "/vmlinux", "/boot/vmlinux-", "/usr/lib/debug/boot/vmlinux-"}) {
    std::string p = dir + rel;
    if (p.back() == '-') p += r;
    out.push_back(p);
  }
  out.push_back(dir + "/lib/modules/" + r + "/vmlinux");
}

// `dirs` (--debuginfo), then the directories of $STAPX_DEBUGINFO
// (colon-separated).
std::vector<std::string> with_env_dirs(const std::vector<std::string>& dirs) {
  std::vector<std::string> all = dirs;
  if (const char* env = std::getenv("STAPX_DEBUGINFO")) {
    std::string s = env;
    for (size_t start = 0; start <= s.size();) {
      size_t colon = s.find(':', start);
      if (colon == std::string::npos) colon = s.size();
      if (colon > start) all.push_back(s.substr(start, colon - start));
      start = colon + 1;
    }
  }
  return all;
}

}  // namespace

std::vector<std::string> vmlinux_candidates(const std::string& release,
                                            const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (const auto& d : with_env_dirs(dirs)) add_dir(out, d, release);
  out.push_back("/usr/lib/debug/boot/vmlinux-" + release);
  out.push_back("/usr/lib/debug/lib/modules/" + release + "/vmlinux");
  return out;
}

std::optional<std::string> find_vmlinux(const std::string& release,
                                        const std::vector<std::string>& dirs) {
  for (const auto& p : vmlinux_candidates(release, dirs))
    if (is_file(p)) return p;
  return debuginfod_vmlinux(release, with_env_dirs(dirs));
}

std::optional<std::string> find_btf(const std::string& release, const std::vector<std::string>& dirs) {
  std::vector<std::string> all = with_env_dirs(dirs);
  for (const auto& d : all)
    for (const std::string& p : {d + "/vmlinux-" + release + ".btf", d + "/btf/vmlinux-" + release})
      if (is_file(p)) return p;
  struct utsname u;
  if (uname(&u) == 0 && release == u.release && is_file("/sys/kernel/btf/vmlinux")) return "/sys/kernel/btf/vmlinux";
  return std::nullopt;
}

namespace {

std::string module_name(std::string s) {
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

// The module a file is, by its name: "ext4" for ext4.ko, and for the
// compressed forms distributions ship (ext4.ko.xz, .ko.zst, .ko.gz);
// empty for other files.
std::string module_of(const std::filesystem::path& p) {
  std::string f = p.filename().string();
  for (const char* ext : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"}) {
    size_t n = std::strlen(ext);
    if (f.size() > n && f.compare(f.size() - n, n, ext) == 0) return module_name(f.substr(0, f.size() - n));
  }
  return "";
}

// Adds DIR's modules matching `pattern` that `out` does not have yet.
void scan_modules(const std::string& dir, const std::string& pattern, std::map<std::string, std::string>& out) {
  namespace fs = std::filesystem;
  auto consider = [&](const fs::path& p) {
    std::string name = module_of(p);
    if (!name.empty() && support::glob_match(pattern, name) && !out.count(name) &&
        is_file(p.string()))
      out.emplace(name, p.string());
  };
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) return consider(dir);
  if (!fs::is_directory(dir, ec)) return;
  std::map<std::string, std::string> here;  // sorted: the same pick every time
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::string name = module_of(it->path());
    if (name.empty() || !support::glob_match(pattern, name) || out.count(name)) continue;
    // DIR/m.ko before DIR/sub/m.ko, then the shortest path.
    auto [at, fresh] = here.emplace(name, it->path().string());
    if (!fresh && it->path().string().size() < at->second.size()) at->second = it->path().string();
  }
  for (auto& [name, path] : here) consider(path);
}

}  // namespace

std::map<std::string, std::string> find_modules(const std::string& release, const std::vector<std::string>& dirs,
                                                const std::string& raw_pattern) {
  std::string pattern = module_name(raw_pattern);
  std::map<std::string, std::string> out;
  std::vector<std::string> all = with_env_dirs(dirs);
  all.push_back("/usr/lib/debug/lib/modules/" + release);
  all.push_back("/lib/modules/" + release + "/kernel");
  all.push_back("/lib/modules/" + release + "/updates");
  all.push_back("/lib/modules/" + release + "/extra");
  for (const auto& d : all) scan_modules(d, pattern, out);
  return out;
}

std::string module_debuginfo_hint(const std::string& release, const std::string& module) {
  return "install linux-image-" + release + "-dbg for the kernel's own modules, or point --debuginfo at a directory holding " +
         module + ".ko built with -g";
}

std::string debuginfo_hint(const std::string& release) {
  return "install linux-image-" + release + "-dbg, or point --debuginfo at a directory holding vmlinux-" +
         release;
}

}  // namespace stapx
