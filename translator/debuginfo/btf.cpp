// DebugInfo from BTF, the compact type format every Debian kernel carries
// (/sys/kernel/btf/vmlinux, the .BTF section of a vmlinux). BTF names every
// traceable function with its prototype, so kernel.function probes can
// read parameters at entry (the x86-64 calling convention puts the first
// six integer or pointer arguments in rdi rsi rdx rcx r8 r9, the rest on
// the stack) and $return, and follow ->field chains through the types.
// It has no locals, source files or lines. Format: the kernel's
// Documentation/bpf/btf.rst.
//
// A module's .BTF section is split BTF: its type ids and string offsets
// continue those of the vmlinux BTF it was built against (its base), which
// is loaded underneath it. A module's own symbol table says which of its
// functions are probe sites (not freed .init code) and which are global
// (.exported).
#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_map>

#include "support/glob.h"
#include <fmt/format.h>

#include "translator/debuginfo/debuginfo.h"

namespace stapx::debug {

namespace {

enum BtfKind : uint32_t {
  kInt = 1, kPtr, kArray, kStruct, kUnion, kEnum, kFwd, kTypedef, kVolatile, kConst, kRestrict,
  kFunc, kFuncProto, kVar, kDatasec, kFloat, kDeclTag, kTypeTag, kEnum64
};

struct BtfType {
  uint32_t name_off;
  uint32_t info;
  uint32_t size_or_type;
};

uint32_t kind_of(const BtfType* t) { return (t->info >> 24) & 0x1f; }
uint32_t vlen_of(const BtfType* t) { return t->info & 0xffff; }
bool kind_flag(const BtfType* t) { return t->info >> 31; }

// Bytes that follow the common header, by kind.
size_t extra_size(const BtfType* t) {
  switch (kind_of(t)) {
    case kInt: return 4;
    case kArray: return 12;
    case kStruct: case kUnion: return 12 * vlen_of(t);
    case kEnum: return 8 * vlen_of(t);
    case kFuncProto: return 8 * vlen_of(t);
    case kVar: return 4;
    case kDatasec: return 12 * vlen_of(t);
    case kDeclTag: return 4;
    case kEnum64: return 12 * vlen_of(t);
    default: return 0;
  }
}

constexpr unsigned kArgDwarfRegs[] = {5, 4, 1, 2, 8, 9};

// A FUNC's vlen: its linkage (pahole records every kernel function as static).
constexpr uint32_t kLinkageGlobal = 1;

// A module's function symbol: where it is (section-relative, .ko files
// being relocatable) and its binding.
struct ModuleFunc {
  std::string name;
  uint32_t section = 0;
  uint64_t value = 0;
  bool global = false;
};

class BtfInfo final : public DebugInfo, public TypeLoader {
 public:
  // `base`: the BTF that `data` is split from (empty: none).
  bool load(std::string data, const std::string& source, std::string& error, std::string base = {},
            const std::string& base_source = {}) {
    source_ = source;
    base_source_ = base_source;
    ids_.push_back(nullptr);  // id 0 is void
    if (!base.empty()) {
      base_.data = std::move(base);
      if (!parse(base_, base_source, error)) return false;
    }
    first_own_ = static_cast<uint32_t>(ids_.size());
    own_.data = std::move(data);
    if (!parse(own_, source, error)) return false;
    converted_.assign(ids_.size(), nullptr);
    return true;
  }

  // A module's function symbols, without those freed once it has loaded
  // (.init.*); functions_ says by name whether any is global.
  void set_functions(std::vector<ModuleFunc> symbols) {
    for (const ModuleFunc& f : symbols) functions_[f.name] |= f.global;
    has_functions_ = true;
    symbols_ = std::move(symbols);
  }

  std::string source() const override {
    return "BTF from " + source_ + (base_source_.empty() ? "" : " (split from " + base_source_ + ")");
  }

  // BTF has no source positions: a file filter keeps nothing.
  std::vector<ProbeSite> function_sites(const std::string& pattern, bool, const SiteFilter& filter) override {
    if (filter.file) return {};
    std::vector<ProbeSite> sites;
    std::vector<std::string> seen;
    support::NamePattern want(pattern);
    for (uint32_t id = first_own_; id < ids_.size(); ++id) {
      const BtfType* t = ids_[id];
      if (kind_of(t) != kFunc) continue;
      std::string name = str(t->name_off);
      if (!want.matches(name)) continue;
      if (has_functions_) {
        auto sym = functions_.find(name);
        if (sym == functions_.end() || (filter.exported_only && !sym->second)) continue;
      } else if (filter.exported_only && vlen_of(t) != kLinkageGlobal) {
        continue;
      }
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
      seen.push_back(name);
      const BtfType* proto = type(t->size_or_type);
      if (!proto || kind_of(proto) != kFuncProto) continue;
      ProbeSite site;
      site.function = site.symbol = name;
      site.at_entry = true;
      site.from_btf = true;
      site.return_type = proto->size_or_type ? convert(proto->size_or_type) : nullptr;
      auto* params = reinterpret_cast<const uint32_t*>(proto + 1);
      unsigned slot = 0;  // the integer argument slot of the next parameter
      for (uint32_t i = 0; i < vlen_of(proto); ++i) {
        std::string pname = str(params[2 * i]);
        uint32_t ptype = params[2 * i + 1];
        if (pname.empty() && ptype == 0) break;  // "..." of a variadic function
        Variable v;
        v.name = pname;
        v.is_param = true;
        v.type = convert(ptype);
        const DType* st = v.type->strip();
        uint64_t size = st->size();
        bool scalar = st->is_integral() || (st->kind == DType::Kind::Int);
        if (!scalar) {
          // Structs by value take one or two slots, or go to memory:
          // where exactly needs the classification rules DWARF spares us.
          v.loc.kind = Location::Kind::Unsupported;
          v.loc.why = "a structure passed by value (needs DWARF)";
          slot += size > 8 ? 2 : 1;
        } else if (slot < 6) {
          v.loc.kind = Location::Kind::Register;
          v.loc.reg = kArgDwarfRegs[slot++];
        } else {
          // At entry the return address is at rsp; stack arguments follow.
          v.loc.kind = Location::Kind::Memory;
          v.loc.expr = loc_add(loc_reg(7), 8 + 8 * (slot++ - 6));
        }
        if (!v.name.empty()) site.params.push_back(std::move(v));
      }
      add_sites(std::move(site), t, filter, sites);
    }
    std::sort(sites.begin(), sites.end(),
              [](const ProbeSite& a, const ProbeSite& b) { return a.function < b.function; });
    return sites;
  }

  // A module's function whose name several of its symbols have (static
  // functions of one name in two files: nfsd.ko's two nfsd_open): the
  // kernel would resolve the name to the first, so each is probed by a
  // uniquely named function before it in its section plus the distance
  // (the anchor), as DWARF sites are. BTF does not say which of its FUNCs
  // of that name is which: when their prototypes differ, no $var is
  // readable, and site.dwarf_hint says why.
  void add_sites(ProbeSite site, const BtfType* func, const SiteFilter& filter, std::vector<ProbeSite>& sites) {
    std::vector<const ModuleFunc*> same;
    for (const ModuleFunc& f : symbols_)
      if (f.name == site.symbol) same.push_back(&f);
    if (same.size() < 2) {
      sites.push_back(std::move(site));
      return;
    }
    if (name_counts_.empty())
      for (const ModuleFunc& f : symbols_) ++name_counts_[f.name];
    size_t protos = 0;
    bool differ = false, same_return = true;
    // (Integers of one size are read alike from rax: int and __be32.)
    auto integral = [&](const DType* t, size_t& size) {
      const DType* st = t ? t->strip() : nullptr;
      size = st ? st->size() : 0;
      return st && st->is_integral();
    };
    size_t size0 = 0, size = 0;
    bool int0 = integral(site.return_type, size0);
    for (uint32_t id = first_own_; id < ids_.size(); ++id)
      if (kind_of(ids_[id]) == kFunc && str(ids_[id]->name_off) == site.symbol) {
        ++protos;
        if (ids_[id]->size_or_type == func->size_or_type) continue;
        differ = true;
        const BtfType* proto = type(ids_[id]->size_or_type);
        const DType* ret = proto && proto->size_or_type ? convert(proto->size_or_type) : nullptr;
        same_return = same_return && int0 && integral(ret, size) && size == size0;
      }
    if (differ) {
      site.params.clear();
      if (!same_return) site.return_type = nullptr;
      // (The caller puts where to get DWARF in front.)
      site.dwarf_hint = fmt::format("({} has {} functions named {} whose BTF prototypes differ, and BTF does not say "
                                    "which is which: none of their parameters can be read from it)",
                                    source_, protos, site.symbol);
    }
    for (const ModuleFunc* f : same) {
      if (filter.exported_only && !f->global) continue;
      const ModuleFunc* anchor = nullptr;
      for (const ModuleFunc& a : symbols_)
        if (a.section == f->section && a.value <= f->value && name_counts_[a.name] == 1 &&
            (!anchor || a.value > anchor->value))
          anchor = &a;
      if (!anchor) continue;  // (nothing to place it by)
      ProbeSite one = site;
      one.anchor = anchor->name;
      one.anchor_offset = f->value - anchor->value;
      sites.push_back(std::move(one));
    }
  }

  const DType* find_type(const std::string& raw) override {
    std::string name = raw;
    uint32_t want = 0;
    for (auto [prefix, kind] : {std::pair<const char*, uint32_t>{"struct ", kStruct}, {"union ", kUnion}, {"enum ", kEnum}}) {
      size_t n = std::strlen(prefix);
      if (name.compare(0, n, prefix) == 0) {
        name = name.substr(n);
        want = kind;
      }
    }
    auto scan = [&](uint32_t from, uint32_t to) -> const DType* {
      for (uint32_t id = from; id < to; ++id) {
        uint32_t k = kind_of(ids_[id]);
        if (want ? (k != want && !(want == kEnum && k == kEnum64))
                 : (k != kTypedef && k != kInt && k != kStruct && k != kFloat))
          continue;
        if (str(ids_[id]->name_off) == name) return convert(id);
      }
      return nullptr;
    };
    // A module's own types first, then its base's.
    if (const DType* t = scan(first_own_, static_cast<uint32_t>(ids_.size()))) return t;
    return scan(1, first_own_);
  }

  std::optional<uint64_t> symbol_address(const std::string&) override { return std::nullopt; }

  void load(DType& t) override {
    const BtfType* b = type(static_cast<uint32_t>(t.key));
    if (!b) return;
    switch (kind_of(b)) {
      case kPtr:
      case kTypedef:
      case kVolatile:
      case kConst:
      case kFunc:
        t.target_ = convert(b->size_or_type);
        if (t.kind != DType::Kind::Pointer && t.kind != DType::Kind::Function) t.size_ = t.target_->strip()->size();
        break;
      case kFuncProto:
        t.target_ = convert(b->size_or_type);
        break;
      case kArray: {
        auto* a = reinterpret_cast<const uint32_t*>(b + 1);
        t.target_ = convert(a[0]);
        t.count_ = a[2];
        t.size_ = uint64_t(a[2]) * t.target_->strip()->size();
        break;
      }
      case kStruct:
      case kUnion: {
        auto* m = reinterpret_cast<const uint32_t*>(b + 1);
        for (uint32_t i = 0; i < vlen_of(b); ++i) {
          Member mem;
          mem.name = str(m[3 * i]);
          mem.type = convert(m[3 * i + 1]);
          uint32_t off = m[3 * i + 2];
          mem.bit_offset = kind_flag(b) ? (off & 0xffffff) : off;
          mem.bit_size = kind_flag(b) ? off >> 24 : 0;
          if (!kind_flag(b) && mem.type->strip()->kind == DType::Kind::Int) {
            // Without kind_flag a bitfield is an INT whose own nr_bits says so.
            const BtfType* it = type(m[3 * i + 1]);
            while (it && (kind_of(it) == kTypedef || kind_of(it) == kConst || kind_of(it) == kVolatile))
              it = type(it->size_or_type);
            if (it && kind_of(it) == kInt) {
              uint32_t enc = *reinterpret_cast<const uint32_t*>(it + 1);
              uint32_t bits = enc & 0xff;
              if (bits && bits != it->size_or_type * 8) mem.bit_size = bits;
            }
          }
          t.members_.push_back(std::move(mem));
        }
        break;
      }
      case kEnum: {
        auto* e = reinterpret_cast<const int32_t*>(b + 1);
        for (uint32_t i = 0; i < vlen_of(b); ++i) t.enumerators_.emplace_back(str(e[2 * i]), e[2 * i + 1]);
        break;
      }
      case kEnum64: {
        auto* e = reinterpret_cast<const uint32_t*>(b + 1);
        for (uint32_t i = 0; i < vlen_of(b); ++i)
          t.enumerators_.emplace_back(str(e[3 * i]), int64_t(uint64_t(e[3 * i + 2]) << 32 | e[3 * i + 1]));
        break;
      }
      case kFwd: {
        // A declaration: the definition, if this BTF has one.
        const DType* def = find_type(std::string(kind_flag(b) ? "union " : "struct ") + t.name);
        if (def && def != &t && !def->incomplete()) {
          t.size_ = def->size();
          t.members_ = def->members();
        } else {
          t.incomplete_ = true;
        }
        break;
      }
      default:
        break;
    }
  }

 private:
  // One BTF blob: its bytes and string section.
  struct Blob {
    std::string data;
    const char* strs = nullptr;
    uint32_t str_len = 0;
  };

  // Checks `b`'s header and appends its types to ids_.
  bool parse(Blob& b, const std::string& source, std::string& error) {
    struct Header {
      uint16_t magic;
      uint8_t version, flags;
      uint32_t hdr_len, type_off, type_len, str_off, str_len;
    } h;
    if (b.data.size() < sizeof(h)) {
      error = source + ": too short for BTF";
      return false;
    }
    std::memcpy(&h, b.data.data(), sizeof(h));
    if (h.magic != 0xeb9f || h.version != 1) {
      error = source + ": not BTF (or not in this machine's byte order)";
      return false;
    }
    uint64_t types = uint64_t(h.hdr_len) + h.type_off, strs = uint64_t(h.hdr_len) + h.str_off;
    if (types + h.type_len > b.data.size() || strs + h.str_len > b.data.size() || !h.str_len ||
        b.data[strs + h.str_len - 1] != '\0') {
      error = source + ": truncated BTF";
      return false;
    }
    b.strs = b.data.data() + strs;
    b.str_len = h.str_len;
    const char* p = b.data.data() + types;
    const char* end = p + h.type_len;
    while (p + sizeof(BtfType) <= end) {
      auto* t = reinterpret_cast<const BtfType*>(p);
      ids_.push_back(t);
      p += sizeof(BtfType) + extra_size(t);
    }
    if (p != end) {
      error = source + ": malformed BTF type section";
      return false;
    }
    return true;
  }

  const BtfType* type(uint32_t id) const { return id && id < ids_.size() ? ids_[id] : nullptr; }
  // Split BTF's string offsets continue its base's.
  std::string str(uint32_t off) const {
    if (off < base_.str_len) return std::string(base_.strs + off);
    off -= base_.str_len;
    return off < own_.str_len ? std::string(own_.strs + off) : std::string();
  }

  const DType* convert(uint32_t id) {
    const BtfType* b = type(id);
    if (!b) return types_.void_type();
    if (converted_[id]) return converted_[id];
    uint32_t k = kind_of(b);
    // Qualifiers and tags stapx need not show are looked through.
    if (k == kRestrict || k == kTypeTag || k == kDeclTag) return converted_[id] = convert(b->size_or_type);
    DType* t = types_.make();
    converted_[id] = t;
    t->name = str(b->name_off);
    t->key = id;
    t->loader = this;
    switch (k) {
      case kInt: {
        uint32_t enc = *reinterpret_cast<const uint32_t*>(b + 1);
        t->kind = DType::Kind::Int;
        t->size_ = b->size_or_type;
        t->is_signed = (enc >> 24) & 1;
        t->is_char = ((enc >> 24) & 2) || t->name == "char" || t->name == "unsigned char" ||
                     t->name == "signed char";
        t->loader = nullptr;
        break;
      }
      case kFloat: t->kind = DType::Kind::Float; t->size_ = b->size_or_type; t->loader = nullptr; break;
      case kPtr: t->kind = DType::Kind::Pointer; t->size_ = 8; break;
      case kArray: t->kind = DType::Kind::Array; break;
      case kStruct: t->kind = DType::Kind::Struct; t->size_ = b->size_or_type; break;
      case kUnion: t->kind = DType::Kind::Union; t->size_ = b->size_or_type; break;
      case kEnum:
      case kEnum64:
        t->kind = DType::Kind::Enum;
        t->size_ = b->size_or_type;
        t->is_signed = kind_flag(b);
        break;
      case kFwd: t->kind = kind_flag(b) ? DType::Kind::Union : DType::Kind::Struct; break;
      case kTypedef: t->kind = DType::Kind::Typedef; break;
      case kVolatile: t->kind = DType::Kind::Volatile; break;
      case kConst: t->kind = DType::Kind::Const; break;
      case kFunc:
      case kFuncProto: t->kind = DType::Kind::Function; break;
      default: t->kind = DType::Kind::Void; t->loader = nullptr; break;
    }
    return t;
  }

  std::string source_, base_source_;
  Blob base_, own_;
  std::vector<const BtfType*> ids_;  // the base's types, then the blob's own
  uint32_t first_own_ = 1;
  std::unordered_map<std::string, bool> functions_;
  bool has_functions_ = false;
  std::vector<ModuleFunc> symbols_;
  std::unordered_map<std::string, int> name_counts_;  // of symbols_, counted on first need
  TypeTable types_;
  std::vector<const DType*> converted_;
};

// What a file holds for BTF: raw BTF (/sys/kernel/btf/vmlinux), or the
// .BTF section of an ELF file, compressed or not (a Debian .ko.xz); and of a
// relocatable file (a module) its function symbols.
struct BtfFile {
  std::string data;
  bool relocatable = false;
  std::vector<ModuleFunc> symbols;  // of a relocatable file (a module): its function symbols
};

void read_functions(Elf* elf, size_t shstrndx, BtfFile& out) {
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
    Elf_Data* d = elf_getdata(scn, nullptr);
    for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(d, static_cast<int>(i), &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
          sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
        continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      GElf_Shdr home;
      Elf_Scn* in = elf_getscn(elf, sym.st_shndx);
      const char* sec = in && gelf_getshdr(in, &home) ? elf_strptr(elf, shstrndx, home.sh_name) : nullptr;
      if (!name || !*name || (sec && std::strncmp(sec, ".init.", 6) == 0)) continue;
      out.symbols.push_back({name, sym.st_shndx, sym.st_value, GELF_ST_BIND(sym.st_info) != STB_LOCAL});
    }
  }
}

bool read_btf(const std::string& path, BtfFile& out, std::string& error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  unsigned char magic[3] = {};
  if (pread(fd, magic, sizeof(magic), 0) == 3 && magic[0] == 0x9f && magic[1] == 0xeb && magic[2] == 1) {
    close(fd);
    std::ifstream in(path, std::ios::binary);
    out.data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
  }
  elf_version(EV_CURRENT);
  Elf* elf = dwelf_elf_begin(fd);  // decompresses gzip, bzip2 and xz
  bool found = false;
  size_t shstrndx = 0;
  GElf_Ehdr eh;
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    // libdw decompresses zstd only when built with it (Debian's 0.188 is not).
    unsigned char zstd[4] = {};
    bool is_zstd = pread(fd, zstd, 4, 0) == 4 && zstd[0] == 0x28 && zstd[1] == 0xb5 && zstd[2] == 0x2f && zstd[3] == 0xfd;
    error = path + (is_zstd ? " is compressed with zstd, which this libdw cannot decompress (unpack it with unzstd)"
                            : " is neither BTF nor an ELF file");
  } else {
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (!name || std::strcmp(name, ".BTF") != 0) continue;
      Elf_Data* d = sh.sh_type == SHT_NOBITS ? nullptr : elf_rawdata(scn, nullptr);
      if (d && d->d_buf && d->d_size) {
        out.data.assign(static_cast<const char*>(d->d_buf), d->d_size);
        found = true;
      }
      break;
    }
    out.relocatable = eh.e_type == ET_REL;
    if (found && out.relocatable) read_functions(elf, shstrndx, out);
    if (!found) error = path + " has no .BTF section";
  }
  if (elf) elf_end(elf);
  close(fd);
  return found;
}

}  // namespace

std::unique_ptr<DebugInfo> open_btf(const std::string& path, std::string& error) {
  BtfFile file;
  if (!read_btf(path, file, error)) return nullptr;
  auto b = std::make_unique<BtfInfo>();
  if (!b->load(std::move(file.data), path, error)) return nullptr;
  return b;
}

std::unique_ptr<DebugInfo> open_module_btf(const std::string& path, const std::string& base_path,
                                           std::string& error) {
  BtfFile file, base;
  if (!read_btf(path, file, error) || !read_btf(base_path, base, error)) return nullptr;
  auto b = std::make_unique<BtfInfo>();
  if (!b->load(std::move(file.data), path, error, std::move(base.data), base_path)) return nullptr;
  if (file.relocatable) b->set_functions(std::move(file.symbols));
  return b;
}

}  // namespace stapx::debug
