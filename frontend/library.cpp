// Tapset directory selection and library macro loading.
#include "frontend/library.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace stapx {

namespace fs = std::filesystem;

std::vector<std::string> library_dirs(const std::vector<std::string>& search_path,
                                      const PreprocessFacts& facts) {
  std::vector<std::string> out;
  std::error_code ec;
  auto add = [&](const fs::path& p) {
    if (fs::is_directory(p, ec)) out.push_back(p.string());
  };
  const std::string runtime_dir = facts.runtime == "kernel" ? "linux" : facts.runtime;
  // stap's kernel-version subdirectories, most specific first: for
  // 6.1.0-56-amd64, 6.1.0-56-amd64/, 6.1.0/ and 6.1/ before the directory itself.
  std::vector<std::string> versions;
  if (facts.kernel_vr != "0") versions.push_back(facts.kernel_vr);
  if (facts.kernel_v != "0" && facts.kernel_v != facts.kernel_vr) versions.push_back(facts.kernel_v);
  if (size_t dot = facts.kernel_v.find('.'); dot != std::string::npos) {
    size_t second = facts.kernel_v.find('.', dot + 1);
    if (second != std::string::npos) versions.push_back(facts.kernel_v.substr(0, second));
  }
  for (const std::string& root : search_path) {
    fs::path r(root);
    for (const std::string& v : versions) add(r / v);
    add(r);
    add(r / runtime_dir);
    add(r / facts.arch);
    add(r / runtime_dir / facts.arch);
  }
  return out;
}

LibraryFiles list_library(const std::vector<std::string>& dirs) {
  // (readdir's names and types, not std::filesystem's entries: a pass 1
  // lists these directories every run, and making a path of each entry to
  // take its extension cost more than the listing.)
  LibraryFiles lib;
  // As a path's extension: a name that is all extension (".stp") has none.
  auto has_ext = [](std::string_view name, std::string_view ext) {
    return name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  for (const std::string& dir : dirs) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
    size_t first_script = lib.scripts.size(), first_macro = lib.macros.size();
    while (const dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      std::vector<std::string>* to = has_ext(name, ".stp")    ? &lib.scripts
                                     : has_ext(name, ".stpm") ? &lib.macros
                                                              : nullptr;
      if (!to) continue;
      std::string path = prefix + e->d_name;
      bool regular = e->d_type == DT_REG;
      if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
        struct stat st;
        regular = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
      }
      if (regular) to->push_back(std::move(path));
    }
    ::closedir(d);
    std::sort(lib.scripts.begin() + static_cast<std::ptrdiff_t>(first_script), lib.scripts.end());
    std::sort(lib.macros.begin() + static_cast<std::ptrdiff_t>(first_macro), lib.macros.end());
  }
  return lib;
}

namespace {

// The whole of open file `fd` (closed here). One read of the size fstat
// gives (a pass reads hundreds of library files: a stream's buffering
// costs a copy and three system calls more per file); a file without a
// size (/proc) or that grew is read on to its end.
std::string read_all(int fd) {
  std::string out;
  if (fd < 0) return out;
  struct stat st;
  size_t expected = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0;
  out.resize(expected > 0 ? expected : 4096);
  size_t have = 0;
  while (true) {
    if (have == out.size()) out.resize(2 * out.size());
    ssize_t n = ::read(fd, out.data() + have, out.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    if (have == expected) break;  // all of it, as its size said
  }
  ::close(fd);
  out.resize(have);
  return out;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  return read_all(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
}

FileReader::~FileReader() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

std::string FileReader::read(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return read_text_file(path);
  std::string_view dir(path.data(), slash);
  if (dir != dir_) {
    if (dir_fd_ >= 0) ::close(dir_fd_);
    dir_.assign(dir);
    dir_fd_ = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  if (dir_fd_ < 0) return read_text_file(path);
  return read_all(::openat(dir_fd_, path.c_str() + slash + 1, O_RDONLY | O_CLOEXEC));
}

size_t load_library_macros(SourceManager& sm, const LibraryFiles& lib, const PreprocessFacts& facts,
                           MacroTable& macros, DiagSink& diags) {
  FileReader reader;
  for (const std::string& f : lib.macros) {
    uint32_t id = sm.add(f, reader.read(f), /*is_tapset=*/true);
    preprocess(sm, id, facts, macros, diags, /*library=*/true);
  }
  return lib.macros.size();
}

}  // namespace stapx
