// Fetching the kernel's DWARF by build ID (see debuginfod.h).
#include "translator/debuginfo/debuginfod.h"

#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "support/cache.h"
#include "support/hash.h"

namespace stapx {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string hex(const unsigned char* p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", p[i]);
  return out;
}

uint32_t u32(const std::string& s, size_t at) {
  uint32_t v = 0;
  if (at + 4 <= s.size()) std::memcpy(&v, s.data() + at, 4);
  return v;
}

// The NT_GNU_BUILD_ID of a run of ELF notes (/sys/kernel/notes).
std::optional<std::string> build_id_in_notes(const std::string& notes) {
  auto pad = [](uint32_t n) { return (n + 3) & ~3u; };
  for (size_t at = 0; at + 12 <= notes.size();) {
    uint32_t namesz = u32(notes, at), descsz = u32(notes, at + 4), type = u32(notes, at + 8);
    size_t name = at + 12, desc = name + pad(namesz);
    if (desc + descsz > notes.size()) break;
    if (type == NT_GNU_BUILD_ID && namesz == 4 && notes.compare(name, 3, "GNU") == 0 && descsz)
      return hex(reinterpret_cast<const unsigned char*>(notes.data() + desc), descsz);
    at = desc + pad(descsz);
  }
  return std::nullopt;
}

std::optional<std::string> build_id_of_elf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  elf_version(EV_CURRENT);
  Elf* e = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  std::optional<std::string> id;
  const void* p = nullptr;
  ssize_t n = e ? dwelf_elf_gnu_build_id(e, &p) : -1;
  if (n > 0) id = hex(static_cast<const unsigned char*>(p), static_cast<size_t>(n));
  if (e) elf_end(e);
  close(fd);
  return id;
}

// The vmlinux inside a bzImage: the setup header gives the compressed
// payload's place (payload_offset, payload_length, from the protected-mode
// code at (setup_sects + 1) * 512); its first bytes say the compressor,
// whose command-line tool unpacks it into `out`.
bool unpack_vmlinuz(const std::string& image, const std::string& out, std::string& why) {
  std::string d = read_file(image);
  if (d.size() < 0x250 || d.compare(0x202, 4, "HdrS") != 0) {
    why = image + " is not a bzImage";
    return false;
  }
  unsigned setup_sects = static_cast<unsigned char>(d[0x1f1]);
  if (!setup_sects) setup_sects = 4;
  size_t start = (setup_sects + 1) * 512ULL + u32(d, 0x248), len = u32(d, 0x24c);
  if (!len || start + len > d.size()) {
    why = image + " has no payload where its header says";
    return false;
  }
  std::string payload = d.substr(start, len);
  static const std::pair<std::string_view, const char*> tools[] = {
      {std::string_view("\x1f\x8b", 2), "gzip -dc"},
      {std::string_view("\xfd" "7zXZ\x00", 6), "xz -dc --single-stream"},
      {std::string_view("\x28\xb5\x2f\xfd", 4), "zstd -dc"},
      {std::string_view("\x02\x21\x4c\x18", 4), "lz4 -dc"},
      {std::string_view("BZh", 3), "bzip2 -dc"},
      {std::string_view("\x5d\x00", 2), "xz --format=lzma -dc"}};
  const char* tool = nullptr;
  for (auto& [magic, cmd] : tools)
    if (std::string_view(payload).substr(0, magic.size()) == magic) {
      tool = cmd;
      break;
    }
  if (!tool) {
    why = image + ": unknown compression";
    return false;
  }
  std::string packed = out + ".packed";
  std::ofstream(packed, std::ios::binary) << payload;
  std::string cmd = fmt::format("{} <'{}' >'{}' 2>/dev/null", tool, packed, out);
  int status = std::system(cmd.c_str());
  std::error_code ec;
  fs::remove(packed, ec);
  // (An image with appended data makes xz and gzip complain at the end
  // after writing everything: the ELF's notes decide.)
  (void)status;
  return true;
}

}  // namespace

std::optional<std::string> kernel_build_id(const std::string& release, const std::vector<std::string>& dirs,
                                           std::string& why) {
  struct utsname u;
  if (uname(&u) == 0 && release == u.release)
    if (auto id = build_id_in_notes(read_file("/sys/kernel/notes"))) return id;
  std::vector<std::string> images = {"/boot/vmlinuz-" + release};
  for (const std::string& d : dirs)
    for (const std::string& p : {d + "/boot/vmlinuz-" + release, d + "/../boot/vmlinuz-" + release, d + "/vmlinuz-" + release})
      images.push_back(p);
  std::error_code ec;
  for (const std::string& image : images) {
    struct stat st;
    if (::stat(image.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::string root = support::cache_dir();
    Fnv key;
    key.add(fs::weakly_canonical(image, ec).string());
    key.add(std::to_string(st.st_size));
    key.add(std::to_string(st.st_mtime));
    std::string cached = root.empty() ? "" : fmt::format("{}/build-ids/{:016x}", root, key.h);
    if (!cached.empty()) {
      std::string id = read_file(cached);
      if (id.size() >= 2 && id.find_first_not_of("0123456789abcdef") == std::string::npos) return id;
    }
    std::string tmpl = (fs::temp_directory_path() / "stapx-vmlinuzXXXXXX").string();
    int fd = mkstemp(tmpl.data());
    if (fd < 0) {
      why = std::string("cannot make a temporary file: ") + std::strerror(errno);
      return std::nullopt;
    }
    close(fd);
    std::optional<std::string> id;
    if (unpack_vmlinuz(image, tmpl, why)) {
      id = build_id_of_elf(tmpl);
      if (!id) why = "no build ID in the vmlinux of " + image;
    }
    fs::remove(tmpl, ec);
    if (id && !cached.empty()) support::write_cache_file(cached, *id);
    if (id) return id;
  }
  if (why.empty()) why = "no kernel image vmlinuz-" + release + " to read its build ID from";
  return std::nullopt;
}

namespace {

// A progress line for a long download, on a terminal only.
int progress(debuginfod_client*, long done, long total) {
  static long last = -1;
  if (total > 0 && done * 100 / total != last) {
    last = done * 100 / total;
    std::fprintf(stderr, "\rdebuginfod: %ld of %ld MB (%ld%%)", done >> 20, total >> 20, last);
    if (done >= total) std::fputc('\n', stderr);
  }
  return 0;
}

}  // namespace

namespace {

// The debug file of build ID `id` (hex) from the servers, `what` naming it
// in messages; asked once per ID and process.
std::optional<std::string> fetch(const std::string& id, const std::string& what, const char* urls) {
  static std::map<std::string, std::optional<std::string>> asked;
  if (auto it = asked.find(id); it != asked.end()) return it->second;
  std::optional<std::string>& answer = asked[id];
  debuginfod_client* client = debuginfod_begin();
  if (!client) {
    std::cerr << "stapx: debuginfod: cannot start its client\n";
    return answer;
  }
  if (isatty(STDERR_FILENO)) debuginfod_set_progressfn(client, progress);
  char* path = nullptr;
  int fd = debuginfod_find_debuginfo(client, reinterpret_cast<const unsigned char*>(id.c_str()), 0, &path);
  if (fd >= 0) {
    close(fd);
    answer = path;
  } else {
    std::cerr << "stapx: debuginfod: no " << what << " (build ID " << id << ") from " << urls << ": "
              << std::strerror(-fd) << "\n";
  }
  std::free(path);
  debuginfod_end(client);
  return answer;
}

const char* server_urls() {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  return urls && *urls ? urls : nullptr;
}

}  // namespace

std::optional<std::string> debuginfod_vmlinux(const std::string& release, const std::vector<std::string>& dirs) {
  const char* urls = server_urls();
  if (!urls) return std::nullopt;
  static std::set<std::string> no_id;  // releases whose build ID was not found (said once)
  if (no_id.count(release)) return std::nullopt;
  std::string why;
  std::optional<std::string> id = kernel_build_id(release, dirs, why);
  if (!id) {
    std::cerr << "stapx: debuginfod: cannot ask for vmlinux-" << release << ": " << why << "\n";
    no_id.insert(release);
    return std::nullopt;
  }
  return fetch(*id, "vmlinux-" + release, urls);
}

}  // namespace stapx
