// DebugInfo from DWARF (libdw): the reader's class, shared by dwarf.cpp
// (symbols, functions, probe sites, variables) and dwarf_types.cpp (types).
#pragma once

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/inline_index.h"
#include "translator/debuginfo/user_binary.h"

namespace stapx::debug {

class DwarfInfo final : public DebugInfo, public TypeLoader {
 public:
  ~DwarfInfo() override {
    if (dwfl_) {
      dwfl_end(dwfl_);  // owns dw_ and elf_
    } else {
      if (dw_) dwarf_end(dw_);
      if (elf_) elf_end(elf_);
    }
    if (fd_ >= 0) close(fd_);
  }

  bool open(const std::string& path, std::string& error) {
    path_ = path;
    elf_version(EV_CURRENT);
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      error = "cannot open " + path + ": " + std::strerror(errno);
      return false;
    }
    elf_ = dwelf_elf_begin(fd_);  // a .ko.xz or .ko.gz is decompressed
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) {
      error = path + " is not an ELF file";
      return false;
    }
    GElf_Ehdr eh;
    if (gelf_getehdr(elf_, &eh) && eh.e_type == ET_REL) return open_relocatable(error);
    dw_ = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
    if (!dw_) {
      // A program or library whose DWARF was split off into a file of its
      // own (Debian's -dbg and -dbgsym packages): that file stands in for
      // it, having the same addresses and the full symbol table.
      std::string split = separate_debug_file();
      if (!split.empty() && split != path) {
        elf_end(elf_);
        elf_ = nullptr;
        close(fd_);
        fd_ = -1;
        std::string why;
        if (open(split, why)) return true;
      }
      error = path + " has no DWARF debug information";
      return false;
    }
    return true;
  }

  // Where the separate debug file of the open ELF file is, if it is
  // installed: /usr/lib/debug/.build-id/NN/REST.debug by its build ID,
  // else /usr/lib/debug/PATH.debug-style names from its .gnu_debuglink.
  std::string separate_debug_file() const {
    std::string hex = elf_build_id(elf_);
    if (hex.size() > 2) {
      std::string file = "/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
      if (::access(file.c_str(), R_OK) == 0) return file;
    }
    GElf_Word crc = 0;
    const char* link = dwelf_elf_gnu_debuglink(elf_, &crc);
    if (!link) return "";
    std::string dir = path_.substr(0, path_.rfind('/') + 1);
    for (const std::string& file : {dir + link, dir + ".debug/" + link, "/usr/lib/debug" + dir + link})
      if (::access(file.c_str(), R_OK) == 0) return file;
    return "";
  }

  // A .ko: through libdwfl, for its relocations.
  bool open_relocatable(std::string& error) {
    elf_end(elf_);
    elf_ = nullptr;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = nullptr,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = nullptr,
    };
    dwfl_ = dwfl_begin(&callbacks);
    if (!dwfl_) {
      error = std::string("libdwfl: ") + dwfl_errmsg(-1);
      return false;
    }
    // libdwfl takes the descriptor when it succeeds.
    mod_ = dwfl_report_offline(dwfl_, "module", path_.c_str(), fd_);
    if (mod_) fd_ = -1;
    dwfl_report_end(dwfl_, nullptr, nullptr);
    Dwarf_Addr bias = 0;
    if (!mod_ || !(dw_ = dwfl_module_getdwarf(mod_, &bias))) {
      error = path_ + " has no DWARF debug information" +
              (mod_ ? "" : std::string(" (") + dwfl_errmsg(-1) + ")");
      return false;
    }
    bias_ = bias;
    elf_ = dwfl_module_getelf(mod_, &bias);
    return elf_ != nullptr;
  }

  std::string source() const override { return "DWARF from " + path_; }

  std::vector<ProbeSite> function_sites(const std::string& pattern, bool inlines,
                                        const SiteFilter& filter) override;
  std::vector<ProbeSite> statement_sites(const std::string& pattern, const SiteFilter& filter) override;
  std::vector<ProbeSite> callee_sites(const std::string& pattern, const std::string& callee, int depth,
                                      const SiteFilter& filter) override;
  std::vector<ProbeSite> label_sites(const std::string& pattern, const std::string& label,
                                     const SiteFilter& filter) override;
  std::optional<ProbeSite> address_site(uint64_t addr) override;
  std::vector<LineRow> line_rows(std::vector<std::string>& files) override;
  bool has_lines() const override { return true; }
  std::optional<Variable> global_variable(const std::string& name,
                                          const std::function<bool(const std::string&)>& file_matches) override;
  const DType* find_type(const std::string& name) override;
  std::optional<uint64_t> symbol_address(const std::string& name) override {
    load_symbols();
    for (const auto& [sym, addr] : all_syms_)  // rare (@var, KASLR): a scan beats hashing every name
      if (name == sym) return addr;
    return std::nullopt;
  }

 private:
  struct FuncSym {
    std::string name;
    uint64_t addr;
    uint64_t size;
    bool global = false;  // STB_GLOBAL or STB_WEAK: what .exported names, as stap
    uint32_t section = 0;
  };
  void load_symbols();
  bool find_subprogram(uint64_t addr, Dwarf_Die& out);
  ProbeSite make_site(Dwarf_Die& fn, const FuncSym& sym);
  uint64_t prologue_end(Dwarf_Die& fn, const FuncSym& sym, Prologue when);
  bool unit_optimized(Dwarf_Die& fn);
  std::unordered_map<uint64_t, bool> unit_optimized_;  // by CU offset
  ProbeSite make_site(Dwarf_Die& fn, const FuncSym& sym, Dwarf_Die* frame, uint64_t pc);
  template <class F>
  void for_each_inline(const std::string& pattern, const SiteFilter& filter, F&& f);
  const FuncSym* symbol_at(uint64_t pc);  // the function symbol at or before pc
  void anchor_sites(std::vector<ProbeSite>& sites);
  template <class F>
  void for_each_function(const std::string& pattern, const SiteFilter& filter, F&& f);
  template <class Unit, class Found>
  void scan_top_level(Unit&& unit, Found&& found);
  void collect_vars(Dwarf_Die& scope, uint64_t pc, const LocContext& ctx, ProbeSite& site, bool top);
  Variable make_var(Dwarf_Die& die, uint64_t pc, const LocContext& ctx);
  LocExprP cfa_at(uint64_t pc);
  const DType* type_of(Dwarf_Die& die);  // DW_AT_type of die, void if none
  const DType* convert(Dwarf_Die& die);
  void load(DType& t) override;
  const DType* definition(int tag, const std::string& name);

  std::string path_;
  Dwfl* dwfl_ = nullptr;  // a .ko: its module, and DWARF address + bias_ = symbol address
  Dwfl_Module* mod_ = nullptr;
  uint64_t bias_ = 0;
  int fd_ = -1;
  Elf* elf_ = nullptr;
  Dwarf* dw_ = nullptr;
  Dwarf_CFI* cfi_ = nullptr;
  bool cfi_tried_ = false;
  bool symbols_loaded_ = false;
  std::vector<FuncSym> funcs_;
  std::vector<const FuncSym*> by_addr_;  // funcs_ by address, for symbol_at()
  std::vector<std::pair<const char*, uint64_t>> all_syms_;  // names in the ELF string table
  std::unique_ptr<InlineIndex> inline_index_;  // opened on first use
  TypeTable types_;
  std::unordered_map<Dwarf_Off, const DType*> converted_;
  std::unordered_map<std::string, const DType*> by_name_;  // "struct file" -> definition (or null)
  std::unordered_map<Dwarf_Off, std::unordered_map<uint64_t, Dwarf_Off>> unit_funcs_;  // unit -> entry pc -> DIE
};

// Each unit's top-level entries, in order, until `found` returns true;
// `unit` (given the unit's DIE) may pass over a whole unit.
template <class Unit, class Found>
void DwarfInfo::scan_top_level(Unit&& unit, Found&& found) {
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (dwarf_nextcu(dw_, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu, c;
    if (dwarf_offdie(dw_, off + hsize, &cu) && unit(cu) && dwarf_child(&cu, &c) == 0) {
      do {
        if (found(c)) return;
      } while (dwarf_siblingof(&c, &c) == 0);
    }
    off = next;
  }
}

}  // namespace stapx::debug
