// Reading a user-space ELF file's functions (user_binary.h).
#include "translator/debuginfo/user_binary.h"

#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>

#include "support/glob.h"

namespace stapx::debug {

UserBinary::Fd::~Fd() {
  if (fd >= 0) ::close(fd);
}

namespace {

struct ElfHandle {
  Elf* elf;
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
};

}  // namespace

std::unique_ptr<UserBinary> UserBinary::open(const std::string& path, std::string& error) {
  elf_version(EV_CURRENT);
  auto b = std::unique_ptr<UserBinary>(new UserBinary);
  b->file_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (b->file_.fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (fstat(b->file_.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + " is not a regular file";
    return nullptr;
  }
  ElfHandle elf{elf_begin(b->file_.fd, ELF_C_READ_MMAP, nullptr)};
  GElf_Ehdr eh;
  if (!elf.elf || elf_kind(elf.elf) != ELF_K_ELF || !gelf_getehdr(elf.elf, &eh)) {
    error = path + " is not an ELF file";
    return nullptr;
  }
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
    error = path + " is not an executable or a shared library";
    return nullptr;
  }
  if (eh.e_machine != EM_X86_64) {
    error = path + " is not an x86-64 program";
    return nullptr;
  }
  b->path_ = path;
  b->size_ = static_cast<uint64_t>(st.st_size);
  b->shared_ = eh.e_type == ET_DYN;

  size_t nphdr = 0;
  elf_getphdrnum(elf.elf, &nphdr);
  for (size_t i = 0; i < nphdr; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf.elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
    b->loads_.push_back({ph.p_vaddr, ph.p_filesz, ph.p_offset});
    if (ph.p_flags & PF_X) b->code_.push_back({ph.p_vaddr, ph.p_filesz, ph.p_offset});
  }

  // .symtab has every function; a stripped file keeps .dynsym's.
  Elf_Scn* symtab = nullptr;
  Elf_Scn* dynsym = nullptr;
  std::vector<Elf_Scn*> sdt, relas, stubs;  // (stubs: .plt and .plt.sec)
  std::optional<uint64_t> sdt_base;         // where .stapsdt.base is now
  size_t shstrndx = 0;
  elf_getshdrstrndx(elf.elf, &shstrndx);
  for (Elf_Scn* scn = elf_nextscn(elf.elf, nullptr); scn; scn = elf_nextscn(elf.elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    if (sh.sh_type == SHT_SYMTAB) symtab = scn;
    if (sh.sh_type == SHT_DYNSYM) dynsym = scn;
    if (sh.sh_type == SHT_RELA) relas.push_back(scn);
    if (sh.sh_type == SHT_DYNAMIC) {
      Elf_Data* d = elf_getdata(scn, nullptr);
      GElf_Dyn dyn;
      for (size_t k = 0; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize && gelf_getdyn(d, static_cast<int>(k), &dyn); ++k)
        if (dyn.d_tag == DT_NEEDED)
          if (const char* lib = elf_strptr(elf.elf, sh.sh_link, dyn.d_un.d_val)) b->needed_.emplace_back(lib);
    }
    const char* name = elf_strptr(elf.elf, shstrndx, sh.sh_name);
    if (!name) continue;
    if (sh.sh_type == SHT_NOTE && std::strcmp(name, ".note.stapsdt") == 0) sdt.push_back(scn);
    if (sh.sh_type == SHT_NOTE && b->build_id_note_.empty()) b->find_build_id(scn, sh.sh_offset);
    if (std::strcmp(name, ".stapsdt.base") == 0) sdt_base = sh.sh_addr;
    if (std::strcmp(name, ".plt") == 0 || std::strcmp(name, ".plt.sec") == 0) stubs.push_back(scn);
  }
  b->read_notes(sdt, sdt_base);
  b->build_id_ = elf_build_id(elf.elf);
  b->read_plt(elf.elf, relas, stubs);
  std::map<std::string, UserFunction> by_name;
  for (Elf_Scn* scn : {symtab, dynsym}) {
    if (!scn || !by_name.empty()) continue;
    GElf_Shdr sh;
    gelf_getshdr(scn, &sh);
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || sh.sh_entsize == 0) continue;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      int type = GELF_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      const char* name = elf_strptr(elf.elf, sh.sh_link, sym.st_name);
      if (!name || !*name) continue;
      if (type == STT_OBJECT || type == STT_NOTYPE || type == STT_FUNC) b->symbols_.try_emplace(name, sym.st_value);
      if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
      UserFunction f;
      f.name = name;
      // "malloc@@GLIBC_2.2.5" in some tables: the name is the part before '@'.
      if (size_t at = f.name.find('@'); at != std::string::npos) f.name.erase(at);
      f.address = sym.st_value;
      f.size = sym.st_size;
      int bind = GELF_ST_BIND(sym.st_info);
      f.global = bind == STB_GLOBAL || bind == STB_WEAK;
      if (!b->file_offset(f.address, f.offset)) continue;
      // A global definition wins over a local one of the same name.
      auto [it, added] = by_name.try_emplace(f.name, f);
      if (!added && GELF_ST_BIND(sym.st_info) == STB_GLOBAL) it->second = f;
    }
  }
  for (auto& [name, f] : by_name) b->functions_.push_back(std::move(f));
  return b;
}

std::vector<UserFunction> UserBinary::functions(const std::string& pattern) const {
  std::vector<UserFunction> out;
  support::NamePattern match(pattern);
  for (const UserFunction& f : functions_)
    if (match.matches(f.name)) out.push_back(f);
  return out;
}

void UserBinary::read_plt(Elf* elf, const std::vector<Elf_Scn*>& relas, const std::vector<Elf_Scn*>& stubs) {
  // The GOT slots the jump-slot relocations fill, by address: their symbols.
  std::map<uint64_t, std::string> slots;
  for (Elf_Scn* scn : relas) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    Elf_Scn* symscn = elf_getscn(elf, sh.sh_link);
    GElf_Shdr symsh;
    Elf_Data* syms = symscn ? elf_getdata(symscn, nullptr) : nullptr;
    if (!data || !syms || !gelf_getshdr(symscn, &symsh)) continue;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Rela r;
      GElf_Sym sym;
      if (!gelf_getrela(data, static_cast<int>(i), &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT) continue;
      if (!gelf_getsym(syms, static_cast<int>(GELF_R_SYM(r.r_info)), &sym)) continue;
      if (const char* n = elf_strptr(elf, symsh.sh_link, sym.st_name); n && *n) slots[r.r_offset] = n;
    }
  }
  // Each 16-byte stub jumps through its slot: jmp *disp(%rip) (ff 25),
  // maybe after endbr64 and a bnd prefix; the first stub of .plt is the
  // resolver's, which no slot names.
  std::map<std::string, UserFunction> by_name;
  for (Elf_Scn* scn : stubs) {
    GElf_Shdr sh;
    Elf_Data* data = gelf_getshdr(scn, &sh) ? elf_getdata(scn, nullptr) : nullptr;
    if (!data || !data->d_buf) continue;
    const auto* bytes = static_cast<const unsigned char*>(data->d_buf);
    for (uint64_t at = 0; at + 16 <= data->d_size; at += 16) {
      for (uint64_t k = 0; k + 6 <= 16; ++k) {
        if (bytes[at + k] != 0xff || bytes[at + k + 1] != 0x25) continue;
        int32_t disp;
        std::memcpy(&disp, bytes + at + k + 2, 4);
        auto it = slots.find(sh.sh_addr + at + k + 6 + static_cast<int64_t>(disp));
        if (it != slots.end()) {
          UserFunction f;
          f.name = it->second;
          f.address = sh.sh_addr + at;
          f.size = 16;
          if (file_offset(f.address, f.offset)) by_name.try_emplace(f.name, f);
        }
        break;
      }
    }
  }
  for (auto& [name, f] : by_name) plt_.push_back(std::move(f));
}

void UserBinary::read_notes(const std::vector<Elf_Scn*>& sections, std::optional<uint64_t> base) {
  for (Elf_Scn* scn : sections) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    GElf_Nhdr nh;
    size_t name_at = 0, desc_at = 0;
    for (size_t at = 0; (at = gelf_getnote(data, at, &nh, &name_at, &desc_at)) != 0;) {
      const char* bytes = static_cast<const char*>(data->d_buf);
      if (nh.n_type != 3 || nh.n_namesz != 8 || std::memcmp(bytes + name_at, "stapsdt", 8) != 0) continue;
      if (nh.n_descsz < 3 * 8 + 3) continue;
      const char* desc = bytes + desc_at;
      const char* end = desc + nh.n_descsz;
      uint64_t words[3];
      std::memcpy(words, desc, sizeof(words));
      SdtNote n;
      n.pc = words[0];
      n.semaphore = words[2];
      // (A prelinked file moved .stapsdt.base and the notes' addresses with it.)
      if (base && *base != words[1]) {
        n.pc += *base - words[1];
        if (n.semaphore) n.semaphore += *base - words[1];
      }
      const char* s = desc + sizeof(words);
      auto next = [&](std::string& out) {
        const char* z = static_cast<const char*>(std::memchr(s, '\0', static_cast<size_t>(end - s)));
        if (!z) return false;
        out.assign(s, z);
        s = z + 1;
        return true;
      };
      if (next(n.provider) && next(n.name) && next(n.args)) notes_.push_back(std::move(n));
    }
  }
}

namespace {

// reg + offset from a CFA rule (libdw gives DW_OP_bregx reg, offset; a
// DW_OP_bregN form is taken too), for rsp (7) and rbp (6) only.
bool cfa_rule(Dwarf_Op* ops, size_t nops, bool& rbp, int32_t& offset) {
  if (nops != 1) return false;
  uint64_t reg = ops[0].atom == DW_OP_bregx ? ops[0].number : ops[0].atom - DW_OP_breg0;
  int64_t off = static_cast<int64_t>(ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number);
  if (ops[0].atom != DW_OP_bregx && (ops[0].atom < DW_OP_breg0 || ops[0].atom > DW_OP_breg31)) return false;
  if (reg != 7 && reg != 6) return false;
  rbp = reg == 6;
  offset = static_cast<int32_t>(off);
  return true;
}

// CFA + offset from a saved register's location (DW_OP_call_frame_cfa,
// then nothing or a constant added).
bool saved_at(Dwarf_Op* ops, size_t nops, int32_t& offset) {
  if (nops < 1 || ops[0].atom != DW_OP_call_frame_cfa) return false;
  if (nops == 1) {
    offset = 0;
    return true;
  }
  if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
    offset = static_cast<int32_t>(ops[1].number);
    return true;
  }
  if (nops == 3 && (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu) &&
      (ops[2].atom == DW_OP_plus || ops[2].atom == DW_OP_minus)) {
    int64_t k = static_cast<int64_t>(ops[1].number);
    offset = static_cast<int32_t>(ops[2].atom == DW_OP_plus ? k : -k);
    return true;
  }
  return false;
}

// The start addresses of the file's FDEs, sorted, from .eh_frame_hdr's
// search table (in the encoding every x86-64 linker writes: a udata4
// count and datarel sdata4 entries); empty if it has none stapx reads.
std::vector<uint64_t> fde_starts(Elf* elf) {
  std::vector<uint64_t> out;
  size_t shstrndx = 0;
  elf_getshdrstrndx(elf, &shstrndx);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : nullptr;
    if (!name || std::strcmp(name, ".eh_frame_hdr") != 0) continue;
    Elf_Data* d = elf_getdata(scn, nullptr);
    const auto* p = d ? static_cast<const unsigned char*>(d->d_buf) : nullptr;
    if (!p || d->d_size < 12 || p[0] != 1 || p[2] != 0x03 || p[3] != 0x3b) return out;
    uint32_t count;
    std::memcpy(&count, p + 8, 4);
    if (12 + static_cast<uint64_t>(count) * 8 > d->d_size) return out;
    for (uint32_t i = 0; i < count; ++i) {
      int32_t loc;
      std::memcpy(&loc, p + 12 + i * 8, 4);
      out.push_back(sh.sh_addr + static_cast<int64_t>(loc));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  return out;
}

}  // namespace

const std::vector<UnwindRow>& UserBinary::unwind_rows() const {
  if (rows_) return *rows_;
  rows_.emplace();
  ElfHandle elf{elf_begin(file_.fd, ELF_C_READ_MMAP, nullptr)};
  Dwarf_CFI* cfi = elf.elf ? dwarf_getcfi_elf(elf.elf) : nullptr;
  if (!cfi) return *rows_;
  // The ranges to read rows for: each FDE's (up to the next one's), or,
  // without .eh_frame_hdr, each function's.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::vector<uint64_t> starts = fde_starts(elf.elf);
  for (size_t i = 0; i < starts.size(); ++i)
    ranges.emplace_back(starts[i], i + 1 < starts.size() ? starts[i + 1] : UINT64_MAX);
  if (ranges.empty())
    for (const UserFunction& f : functions_) ranges.emplace_back(f.address, f.address + f.size);
  std::sort(ranges.begin(), ranges.end());
  for (const auto& [begin, end] : ranges) {
    uint64_t last = begin;  // (where the rows read stop)
    for (uint64_t at = begin; at < end;) {
      Dwarf_Frame* frame = nullptr;
      Dwarf_Addr start = 0, stop = 0;
      if (dwarf_cfi_addrframe(cfi, at, &frame) != 0) break;
      dwarf_frame_info(frame, &start, &stop, nullptr);
      UnwindRow row;
      Dwarf_Op* ops = nullptr;
      size_t nops = 0;
      Dwarf_Op mem[3];
      bool ok = dwarf_frame_cfa(frame, &ops, &nops) == 0 && cfa_rule(ops, nops, row.cfa_rbp, row.cfa_offset);
      int32_t ra = 0;
      ok = ok && dwarf_frame_register(frame, 16, mem, &ops, &nops) == 0 && saved_at(ops, nops, ra) && ra == -8;
      if (ok && dwarf_frame_register(frame, 6, mem, &ops, &nops) == 0 && nops > 0 &&
          !saved_at(ops, nops, row.bp_offset))
        row.bp_offset = 0;  // (an rbp rule stapx does not follow: taken as unchanged)
      if (!ok) row.cfa_offset = 0;
      std::free(frame);
      uint64_t from = std::max<uint64_t>(at, start);
      if (!file_offset(from, row.offset)) break;
      rows_->push_back(row);  // (one per offset: below)
      if (stop <= at) break;
      at = last = stop;
    }
    // (Past the FDE or function: no rule until the next one's.)
    uint64_t after = 0;
    if (last > begin && (file_offset(last, after) || file_offset(last - 1, after))) {
      UnwindRow none;
      none.offset = file_offset(last, after) ? after : after + 1;
      rows_->push_back(none);
    }
  }
  dwarf_cfi_end(cfi);
  // By offset, one row each: where an end-of-range row and the next
  // range's first row share one, the range's.
  std::stable_sort(rows_->begin(), rows_->end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  std::vector<UnwindRow> kept;
  for (const UnwindRow& r : *rows_) {
    if (!kept.empty() && kept.back().offset == r.offset) {
      if (r.cfa_offset) kept.back() = r;
      continue;
    }
    kept.push_back(r);
  }
  *rows_ = std::move(kept);
  return *rows_;
}

std::string UserBinary::function_at(uint64_t addr) const {
  for (const UserFunction& f : functions_)
    if (addr >= f.address && addr < f.address + std::max<uint64_t>(f.size, 1)) return f.name;
  return "";
}

std::optional<uint64_t> UserBinary::symbol_address(const std::string& name) const {
  auto it = symbols_.find(name);
  if (it == symbols_.end()) return std::nullopt;
  return it->second;
}

bool UserBinary::data_offset(uint64_t addr, uint64_t& offset) const {
  for (const Segment& s : loads_)
    if (addr >= s.vaddr && addr < s.vaddr + s.filesz) {
      offset = addr - s.vaddr + s.offset;
      return true;
    }
  return false;
}

bool UserBinary::file_offset(uint64_t addr, uint64_t& offset) const {
  for (const Segment& s : code_)
    if (addr >= s.vaddr && addr < s.vaddr + s.filesz) {
      offset = addr - s.vaddr + s.offset;
      return true;
    }
  return false;
}

void UserBinary::find_build_id(::Elf_Scn* scn, uint64_t section_offset) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  GElf_Nhdr nh;
  size_t name_at = 0, desc_at = 0;
  for (size_t at = 0; data && (at = gelf_getnote(data, at, &nh, &name_at, &desc_at)) > 0;)
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
        std::memcmp(static_cast<const char*>(data->d_buf) + name_at, "GNU", 4) == 0) {
      build_id_note_.assign(static_cast<const char*>(data->d_buf) + desc_at, nh.n_descsz);
      build_id_offset_ = section_offset + desc_at;
      return;
    }
}

std::array<uint8_t, 4> UserBinary::code_at(uint64_t offset) const {
  std::array<uint8_t, 4> out{};
  (void)!pread(file_.fd, out.data(), out.size(), static_cast<off_t>(offset));
  return out;
}

const std::vector<std::string>& shared_library_dirs() {
  static const std::vector<std::string> dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                                                "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"};
  return dirs;
}

std::string elf_build_id(::Elf* elf) {
  static const char hex[] = "0123456789abcdef";
  const void* id = nullptr;
  std::string out;
  ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
  for (ssize_t i = 0; i < n; ++i) {
    unsigned char byte = static_cast<const unsigned char*>(id)[i];
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
  return out;
}

std::string find_shared_library(const std::string& name) {
  if (name.find('/') != std::string::npos) return "";
  for (const std::string& dir : shared_library_dirs()) {
    char resolved[PATH_MAX];
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), R_OK) == 0 && ::realpath(candidate.c_str(), resolved)) return resolved;
  }
  return "";
}

std::string resolve_process_path(const std::string& path, std::string& error) {
  std::string found = path;
  if (path.empty()) {
    error = "an empty path";
    return "";
  }
  if (path.find('/') == std::string::npos) {
    found.clear();
    const char* env = std::getenv("PATH");
    std::string dirs = env ? env : "/usr/local/bin:/usr/bin:/bin";
    for (size_t at = 0; at <= dirs.size();) {
      size_t colon = dirs.find(':', at);
      std::string dir = dirs.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
      std::string candidate = (dir.empty() ? "." : dir) + "/" + path;
      if (::access(candidate.c_str(), X_OK) == 0) {
        found = candidate;
        break;
      }
      if (colon == std::string::npos) break;
      at = colon + 1;
    }
    if (found.empty()) {
      error = "no executable named " + path + " in $PATH";
      return "";
    }
  }
  char resolved[PATH_MAX];
  if (!::realpath(found.c_str(), resolved)) {
    error = "cannot find " + found + ": " + std::strerror(errno);
    return "";
  }
  return resolved;
}

}  // namespace stapx::debug
