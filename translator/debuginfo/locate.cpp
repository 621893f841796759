// Finding the kernel's debug information (see locate.h for the order).
#include "translator/debuginfo/locate.h"

#include <sys/stat.h>
#include <sys/utsname.h>

#include <cstdlib>

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

}  // namespace

std::vector<std::string> vmlinux_candidates(const std::string& release,
                                            const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (const auto& d : dirs) add_dir(out, d, release);
  if (const char* env = std::getenv("STAPX_DEBUGINFO")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t colon = s.find(':', start);
      if (colon == std::string::npos) colon = s.size();
      add_dir(out, s.substr(start, colon - start), release);
      start = colon + 1;
    }
  }
  out.push_back("/usr/lib/debug/boot/vmlinux-" + release);
  out.push_back("/usr/lib/debug/lib/modules/" + release + "/vmlinux");
  return out;
}

std::optional<std::string> find_vmlinux(const std::string& release,
                                        const std::vector<std::string>& dirs) {
  for (const auto& p : vmlinux_candidates(release, dirs))
    if (is_file(p)) return p;
  return std::nullopt;
}

std::optional<std::string> find_btf(const std::string& release, const std::vector<std::string>& dirs) {
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
  for (const auto& d : all)
    for (const std::string& p : {d + "/vmlinux-" + release + ".btf", d + "/btf/vmlinux-" + release})
      if (is_file(p)) return p;
  struct utsname u;
  if (uname(&u) == 0 && release == u.release && is_file("/sys/kernel/btf/vmlinux")) return "/sys/kernel/btf/vmlinux";
  return std::nullopt;
}

std::string debuginfo_hint(const std::string& release) {
  return "install linux-image-" + release + "-dbg, or point --debuginfo at a directory holding vmlinux-" +
         release;
}

}  // namespace stapx
