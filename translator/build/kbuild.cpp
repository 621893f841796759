// Kbuild driver and module cache. A build writes NAME.c and a Kbuild file
// into a fresh temporary directory and runs `make -C KBUILD M=DIR modules`;
// the .ko lands in ~/.cache/stapx/modules/<key>/ where <key> hashes the C
// source, the runtime's files, the kernel, its features (autoconf.h) and
// the stapx version.
#include "translator/build/kbuild.h"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "frontend/library.h"
#include "support/cache.h"
#include "translator/build/autoconf.h"
#include "translator/version.h"

namespace stapx {

namespace fs = std::filesystem;

namespace {


std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Whether p exists; false, not an exception, for a path the system cannot
// take (too long, a component not a directory), as -r can give.
bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

}  // namespace

std::optional<KernelTarget> resolve_kernel(const std::string& spec, const std::vector<std::string>& unpacked) {
  KernelTarget k;
  if (spec.find('/') != std::string::npos) {
    k.kbuild_dir = spec;
    // Debian's trees name their release in .kernelvariables
    // ("override KERNELRELEASE = 6.1.0-56-rt-amd64"), which the build
    // uses; include/config/kernel.release has the upstream one there
    // ("6.1.192-rt64").
    std::string vars = read_text_file(fs::path(spec) / ".kernelvariables");
    const std::string want = "override KERNELRELEASE = ";
    for (size_t at = vars.find(want); at != std::string::npos && k.release.empty(); at = vars.find(want, at + 1))
      if (at == 0 || vars[at - 1] == '\n') k.release = trim(vars.substr(at + want.size(), vars.find('\n', at) - at - want.size()));
    if (k.release.empty()) k.release = trim(read_text_file(fs::path(spec) / "include/config/kernel.release"));
    if (!path_exists(fs::path(spec) / "Makefile") || k.release.empty()) {
      std::cerr << "stapx: '" << spec << "' is not a configured kernel build tree "
                << "(no Makefile or include/config/kernel.release)\n";
      return std::nullopt;
    }
    return k;
  }
  k.release = spec;
  if (k.release.empty()) {
    utsname u{};
    uname(&u);
    k.release = u.release;
  }
  std::vector<std::string> dirs = {"/lib/modules/" + k.release + "/build", "/usr/src/linux-headers-" + k.release};
  for (const std::string& d : unpacked) dirs.push_back(d + "/" + k.release + "/build");
  for (const std::string& dir : dirs) {
    if (path_exists(fs::path(dir) / "Makefile")) {
      k.kbuild_dir = dir;
      break;
    }
  }
  return k;
}

bool require_kbuild(const KernelTarget& k) {
  if (!k.kbuild_dir.empty()) return true;
  std::cerr << "stapx: no kernel build tree for release " << k.release << " (looked in /lib/modules/"
            << k.release << "/build and /usr/src/linux-headers-" << k.release << ")\n"
            << "stapx: hint: install linux-headers-" << k.release
            << ", pass -r RELEASE or -r KBUILD_DIR for another kernel, or use --vm\n";
  return false;
}

KernelConfig kernel_config(const KernelTarget& k) {
  if (k.kbuild_dir.empty()) return {};
  return KernelConfig::from_text(read_text_file(fs::path(k.kbuild_dir) / ".config"));
}

std::optional<std::string> build_module(const BuildRequest& req) {
  std::optional<std::string> features = autoconf_header(req.kernel, req.runtime_dir, req.verbose);
  if (!features) return std::nullopt;
  Fnv key;
  key.add(kVersion);
  key.add(*features);
  key.add(req.module_name);
  key.add(req.c_source);
  key.add(req.kernel.release);
  key.add(req.kernel.kbuild_dir);
  std::error_code ec;
  std::vector<fs::path> runtime_files;
  for (auto& e : fs::recursive_directory_iterator(req.runtime_dir, ec))
    if (e.is_regular_file()) runtime_files.push_back(e.path());
  std::sort(runtime_files.begin(), runtime_files.end());
  for (auto& p : runtime_files) {
    key.add(p.string());
    key.add(read_text_file(p));
  }
  // No cache directory (no $HOME): the module stays in its build directory.
  std::string cache_root = support::cache_dir();
  fs::path cache_dir = cache_root.empty() ? fs::path() : cache_root / fs::path("modules") / fmt::format("{:016x}", key.h);
  fs::path ko = cache_dir / (req.module_name + ".ko");
  if (!cache_root.empty() && path_exists(ko) && !req.keep_tmp) {
    if (req.verbose) std::cerr << "Pass 4: using cached " << ko.string() << "\n";
    return ko.string();
  }

  std::string tmpl = (fs::temp_directory_path() / "stapxXXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    std::cerr << "stapx: cannot create a temporary directory: " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  fs::path dir = tmpl;
  std::ofstream(dir / (req.module_name + ".c")) << req.c_source;
  std::ofstream(dir / "stpx_autoconf.h") << *features;
  std::ofstream(dir / "Kbuild") << "obj-m := " << req.module_name << ".o\n"
                                << "ccflags-y := -I" << req.runtime_dir
                                << " -Wno-declaration-after-statement -Wno-unused-label\n"
                                << "# What the kernel's APIs are (runtime-c/autoconf/).\n"
                                << "ccflags-y += -include $(src)/stpx_autoconf.h\n"
                                << "# The runtime is a library of static functions; a script uses some.\n"
                                << "ccflags-y += -Wno-unused-function\n"
                                << "# Handlers must not be traceable: no ftrace hooks in the module.\n"
                                << "CFLAGS_REMOVE_" << req.module_name << ".o := $(CC_FLAGS_FTRACE)\n";
  if (req.keep_tmp) std::cerr << "Keeping temporary directory \"" << dir.string() << "\"\n";

  std::string log = (dir / "build.log").string();
  // No BTF for the module: nothing reads it, and making it needs pahole,
  // which a kbuild tree with a vmlinux (Debian's headers from 6.12 on)
  // would otherwise require.
  std::string cmd = fmt::format("make -C '{}' M='{}' CONFIG_DEBUG_INFO_BTF_MODULES= modules > '{}' 2>&1",
                                req.kernel.kbuild_dir, dir.string(), log);
  if (req.verbose > 1) std::cerr << "Running " << cmd << "\n";
  int status = std::system(cmd.c_str());
  bool ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
            path_exists(dir / (req.module_name + ".ko"));
  if (!ok) {
    std::string out = read_text_file(log);
    std::cerr << out;
    if (!req.keep_tmp) fs::remove_all(dir, ec);
    return std::nullopt;
  }
  if (req.verbose > 1) std::cerr << read_text_file(log);
  if (cache_root.empty()) return (dir / (req.module_name + ".ko")).string();
  fs::create_directories(cache_dir, ec);
  fs::path tmp_ko = cache_dir / (req.module_name + ".ko.tmp");
  fs::copy_file(dir / (req.module_name + ".ko"), tmp_ko, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp_ko, ko, ec);
  if (ec) {
    std::cerr << "stapx: cannot write the module cache " << cache_dir.string() << ": " << ec.message() << "\n";
    return std::nullopt;
  }
  if (!req.keep_tmp) fs::remove_all(dir, ec);
  return ko.string();
}

}  // namespace stapx
