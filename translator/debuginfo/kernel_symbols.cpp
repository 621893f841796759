// Kernel function symbols from a vmlinux (libelf), /proc/kallsyms, or a
// fixture. What the kernel won't kprobe (kernel/kprobes.c and
// arch/x86/kernel/kprobes/core.c): addresses listed in _kprobe_blacklist
// (NOKPROBE_SYMBOL), the .kprobes.text, .noinstr.text and .entry.text
// ranges, retpoline/return thunks, and .init/.exit text freed after boot.
#include "translator/debuginfo/kernel_symbols.h"

#include "support/cache.h"
#include "support/glob.h"
#include "support/strings.h"
#include "translator/similar.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace stapx {

const KernelFunction* KernelSymbols::find(const std::string& name) const {
  const auto& fs = functions();
  auto it = std::lower_bound(fs.begin(), fs.end(), name,
                             [](const KernelFunction& f, const std::string& n) { return f.name < n; });
  return it != fs.end() && it->name == name ? &*it : nullptr;
}

namespace {

class TableSymbols : public KernelSymbols {
 public:
  TableSymbols(std::vector<KernelFunction> fs, std::string source) : fs_(std::move(fs)), source_(std::move(source)) {
    // A cached table is sorted already.
    auto by_name = [](const auto& a, const auto& b) { return a.name < b.name; };
    if (!std::is_sorted(fs_.begin(), fs_.end(), by_name)) std::sort(fs_.begin(), fs_.end(), by_name);
    // One entry per name; a name is probeable if any of its copies is.
    size_t kept = 0;
    for (size_t i = 0; i < fs_.size(); ++i) {
      if (kept && fs_[kept - 1].name == fs_[i].name) {
        if (fs_[i].unprobeable.empty()) fs_[kept - 1].unprobeable.clear();
        continue;
      }
      if (kept != i) fs_[kept] = std::move(fs_[i]);
      ++kept;
    }
    fs_.resize(kept);
  }
  const std::vector<KernelFunction>& functions() const override { return fs_; }
  std::string source() const override { return source_; }

 private:
  std::vector<KernelFunction> fs_;
  std::string source_;
};

// Names the kernel refuses whatever their section.
std::string unprobeable_by_name(const std::string& name) {
  if (name.rfind("__x86_indirect_thunk", 0) == 0 || name.rfind("__x86_indirect_jump_thunk", 0) == 0 ||
      name == "__x86_return_thunk" || name.rfind("__pfx_", 0) == 0)
    return "a retpoline or return thunk";
  if (name.find(".cold") != std::string::npos) return "a .cold fragment";
  return {};
}

// Cache file format: "stapx-ksyms 2" then one "name\treason" line each, sorted
// by name, each name once (version 1 was unsorted).
constexpr const char* kCacheMagic = "stapx-ksyms 2";

std::optional<std::vector<KernelFunction>> read_cache(const std::string& file) {
  std::string text;
  {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return std::nullopt;
    text.resize(static_cast<size_t>(in.tellg()));
    in.seekg(0);
    if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) return std::nullopt;
  }
  std::string_view rest(text);
  size_t nl = rest.find('\n');
  if (nl == std::string_view::npos || rest.substr(0, nl) != kCacheMagic) return std::nullopt;
  rest.remove_prefix(nl + 1);
  std::vector<KernelFunction> fs;
  fs.reserve(std::count(rest.begin(), rest.end(), '\n'));
  while (!rest.empty()) {
    nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos) return std::nullopt;
    fs.push_back({std::string(line.substr(0, tab)), std::string(line.substr(tab + 1))});
  }
  return fs;
}

void write_cache(const std::string& file, const std::vector<KernelFunction>& fs) {
  std::string text = std::string(kCacheMagic) + "\n";
  for (const auto& f : fs) text += f.name + '\t' + f.unprobeable + '\n';
  support::write_cache_file(file, text);
}

// Reads the function symbols of an ELF vmlinux.
std::optional<std::vector<KernelFunction>> read_vmlinux(const std::string& path, std::string* error) {
  if (elf_version(EV_CURRENT) == EV_NONE) {
    *error = "libelf is unusable";
    return std::nullopt;
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open " + path;
    return std::nullopt;
  }
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  std::unique_ptr<Elf, std::function<void(Elf*)>> guard(elf, [fd](Elf* e) {
    if (e) elf_end(e);
    close(fd);
  });
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    *error = path + " is not an ELF file";
    return std::nullopt;
  }
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
    *error = path + ": no section names";
    return std::nullopt;
  }
  struct Sect {
    std::string name;
    bool exec = false;
  };
  std::map<size_t, Sect> sections;
  Elf_Scn* symtab = nullptr;
  Elf_Scn* blacklist = nullptr;
  GElf_Shdr symtab_hdr{};
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* n = elf_strptr(elf, shstrndx, sh.sh_name);
    Sect s{n ? n : "", (sh.sh_flags & SHF_EXECINSTR) != 0};
    if (sh.sh_type == SHT_SYMTAB) {
      symtab = scn;
      symtab_hdr = sh;
    }
    if (s.name == "_kprobe_blacklist") blacklist = scn;
    sections[elf_ndxscn(scn)] = s;
  }
  if (!symtab) {
    *error = path + " has no symbol table";
    return std::nullopt;
  }
  Elf_Data* data = elf_getdata(symtab, nullptr);
  size_t n = symtab_hdr.sh_entsize ? symtab_hdr.sh_size / symtab_hdr.sh_entsize : 0;
  struct Sym {
    std::string name;
    uint64_t addr;
    std::string section;
  };
  std::vector<Sym> funcs;
  std::map<std::string, uint64_t> markers;  // __kprobes_text_start and friends
  for (size_t i = 0; data && i < n; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
    const char* name = elf_strptr(elf, symtab_hdr.sh_link, sym.st_name);
    if (!name || !*name) continue;
    std::string nm = name;
    if ((nm.size() > 11 && nm.compare(nm.size() - 11, 11, "_text_start") == 0) ||
        (nm.size() > 9 && nm.compare(nm.size() - 9, 9, "_text_end") == 0) || nm == "__start_kprobe_blacklist" ||
        nm == "__stop_kprobe_blacklist")
      markers[nm] = sym.st_value;
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC) continue;
    auto sec = sections.find(sym.st_shndx);
    if (sec == sections.end() || !sec->second.exec) continue;
    funcs.push_back({nm, sym.st_value, sec->second.name});
  }
  // NOKPROBE_SYMBOL() addresses: the _kprobe_blacklist section of an
  // object file, or in a linked vmlinux the words between
  // __start_kprobe_blacklist and __stop_kprobe_blacklist (in init data).
  std::set<uint64_t> listed;
  auto read_words = [&](Elf_Scn* scn, uint64_t from, uint64_t to) {
    GElf_Shdr sh;
    Elf_Data* d = gelf_getshdr(scn, &sh) ? elf_getdata(scn, nullptr) : nullptr;
    if (!d || !d->d_buf || sh.sh_type == SHT_NOBITS) return;
    for (uint64_t a = std::max(from, sh.sh_addr); a + 8 <= std::min(to, sh.sh_addr + d->d_size); a += 8) {
      uint64_t w;
      std::memcpy(&w, static_cast<const char*>(d->d_buf) + (a - sh.sh_addr), 8);
      listed.insert(w);
    }
  };
  if (blacklist) {
    GElf_Shdr sh;
    if (gelf_getshdr(blacklist, &sh)) read_words(blacklist, sh.sh_addr, sh.sh_addr + sh.sh_size);
  }
  if (markers.count("__start_kprobe_blacklist") && markers.count("__stop_kprobe_blacklist")) {
    uint64_t lo = markers["__start_kprobe_blacklist"], hi = markers["__stop_kprobe_blacklist"];
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) && sh.sh_addr && lo >= sh.sh_addr && lo < sh.sh_addr + sh.sh_size)
        read_words(scn, lo, hi);
    }
  }
  struct Range {
    const char* what;
    uint64_t lo = 0, hi = 0;
  };
  std::vector<Range> ranges;
  for (const char* r : {"__kprobes", "__noinstr", "__entry", "__irqentry", "__softirqentry"}) {
    auto lo = markers.find(std::string(r) + "_text_start"), hi = markers.find(std::string(r) + "_text_end");
    if (lo != markers.end() && hi != markers.end())
      ranges.push_back({r, lo->second, hi->second});
  }
  std::vector<KernelFunction> out;
  out.reserve(funcs.size());
  for (const Sym& s : funcs) {
    std::string why = unprobeable_by_name(s.name);
    if (why.empty() && listed.count(s.addr)) why = "in the kernel's kprobe blacklist";
    if (why.empty() && (s.section.rfind(".init.", 0) == 0 || s.section.rfind(".exit.", 0) == 0))
      why = "in " + s.section + ", freed after boot";
    for (const Range& r : ranges)
      if (why.empty() && s.addr >= r.lo && s.addr < r.hi) why = std::string("in .") + (r.what + 2) + ".text";
    out.push_back({s.name, why});
  }
  return out;
}

// The cache file `kind`-KEY.txt of a vmlinux, KEY naming its path, size
// and modification time; empty without a cache directory.
std::string cache_file(const std::string& path, const struct stat& st, const char* kind) {
  std::string dir = support::cache_dir();
  if (dir.empty()) return {};
  std::string key = std::to_string(std::hash<std::string>{}(std::filesystem::absolute(path).string() + "|" +
                                                              std::to_string(st.st_size) + "|" +
                                                              std::to_string(st.st_mtim.tv_sec) + "." +
                                                              std::to_string(st.st_mtim.tv_nsec)));
  return dir + "/" + kind + "-" + key + ".txt";
}

std::vector<KernelFunction> unprobeable_of(const std::vector<KernelFunction>& fs) {
  std::vector<KernelFunction> out;
  for (const KernelFunction& f : fs)
    if (!f.unprobeable.empty()) out.push_back(f);
  return out;
}

}  // namespace

std::unique_ptr<KernelSymbols> vmlinux_symbols(const std::string& path, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "cannot read " + path;
    return nullptr;
  }
  std::string file = cache_file(path, st, "ksyms");
  if (!file.empty()) {
    if (auto cached = read_cache(file))
      return std::make_unique<TableSymbols>(std::move(*cached), "vmlinux " + path + " (cached index " + file + ")");
  }
  auto fs = read_vmlinux(path, error);
  if (!fs) return nullptr;
  auto table = std::make_unique<TableSymbols>(std::move(*fs), "vmlinux " + path);
  if (!file.empty()) {
    write_cache(file, table->functions());  // sorted: the next read need not sort
    write_cache(cache_file(path, st, "kunprobe"), unprobeable_of(table->functions()));
  }
  return table;
}

std::unique_ptr<KernelSymbols> vmlinux_unprobeable(const std::string& path, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "cannot read " + path;
    return nullptr;
  }
  std::string file = cache_file(path, st, "kunprobe");
  if (!file.empty()) {
    if (auto cached = read_cache(file))
      return std::make_unique<TableSymbols>(std::move(*cached),
                                            "unprobeable functions of vmlinux " + path + " (cached index " + file + ")");
  }
  std::unique_ptr<KernelSymbols> all = vmlinux_symbols(path, error);
  if (!all) return nullptr;
  std::vector<KernelFunction> out = unprobeable_of(all->functions());
  if (!file.empty()) write_cache(file, out);
  return std::make_unique<TableSymbols>(std::move(out), "unprobeable functions of vmlinux " + path);
}

std::unique_ptr<KernelSymbols> kallsyms_symbols(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return nullptr;
  }
  // debugfs lists refused ranges as "0xSTART-0xEND\tname" (root only).
  std::set<std::string> blacklisted;
  if (std::ifstream bl("/sys/kernel/debug/kprobes/blacklist"); bl) {
    std::string range, name;
    while (bl >> range >> name) blacklisted.insert(name);
  }
  std::vector<KernelFunction> fs;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string addr, type, name, module;
    if (!(ls >> addr >> type >> name)) continue;
    if (ls >> module) continue;  // a module's symbol: kprobe.module() territory
    if (type != "t" && type != "T") continue;
    std::string why = unprobeable_by_name(name);
    if (why.empty() && blacklisted.count(name)) why = "in the kernel's kprobe blacklist";
    fs.push_back({name, why});
  }
  return std::make_unique<TableSymbols>(std::move(fs), path);
}

std::unique_ptr<KernelSymbols> fixture_symbols(std::vector<KernelFunction> functions) {
  return std::make_unique<TableSymbols>(std::move(functions), "fixture");
}

std::vector<const KernelFunction*> match_kernel_functions(const KernelSymbols& syms, const std::string& pattern,
                                                          std::vector<const KernelFunction*>* excluded) {
  std::vector<const KernelFunction*> out;
  if (!support::is_glob(pattern)) {
    if (const KernelFunction* f = syms.find(pattern)) {
      if (f->unprobeable.empty())
        out.push_back(f);
      else if (excluded)
        excluded->push_back(f);
    }
    return out;
  }
  for (const KernelFunction& f : syms.functions()) {
    if (!support::glob_match(pattern, f.name)) continue;
    if (f.unprobeable.empty())
      out.push_back(&f);
    else if (excluded)
      excluded->push_back(&f);
  }
  return out;
}

std::vector<std::string> similar_functions(const KernelSymbols& syms, const std::string& name, size_t n) {
  std::vector<std::string_view> names;
  names.reserve(syms.functions().size());
  for (const KernelFunction& f : syms.functions()) names.push_back(f.name);
  return similar_names(names, name, n);
}

void report_no_match(DiagSink& diags, SourceLoc at, const KernelSymbols* syms, const std::string& name) {
  std::vector<std::string> similar;
  if (syms && !support::is_glob(name)) similar = similar_functions(*syms, name, 5);
  if (similar.empty()) {
    diags.report(DiagId::SemNoMatch, at);
    return;
  }
  diags.report(DiagId::SemNoMatchSimilar, at, support::join(similar));
}

}  // namespace stapx
