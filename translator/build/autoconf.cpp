// Kernel feature probes: which of the kernel APIs that changed between
// releases the target's kbuild tree has. Each runtime-c/autoconf/NAME.c is
// one probe; where it compiles against the tree, the module is built with
// STPX_HAVE_NAME defined (runtime code chooses by that, never by a version
// number, so a distribution's backports are seen as they are). All probes
// of a tree compile in one kbuild run; the answer is cached by the tree,
// its configuration and the probes' sources.
#include "translator/build/autoconf.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "frontend/library.h"
#include "support/cache.h"

namespace stapx {

namespace fs = std::filesystem;

namespace {

// The probes' names (file stems), sorted.
std::vector<std::string> probe_names(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".c") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string macro_of(const std::string& name) {
  std::string m = "STPX_HAVE_";
  for (char c : name) m += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(static_cast<unsigned char>(c)) : '_';
  return m;
}

}  // namespace

std::optional<std::string> autoconf_header(const KernelTarget& kernel, const std::string& runtime_dir, int verbose) {
  fs::path probes = fs::path(runtime_dir) / "autoconf";
  std::vector<std::string> names = probe_names(probes);
  Fnv key;
  key.add(kernel.kbuild_dir);
  key.add(kernel.release);
  key.add(read_text_file(fs::path(kernel.kbuild_dir) / ".config"));
  for (const std::string& n : names) {
    key.add(n);
    key.add(read_text_file(probes / (n + ".c")));
  }
  std::string cache_root = support::cache_dir();
  fs::path cached = cache_root.empty() ? fs::path()
                                       : fs::path(cache_root) / "autoconf" / fmt::format("{:016x}.h", key.h);
  std::error_code ec;
  if (!cached.empty() && fs::exists(cached, ec)) return read_text_file(cached);

  std::string tmpl = (fs::temp_directory_path() / "stapx-autoconfXXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    std::cerr << "stapx: cannot create a temporary directory: " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  fs::path dir = tmpl;
  {
    std::ofstream kbuild(dir / "Kbuild");
    kbuild << "ccflags-y := -Werror\n";
    // A control that any working tree compiles: without it, an answer
    // of no features could be a broken tree.
    std::ofstream(dir / "stpx_control.c") << "#include <linux/module.h>\nint stpx_control(void);\n"
                                             "int stpx_control(void) { return 0; }\n";
    kbuild << "obj-m += stpx_control.o\n";
    for (const std::string& n : names) {
      fs::copy_file(probes / (n + ".c"), dir / (n + ".c"), ec);
      kbuild << "obj-m += " << n << ".o\n";
    }
  }
  if (verbose) std::cerr << "Pass 4: probing " << names.size() << " kernel features of " << kernel.kbuild_dir << "\n";
  // -k: a probe that does not compile is an answer, not a stop. Only the
  // objects matter; the link steps after them may fail.
  std::string log = (dir / "autoconf.log").string();
  std::string cmd = fmt::format("make -k -j2 -C '{}' M='{}' CONFIG_DEBUG_INFO_BTF_MODULES= modules > '{}' 2>&1", kernel.kbuild_dir, dir.string(), log);
  int status = std::system(cmd.c_str());
  if (status == -1 || !WIFEXITED(status)) {
    std::cerr << "stapx: cannot run make for the kernel feature probes in " << kernel.kbuild_dir << "\n";
    fs::remove_all(dir, ec);
    return std::nullopt;
  }
  if (verbose > 1) std::cerr << read_text_file(log);
  std::string header = "/* Kernel features of " + kernel.kbuild_dir + " (runtime-c/autoconf/). */\n";
  for (const std::string& n : names) {
    bool have = fs::exists(dir / (n + ".o"), ec);
    header += (have ? "#define " : "/* #undef ") + macro_of(n) + (have ? " 1\n" : " */\n");
  }
  // The control did not compile: the tree itself cannot build (no
  // compiler, a broken tree), which the module's build then shows. Not
  // cached.
  bool cacheable = fs::exists(dir / "stpx_control.o", ec);
  fs::remove_all(dir, ec);
  if (cacheable && !cached.empty()) {
    fs::create_directories(cached.parent_path(), ec);
    fs::path tmp = cached;
    tmp += fmt::format(".{}", getpid());
    std::ofstream(tmp) << header;
    fs::rename(tmp, cached, ec);
  }
  return header;
}

}  // namespace stapx
