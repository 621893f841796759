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

#include <fmt/format.h>

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
    // One entry per name; a name is probeable if any of its copies is,
    // and has no one address.
    size_t kept = 0;
    for (size_t i = 0; i < fs_.size(); ++i) {
      if (kept && fs_[kept - 1].name == fs_[i].name) {
        if (fs_[i].unprobeable.empty()) fs_[kept - 1].unprobeable.clear();
        fs_[kept - 1].addr = 0;
        fs_[kept - 1].traceable = false;
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

// Cache file format: "stapx-ksyms 3" then one "name\treason\taddr\tsize\tF"
// line each (address and size in hex; F "-", or "t" when traceable, "a"
// when aliased, or "ta"), sorted by name, each name once (version 1 was
// unsorted, 2 had no addresses).
constexpr const char* kCacheMagic = "stapx-ksyms 3";

// One line of the cache (without its newline); false if it is not one.
bool parse_hex(std::string_view text, uint64_t* v) {
  *v = 0;
  for (char c : text) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    *v = *v << 4 | static_cast<uint64_t>(d);
  }
  return !text.empty();
}

bool parse_cache_line(std::string_view line, KernelFunction* f) {
  size_t tab[4];
  for (size_t i = 0, from = 0; i < 4; from = tab[i++] + 1)
    if ((tab[i] = line.find('\t', from)) == std::string_view::npos) return false;
  std::string_view flags = line.substr(tab[3] + 1);
  f->name = std::string(line.substr(0, tab[0]));
  f->unprobeable = std::string(line.substr(tab[0] + 1, tab[1] - tab[0] - 1));
  f->traceable = flags.find('t') != std::string_view::npos;
  f->aliased = flags.find('a') != std::string_view::npos;
  return parse_hex(line.substr(tab[1] + 1, tab[2] - tab[1] - 1), &f->addr) &&
         parse_hex(line.substr(tab[2] + 1, tab[3] - tab[2] - 1), &f->size);
}

std::optional<std::string> read_file(const std::string& file) {
  std::string text;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  text.resize(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) return std::nullopt;
  return text;
}

// The lines of a cache file after its magic line; nullopt if it is not one.
std::optional<std::string_view> cache_body(std::string_view text) {
  size_t nl = text.find('\n');
  if (nl == std::string_view::npos || text.substr(0, nl) != kCacheMagic) return std::nullopt;
  return text.substr(nl + 1);
}

std::optional<std::vector<KernelFunction>> read_cache(const std::string& file) {
  std::optional<std::string> text = read_file(file);
  if (!text) return std::nullopt;
  std::optional<std::string_view> rest = cache_body(*text);
  if (!rest) return std::nullopt;
  std::vector<KernelFunction> fs;
  fs.reserve(std::count(rest->begin(), rest->end(), '\n'));
  while (!rest->empty()) {
    size_t nl = rest->find('\n');
    std::string_view line = rest->substr(0, nl);
    rest->remove_prefix(nl == std::string_view::npos ? rest->size() : nl + 1);
    if (!parse_cache_line(line, &fs.emplace_back())) return std::nullopt;
  }
  return fs;
}

std::string cache_text(const std::vector<KernelFunction>& fs) {
  std::string text = std::string(kCacheMagic) + "\n";
  for (const auto& f : fs)
    text += fmt::format("{}\t{}\t{:x}\t{:x}\t{}{}{}\n", f.name, f.unprobeable, f.addr, f.size,
                        f.traceable ? "t" : "", f.aliased ? "a" : "", f.traceable || f.aliased ? "" : "-");
  return text;
}

void write_cache(const std::string& file, const std::vector<KernelFunction>& fs) {
  if (!file.empty()) support::write_cache_file(file, cache_text(fs));
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
    uint64_t size;
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
        nm == "__stop_kprobe_blacklist" || nm == "__start_mcount_loc" || nm == "__stop_mcount_loc")
      markers[nm] = sym.st_value;
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC) continue;
    auto sec = sections.find(sym.st_shndx);
    if (sec == sections.end() || !sec->second.exec) continue;
    funcs.push_back({nm, sym.st_value, sym.st_size, sec->second.name});
  }
  // NOKPROBE_SYMBOL() addresses: the _kprobe_blacklist section of an
  // object file, or in a linked vmlinux the words between
  // __start_kprobe_blacklist and __stop_kprobe_blacklist (in init data).
  std::set<uint64_t> listed;
  auto read_words = [&](Elf_Scn* scn, uint64_t from, uint64_t to, auto&& take) {
    GElf_Shdr sh;
    Elf_Data* d = gelf_getshdr(scn, &sh) ? elf_getdata(scn, nullptr) : nullptr;
    if (!d || !d->d_buf || sh.sh_type == SHT_NOBITS) return;
    for (uint64_t a = std::max(from, sh.sh_addr); a + 8 <= std::min(to, sh.sh_addr + d->d_size); a += 8) {
      uint64_t w;
      std::memcpy(&w, static_cast<const char*>(d->d_buf) + (a - sh.sh_addr), 8);
      take(w);
    }
  };
  // The words between two marker symbols, in whichever section holds them.
  auto read_between = [&](const char* start, const char* stop, auto&& take) {
    if (!markers.count(start) || !markers.count(stop)) return;
    uint64_t lo = markers[start], hi = markers[stop];
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) && sh.sh_addr && lo >= sh.sh_addr && lo < sh.sh_addr + sh.sh_size)
        read_words(scn, lo, hi, take);
    }
  };
  auto list = [&](uint64_t w) { listed.insert(w); };
  if (blacklist) {
    GElf_Shdr sh;
    if (gelf_getshdr(blacklist, &sh)) read_words(blacklist, sh.sh_addr, sh.sh_addr + sh.sh_size, list);
  }
  read_between("__start_kprobe_blacklist", "__stop_kprobe_blacklist", list);
  // ftrace's call sites (the __fentry__ calls), for traceable.
  std::vector<uint64_t> mcount;
  read_between("__start_mcount_loc", "__stop_mcount_loc", [&](uint64_t w) { mcount.push_back(w); });
  std::sort(mcount.begin(), mcount.end());
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
  // Addresses two or more names share.
  std::map<uint64_t, int> names_at;
  for (const Sym& s : funcs) ++names_at[s.addr];
  std::vector<KernelFunction> out;
  out.reserve(funcs.size());
  for (const Sym& s : funcs) {
    std::string why = unprobeable_by_name(s.name);
    if (why.empty() && listed.count(s.addr)) why = "in the kernel's kprobe blacklist";
    if (why.empty() && (s.section.rfind(".init.", 0) == 0 || s.section.rfind(".exit.", 0) == 0))
      why = "in " + s.section + ", freed after boot";
    for (const Range& r : ranges)
      if (why.empty() && s.addr >= r.lo && s.addr < r.hi) why = std::string("in .") + (r.what + 2) + ".text";
    auto site = std::lower_bound(mcount.begin(), mcount.end(), s.addr);
    bool traceable = site != mcount.end() && *site < s.addr + std::max<uint64_t>(s.size, 1);
    out.push_back({s.name, why, s.addr, s.size, traceable, names_at[s.addr] > 1});
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

// The vmlinux's cache file `kind`-KEY.txt ("" without a cache
// directory); nullopt, with *error, when the vmlinux cannot be read.
std::optional<std::string> vmlinux_cache(const std::string& path, const char* kind, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "cannot read " + path;
    return std::nullopt;
  }
  return cache_file(path, st, kind);
}

std::vector<KernelFunction> unprobeable_of(const std::vector<KernelFunction>& fs) {
  std::vector<KernelFunction> out;
  for (const KernelFunction& f : fs)
    if (!f.unprobeable.empty()) out.push_back(f);
  return out;
}

}  // namespace

std::unique_ptr<KernelSymbols> vmlinux_symbols(const std::string& path, std::string* error) {
  std::optional<std::string> cache = vmlinux_cache(path, "ksyms", error);
  if (!cache) return nullptr;
  const std::string& file = *cache;
  if (!file.empty()) {
    if (auto cached = read_cache(file))
      return std::make_unique<TableSymbols>(std::move(*cached), "vmlinux " + path + " (cached index " + file + ")");
  }
  auto fs = read_vmlinux(path, error);
  if (!fs) return nullptr;
  auto table = std::make_unique<TableSymbols>(std::move(*fs), "vmlinux " + path);
  if (!file.empty()) {
    write_cache(file, table->functions());  // sorted: the next read need not sort
    write_cache(vmlinux_cache(path, "kunprobe", error).value_or(""), unprobeable_of(table->functions()));
  }
  return table;
}

std::unique_ptr<KernelSymbols> vmlinux_unprobeable(const std::string& path, std::string* error) {
  std::optional<std::string> cache = vmlinux_cache(path, "kunprobe", error);
  if (!cache) return nullptr;
  const std::string& file = *cache;
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
    // (All zero for a user without CAP_SYSLOG.)
    uint64_t at = std::strtoull(addr.c_str(), nullptr, 16);
    fs.push_back({name, why, at, 0, true, false});
  }
  // Sorted by address, as kallsyms lists them: a run of one address is a
  // set of aliases.
  for (size_t i = 0, j; i < fs.size(); i = j) {
    for (j = i + 1; j < fs.size() && fs[j].addr == fs[i].addr; ++j)
      ;
    for (size_t k = i; j - i > 1 && k < j; ++k) fs[k].aliased = true;
  }
  return std::make_unique<TableSymbols>(std::move(fs), path);
}

namespace {

FtraceAddresses::Entry entry_of(const KernelFunction& f) {
  if (!f.traceable || !f.unprobeable.empty()) return {};
  return {f.addr, f.size, f.aliased};
}

// A table's entries: looked up by name in the table itself.
class TableAddresses : public FtraceAddresses {
 public:
  explicit TableAddresses(const KernelSymbols& syms) : syms_(syms) {
    const KernelFunction* r = syms.find(kFtraceReference);
    ref_ = r ? r->addr : 0;
  }
  Entry entry(std::string_view name) const override {
    const KernelFunction* f = syms_.find(std::string(name));
    return f ? entry_of(*f) : Entry{};
  }
  uint64_t reference() const override { return ref_; }

 private:
  const KernelSymbols& syms_;
  uint64_t ref_ = 0;
};

// The cached index's text, each name found by bisecting its sorted lines.
class IndexAddresses : public FtraceAddresses {
 public:
  explicit IndexAddresses(std::string text) : text_(std::move(text)) {
    body_ = cache_body(text_).value_or(std::string_view());
    KernelFunction r;
    ref_ = lookup(kFtraceReference, &r) ? r.addr : 0;
  }
  bool valid() const { return !body_.empty(); }
  Entry entry(std::string_view name) const override {
    KernelFunction f;
    return lookup(name, &f) ? entry_of(f) : Entry{};
  }
  uint64_t reference() const override { return ref_; }

 private:
  bool lookup(std::string_view name, KernelFunction* f) const {
    // Invariant: the line holding `name`, if any, starts in [lo, hi).
    size_t lo = 0, hi = body_.size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      size_t start = mid == 0 ? 0 : body_.rfind('\n', mid - 1);
      start = mid == 0 || start == std::string_view::npos ? 0 : start + 1;
      size_t end = body_.find('\n', start);
      if (end == std::string_view::npos) end = body_.size();
      std::string_view line = body_.substr(start, end - start);
      std::string_view key = line.substr(0, line.find('\t'));
      if (key == name) return parse_cache_line(line, f);
      if (key < name)
        lo = end + 1;
      else
        hi = start;
    }
    return false;
  }

  std::string text_;
  std::string_view body_;
  uint64_t ref_ = 0;
};

}  // namespace

std::unique_ptr<FtraceAddresses> vmlinux_ftrace_addresses(const std::string& path, std::string* error) {
  std::optional<std::string> cache = vmlinux_cache(path, "ksyms", error);
  if (!cache) return nullptr;
  const std::string& file = *cache;
  if (!file.empty()) {
    if (!std::filesystem::exists(file) && !vmlinux_symbols(path, error)) return nullptr;  // (writes it)
    if (std::optional<std::string> text = read_file(file))
      if (auto index = index_ftrace_addresses(std::move(*text))) return index;
  }
  // No cache: the whole table, kept with its lookups.
  struct Owning : TableAddresses {
    Owning(std::unique_ptr<KernelSymbols> s) : TableAddresses(*s), syms(std::move(s)) {}
    std::unique_ptr<KernelSymbols> syms;
  };
  std::unique_ptr<KernelSymbols> syms = vmlinux_symbols(path, error);
  if (!syms) return nullptr;
  return std::make_unique<Owning>(std::move(syms));
}

std::unique_ptr<FtraceAddresses> table_ftrace_addresses(const KernelSymbols& syms) {
  return std::make_unique<TableAddresses>(syms);
}

std::string ksyms_index_text(const KernelSymbols& syms) { return cache_text(syms.functions()); }

std::unique_ptr<FtraceAddresses> index_ftrace_addresses(std::string text) {
  auto index = std::make_unique<IndexAddresses>(std::move(text));
  if (!index->valid()) return nullptr;
  return index;
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
