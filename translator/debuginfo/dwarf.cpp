// DebugInfo from DWARF, through elfutils libdw. Functions are found through
// the ELF symbol table (name -> address), then .debug_aranges (address ->
// compile unit), then the unit's subprograms (address -> DIE): no scan of
// the whole 600 MB of a kernel's DWARF for a named function. Types are
// converted once per DIE; a struct declared but not defined in a unit is
// looked up by name across units on demand.
//
// A kernel module (.ko, ET_REL) is opened through libdwfl, which lays its
// sections out and applies the relocations of .debug_info and the other
// debug sections; its symbol addresses then agree with DWARF's. The probe
// is attached by "module:symbol", so those addresses never reach the
// target.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "support/cache.h"
#include "support/glob.h"
#include "translator/debuginfo/dwarf_info.h"

namespace stapx::debug {

void DwarfInfo::load_symbols() {
  if (symbols_loaded_) return;
  symbols_loaded_ = true;
  if (mod_) {
    // Section-relative values, placed where libdwfl laid the sections out;
    // kept in DWARF's address space. A module's .init.text is freed once
    // it has loaded, so its functions are no probe sites.
    int n = dwfl_module_getsymtab(mod_);
    size_t shstrndx = 0;
    elf_getshdrstrndx(elf_, &shstrndx);
    for (int i = 1; i < n; ++i) {
      GElf_Sym s;
      GElf_Addr addr;
      GElf_Word shndx;
      Elf* e = nullptr;
      Dwarf_Addr b = 0;
      const char* name = dwfl_module_getsym_info(mod_, i, &s, &addr, &shndx, &e, &b);
      if (!name || !*name || s.st_shndx == SHN_UNDEF) continue;
      addr -= bias_;
      all_syms_.emplace_back(name, addr);
      if (GELF_ST_TYPE(s.st_info) != STT_FUNC) continue;
      GElf_Shdr sh;
      Elf_Scn* scn = e == elf_ ? elf_getscn(elf_, shndx) : nullptr;
      const char* sec = scn && gelf_getshdr(scn, &sh) ? elf_strptr(elf_, shstrndx, sh.sh_name) : nullptr;
      if (sec && std::strncmp(sec, ".init.", 6) == 0) continue;
      funcs_.push_back({name, addr, s.st_size, GELF_ST_BIND(s.st_info) != STB_LOCAL, shndx});
    }
    return;
  }
  // Code in .init.* sections is freed once the kernel has booted: no probe
  // sites there (stap lists none either).
  size_t shstrndx = 0;
  elf_getshdrstrndx(elf_, &shstrndx);
  std::vector<bool> init_section;
  for (Elf_Scn* s = nullptr; (s = elf_nextscn(elf_, s));) {
    GElf_Shdr sh;
    const char* sec = gelf_getshdr(s, &sh) ? elf_strptr(elf_, shstrndx, sh.sh_name) : nullptr;
    size_t index = elf_ndxscn(s);
    if (init_section.size() <= index) init_section.resize(index + 1);
    init_section[index] = sec && std::strncmp(sec, ".init.", 6) == 0;
  }
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf_, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t n = sh.sh_size / sh.sh_entsize;
    funcs_.reserve(n / 2);
    all_syms_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym s;
      if (!gelf_getsym(data, static_cast<int>(i), &s)) continue;
      const char* name = elf_strptr(elf_, sh.sh_link, s.st_name);
      if (!name || !*name || s.st_shndx == SHN_UNDEF) continue;
      all_syms_.emplace_back(name, s.st_value);
      if (GELF_ST_TYPE(s.st_info) != STT_FUNC) continue;
      if (s.st_shndx < init_section.size() && init_section[s.st_shndx]) continue;
      funcs_.push_back({name, s.st_value, s.st_size, GELF_ST_BIND(s.st_info) != STB_LOCAL, s.st_shndx});
    }
  }
}

// A function split by GCC into hot and cold parts (DW_AT_ranges, no
// DW_AT_low_pc) is indexed by the start of each of its ranges: its symbol
// is at one of them (the hot part's), "f.cold" at another.
static int index_fn_cb(Dwarf_Die* die, void* arg) {
  auto* index = static_cast<std::unordered_map<uint64_t, Dwarf_Off>*>(arg);
  Dwarf_Addr pc;
  if (dwarf_entrypc(die, &pc) == 0) {
    index->emplace(pc, dwarf_dieoffset(die));
    return DWARF_CB_OK;
  }
  Dwarf_Addr base, start, end;
  for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &start, &end)) > 0;)
    index->emplace(start, dwarf_dieoffset(die));
  return DWARF_CB_OK;
}

// The unit's subprograms by entry address, built on the unit's first use,
// so that a pattern matching thousands of functions walks each unit once.
bool DwarfInfo::find_subprogram(uint64_t addr, Dwarf_Die& out) {
  Dwarf_Die cu;
  if (mod_) {
    // libdwfl also finds units that .debug_aranges leaves out.
    Dwarf_Addr bias = 0;
    Dwarf_Die* d = dwfl_module_addrdie(mod_, addr + bias_, &bias);
    if (!d) return false;
    cu = *d;
  } else if (!dwarf_addrdie(dw_, addr, &cu)) {
    return false;
  }
  auto [it, fresh] = unit_funcs_.try_emplace(dwarf_dieoffset(&cu));
  if (fresh) dwarf_getfuncs(&cu, index_fn_cb, &it->second, 0);
  auto fn = it->second.find(addr);
  return fn != it->second.end() && dwarf_offdie(dw_, fn->second, &out);
}

const DwarfInfo::FuncSym* DwarfInfo::symbol_at(uint64_t pc) {
  if (by_addr_.empty()) {
    for (const FuncSym& f : funcs_) by_addr_.push_back(&f);
    // By address; among aliases, the first name in symbol-table order.
    std::stable_sort(by_addr_.begin(), by_addr_.end(),
                     [](const FuncSym* a, const FuncSym* b) { return a->addr < b->addr; });
  }
  auto it = std::upper_bound(by_addr_.begin(), by_addr_.end(), pc,
                             [](uint64_t v, const FuncSym* f) { return v < f->addr; });
  if (it == by_addr_.begin()) return nullptr;
  uint64_t addr = (*--it)->addr;
  while (it != by_addr_.begin() && (*(it - 1))->addr == addr) --it;
  return *it;
}

// Kprobes are registered by symbol name, and the kernel resolves a name
// to its first symbol: a site in a function whose name the file has more
// than once (static functions of one name in several units) is attached by
// the nearest function before it, in its section, whose name is unique.
void DwarfInfo::anchor_sites(std::vector<ProbeSite>& sites) {
  if (sites.empty()) return;
  // How often each name occurs among all the file's symbols: one pass, in
  // which only names of a length asked about are looked up.
  std::unordered_map<std::string_view, int> count;
  std::vector<bool> lengths;
  auto count_names = [&] {
    for (auto& [name, n] : count) {
      n = 0;
      if (lengths.size() <= name.size()) lengths.resize(name.size() + 1);
      lengths[name.size()] = true;
    }
    for (const auto& [name, addr] : all_syms_) {
      size_t len = std::strlen(name);
      if (len >= lengths.size() || !lengths[len]) continue;
      if (auto it = count.find(std::string_view(name, len)); it != count.end()) ++it->second;
    }
  };
  for (const ProbeSite& site : sites) count.emplace(site.symbol, 0);
  count_names();
  std::vector<ProbeSite*> shared;
  for (ProbeSite& site : sites)
    if (count[site.symbol] > 1) shared.push_back(&site);
  if (shared.empty()) return;
  symbol_at(0);  // sorts by_addr_
  // Candidates: the functions before each shared one, nearest first.
  std::vector<std::vector<const FuncSym*>> before(shared.size());
  count.clear();
  for (size_t i = 0; i < shared.size(); ++i) {
    uint64_t start = shared[i]->addr - shared[i]->symbol_offset;
    auto it = std::lower_bound(by_addr_.begin(), by_addr_.end(), start,
                               [](const FuncSym* f, uint64_t v) { return f->addr < v; });
    const FuncSym* self = it != by_addr_.end() && (*it)->addr == start ? *it : nullptr;
    for (int k = 0; it != by_addr_.begin() && k < 64; ++k) {
      const FuncSym* f = *--it;
      if (self && f->section != self->section) break;
      before[i].push_back(f);
      count.emplace(f->name, 0);
    }
  }
  count_names();
  for (size_t i = 0; i < shared.size(); ++i) {
    for (const FuncSym* f : before[i]) {
      if (count[f->name] != 1) continue;
      shared[i]->anchor = f->name;
      shared[i]->anchor_offset = shared[i]->addr - f->addr;
      break;
    }
  }
}

// Inlined instances come from the file's index of them (inline_index.h),
// built by one walk over all the DWARF and cached. Calls f(instance,
// out-of-line function holding it, entry pc, symbol at that pc) for each
// instance of a function the pattern names, once per function and
// address. An instance at an address no function symbol holds (code freed
// after boot, .init.text) is passed over, as the out-of-line functions
// there are.
template <class F>
void DwarfInfo::for_each_inline(const std::string& pattern, const SiteFilter& filter, F&& f) {
  if (!inline_index_) {
    inline_index_ = InlineIndex::open(dw_, path_, support::cache_dir());
    if (!inline_index_) return;
  }
  load_symbols();
  std::set<std::pair<std::string_view, uint64_t>> seen;
  inline_index_->find(pattern, [&](std::string_view name, const InlineInstance& inst) {
    uint64_t pc = inst.pc;
    const FuncSym* sym = symbol_at(pc);
    if (!sym || pc >= sym->addr + std::max<uint64_t>(sym->size, 1)) return;
    Dwarf_Die die, outer;
    if (!dwarf_offdie(dw_, inst.die, &die) || !dwarf_offdie(dw_, inst.outer, &outer)) return;
    if (filter.file) {
      const char* file = dwarf_decl_file(&die);
      int line = 0;
      dwarf_decl_line(&die, &line);
      if (!filter.file(file ? file : "", line)) return;
    }
    if (!seen.emplace(name, pc).second) return;
    f(die, outer, pc, *sym);
  });
}

// Calls f(DIE, symbol) for each out-of-line function whose name matches
// `pattern` and whose declaration `filter.file` keeps.
template <class F>
void DwarfInfo::for_each_function(const std::string& pattern, const SiteFilter& filter, F&& f) {
  load_symbols();
  // A clone that replaces the function ("f.isra.0", "f.constprop.0")
  // matches by the function's name; split-off parts (".cold", ".part.N")
  // are not entries. A pattern with a dot names symbols as they are.
  bool dotted = pattern.find('.') != std::string::npos;
  support::NamePattern want(pattern);
  std::vector<uint64_t> seen;
  for (const FuncSym& s : funcs_) {
    std::string name = s.name;
    if (!dotted) {
      size_t dot = name.find('.');
      if (dot != std::string::npos) {
        if (name.compare(dot, 5, ".cold") == 0 || name.compare(dot, 5, ".part") == 0) continue;
        name.resize(dot);
      }
    }
    if (!want.matches(name)) continue;
    if (filter.exported_only && !s.global) continue;
    if (std::find(seen.begin(), seen.end(), s.addr) != seen.end()) continue;  // aliases
    Dwarf_Die fn;
    if (!find_subprogram(s.addr, fn)) continue;
    // .exported: the function's own symbol is global, not just an alias
    // of it (a module's static exit function is also "cleanup_module").
    if (filter.exported_only) {
      const char* own = dwarf_diename(&fn);
      if (own && name != own) continue;
    }
    seen.push_back(s.addr);
    if (filter.file) {
      const char* file = dwarf_decl_file(&fn);
      int line = 0;
      dwarf_decl_line(&fn, &line);
      if (!filter.file(file ? file : "", line)) continue;
    }
    f(fn, s);
  }
}

static void sort_sites(std::vector<ProbeSite>& sites) {
  std::sort(sites.begin(), sites.end(), [](const ProbeSite& a, const ProbeSite& b) {
    return a.function != b.function ? a.function < b.function : a.addr < b.addr;
  });
}

std::vector<ProbeSite> DwarfInfo::function_sites(const std::string& pattern, bool inlines,
                                                 const SiteFilter& filter) {
  std::vector<ProbeSite> sites;
  if (filter.out_of_line)
    for_each_function(pattern, filter, [&](Dwarf_Die& fn, const FuncSym& s) {
      ProbeSite site = make_site(fn, s);
      if (uint64_t pc = prologue_end(fn, s, filter.prologue); pc != s.addr)
        site.after_prologue = std::make_shared<const ProbeSite>(make_site(fn, s, &fn, pc));
      sites.push_back(std::move(site));
    });
  if (inlines)
    for_each_inline(pattern, filter, [&](Dwarf_Die& inst, Dwarf_Die& outer, uint64_t pc, const FuncSym& sym) {
      ProbeSite site = make_site(inst, sym, &outer, pc);
      site.inlined = true;
      sites.push_back(std::move(site));
    });
  sort_sites(sites);
  anchor_sites(sites);
  return sites;
}

// Source lines as stap resolves them: each line at its lowest address
// within one copy of the function (a copy: the out-of-line function within
// its own symbol, a ".cold" part left out; or an inlined instance within
// its ranges), for lines of the function's own file from its declaration
// on (lines of functions inlined into it are not its statements). Where
// several of the lines asked for share an address, one probe there, for the
// first of them.
std::vector<ProbeSite> DwarfInfo::statement_sites(const std::string& pattern, const SiteFilter& filter) {
  struct Line {
    uint64_t addr;
    int line;
    std::string file;
    Dwarf_Off fn, frame;  // the copy's DIE, and the out-of-line function holding it
  };
  std::vector<Line> found;
  // The lines of one copy, whose addresses `in_copy` keeps.
  auto lines_of = [&](Dwarf_Die& fn, Dwarf_Off frame, auto&& in_copy) {
    Dwarf_Die cu;
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (!dwarf_diecu(&fn, &cu, nullptr, nullptr) || dwarf_getsrclines(&cu, &lines, &n) != 0) return;
    int decl_line = 0;
    dwarf_decl_line(&fn, &decl_line);
    const char* decl_file = dwarf_decl_file(&fn);
    std::map<std::pair<std::string, int>, uint64_t> first;
    for (size_t i = 0; i < n; ++i) {
      Dwarf_Line* l = dwarf_onesrcline(lines, i);
      Dwarf_Addr addr;
      bool end = false;
      int lineno = 0;
      if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &lineno) != 0) continue;
      dwarf_lineendsequence(l, &end);
      if (end || lineno <= decl_line || !in_copy(addr)) continue;
      const char* file = dwarf_linesrc(l, nullptr, nullptr);
      if (!file || !decl_file || std::strcmp(file, decl_file) != 0) continue;
      if (filter.line && !filter.line(file, lineno, decl_line)) continue;
      auto [it, fresh] = first.try_emplace({file, lineno}, addr);
      if (!fresh) it->second = std::min<uint64_t>(it->second, addr);
    }
    for (const auto& [where, addr] : first)
      found.push_back({addr, where.second, where.first, dwarf_dieoffset(&fn), frame});
  };
  for_each_function(pattern, filter, [&](Dwarf_Die& fn, const FuncSym& s) {
    uint64_t end = s.addr + std::max<uint64_t>(s.size, 1);
    lines_of(fn, dwarf_dieoffset(&fn), [&](uint64_t a) { return a >= s.addr && a < end; });
  });
  for_each_inline(pattern, filter, [&](Dwarf_Die& inst, Dwarf_Die& outer, uint64_t, const FuncSym&) {
    lines_of(inst, dwarf_dieoffset(&outer), [&](uint64_t a) { return dwarf_haspc(&inst, a) == 1; });
  });
  std::sort(found.begin(), found.end(), [](const Line& a, const Line& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.line < b.line;
  });
  found.erase(std::unique(found.begin(), found.end(), [](const Line& a, const Line& b) { return a.addr == b.addr; }),
              found.end());
  std::vector<ProbeSite> sites;
  for (const Line& l : found) {
    Dwarf_Die fn, frame;
    const FuncSym* sym = symbol_at(l.addr);
    if (!sym || !dwarf_offdie(dw_, l.fn, &fn) || !dwarf_offdie(dw_, l.frame, &frame)) continue;
    if (l.addr >= sym->addr + std::max<uint64_t>(sym->size, 1)) continue;
    ProbeSite site = l.fn == l.frame ? make_site(fn, *sym, &fn, l.addr) : make_site(fn, *sym, &frame, l.addr);
    site.inlined = l.fn != l.frame;
    site.decl_file = l.file;
    site.decl_line = l.line;
    sites.push_back(std::move(site));
  }
  sort_sites(sites);
  anchor_sites(sites);
  return sites;
}

std::vector<ProbeSite> DwarfInfo::label_sites(const std::string& pattern, const std::string& label,
                                              const SiteFilter& filter) {
  support::NamePattern want(label);
  std::vector<ProbeSite> sites;
  // The labels of one copy of a function (`copy`: the out-of-line
  // function, or an inlined instance within `frame`): in its body or its
  // lexical blocks, at addresses in the copy's ranges (a ".cold" part of
  // an out-of-line function included, as stap lists them), placed by the
  // symbol holding them. The functions inlined into the copy have their
  // own labels.
  auto labels_of = [&](Dwarf_Die& copy, Dwarf_Die* frame, bool inlined) {
    std::function<void(Dwarf_Die&)> walk = [&](Dwarf_Die& parent) {
      Dwarf_Die c;
      if (dwarf_child(&parent, &c) != 0) return;
      do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_lexical_block) {
          walk(c);
        } else if (tag == DW_TAG_label) {
          const char* name = dwarf_diename(&c);  // (an inlined copy's, through its abstract origin)
          Dwarf_Addr pc = 0;
          if (!name || !want.matches(name) || dwarf_lowpc(&c, &pc) != 0) continue;
          if (dwarf_haspc(&copy, pc) != 1) continue;
          const FuncSym* sym = symbol_at(pc);
          if (!sym || pc >= sym->addr + std::max<uint64_t>(sym->size, 1)) continue;
          ProbeSite site = make_site(copy, *sym, frame, pc);
          site.inlined = inlined;
          site.label = name;
          // (pp() names the label's line, as stap's does.)
          int line = 0;
          if (dwarf_decl_line(&c, &line) == 0) site.decl_line = line;
          sites.push_back(std::move(site));
        }
      } while (dwarf_siblingof(&c, &c) == 0);
    };
    walk(copy);
  };
  for_each_function(pattern, filter, [&](Dwarf_Die& fn, const FuncSym&) { labels_of(fn, &fn, false); });
  for_each_inline(pattern, filter,
                  [&](Dwarf_Die& inst, Dwarf_Die& outer, uint64_t, const FuncSym&) { labels_of(inst, &outer, true); });
  sort_sites(sites);
  // One probe per address (a label stap lists once).
  sites.erase(std::unique(sites.begin(), sites.end(),
                          [](const ProbeSite& x, const ProbeSite& y) {
                            return x.function == y.function && x.addr == y.addr && x.label == y.label;
                          }),
              sites.end());
  anchor_sites(sites);
  return sites;
}

std::vector<ProbeSite> DwarfInfo::callee_sites(const std::string& pattern, const std::string& callee, int depth,
                                               const SiteFilter& filter) {
  support::NamePattern want(callee);
  std::vector<ProbeSite> sites;
  for_each_function(pattern, filter, [&](Dwarf_Die& fn, const FuncSym&) {
    // walk(scope, caller, level): the inlined copies directly in `scope`
    // (through lexical blocks) are callees of `caller` at `level`; their
    // own are one level down.
    std::function<void(Dwarf_Die&, Dwarf_Die&, int)> walk = [&](Dwarf_Die& scope, Dwarf_Die& caller, int level) {
      Dwarf_Die c;
      if (dwarf_child(&scope, &c) != 0) return;
      do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_lexical_block) {
          walk(c, caller, level);
          continue;
        }
        if (tag != DW_TAG_inlined_subroutine) continue;
        const char* name = dwarf_diename(&c);  // (through its abstract origin)
        Dwarf_Addr pc = 0;
        if (name && want.matches(name) && (dwarf_entrypc(&c, &pc) == 0 || dwarf_lowpc(&c, &pc) == 0)) {
          const FuncSym* sym = symbol_at(pc);
          if (sym && pc < sym->addr + std::max<uint64_t>(sym->size, 1)) {
            ProbeSite site = make_site(c, *sym, &fn, pc);
            site.inlined = true;
            const char* caller_name = dwarf_diename(&caller);
            const char* file = dwarf_decl_file(&caller);
            site.caller = caller_name ? caller_name : "";
            site.caller_file = file ? file : "";
            dwarf_decl_line(&caller, &site.caller_line);
            sites.push_back(std::move(site));
          }
        }
        if (level < depth) walk(c, c, level + 1);
      } while (dwarf_siblingof(&c, &c) == 0);
    };
    walk(fn, fn, 1);
  });
  sort_sites(sites);
  anchor_sites(sites);
  return sites;
}

std::vector<LineRow> DwarfInfo::line_rows(std::vector<std::string>& files) {
  std::vector<LineRow> rows;
  std::map<std::string, uint32_t> index;
  Dwarf_Off off = 0, next;
  size_t header;
  while (dwarf_nextcu(dw_, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (dwarf_offdie(dw_, off + header, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
      for (size_t i = 0; i < n; ++i) {
        Dwarf_Line* l = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr;
        int lineno = 0;
        bool end = false;
        if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &lineno) != 0) continue;
        dwarf_lineendsequence(l, &end);
        const char* file = dwarf_linesrc(l, nullptr, nullptr);
        if (end || !file || lineno <= 0) {
          rows.push_back({addr + bias_, 0, 0});
          continue;
        }
        auto [it, added] = index.try_emplace(file, static_cast<uint32_t>(files.size()));
        if (added) files.push_back(file);
        rows.push_back({addr + bias_, it->second, static_cast<uint32_t>(lineno)});
      }
    }
    off = next;
  }
  // By address; where rows share one, a line beats the end of another
  // sequence that stops there, and the last line listed wins: the rows
  // before it at the same address are empty steps (DWARF 5 views), the
  // last is the instruction's own line (addr2line's answer too).
  std::stable_sort(rows.begin(), rows.end(), [](const LineRow& a, const LineRow& b) {
    return a.addr != b.addr ? a.addr < b.addr : (a.line != 0) < (b.line != 0);
  });
  std::vector<LineRow> out;
  for (const LineRow& r : rows) {
    if (!out.empty() && out.back().addr == r.addr) out.pop_back();
    if (!out.empty() && out.back().file == r.file && out.back().line == r.line) continue;
    out.push_back(r);
  }
  return out;
}

std::optional<ProbeSite> DwarfInfo::address_site(uint64_t addr) {
  load_symbols();
  const FuncSym* best = symbol_at(addr);
  if (!best || addr >= best->addr + std::max<uint64_t>(best->size, 1)) return std::nullopt;
  Dwarf_Die fn;
  if (!find_subprogram(best->addr, fn)) {
    ProbeSite site;  // a symbol without DWARF: no variables
    site.function = site.symbol = best->name;
    site.addr = addr;
    site.symbol_offset = addr - best->addr;
    site.at_entry = addr == best->addr;
    std::vector<ProbeSite> one{std::move(site)};
    anchor_sites(one);
    return std::move(one[0]);
  }
  ProbeSite site = make_site(fn, *best, &fn, addr);
  Dwarf_Die cu;
  Dwarf_Line* l = dwarf_diecu(&fn, &cu, nullptr, nullptr) ? dwarf_getsrc_die(&cu, addr) : nullptr;
  if (l) {
    if (const char* file = dwarf_linesrc(l, nullptr, nullptr)) site.decl_file = file;
    dwarf_lineno(l, &site.decl_line);
    Dwarf_Addr row = 0;
    if (dwarf_lineaddr(l, &row) == 0) site.row_addr = row;
  }
  std::vector<ProbeSite> one{std::move(site)};
  anchor_sites(one);
  return std::move(one[0]);
}

// Top-level DW_TAG_variable entries of each unit (of the matching source
// files): the first named `name` that has a location. A declaration that
// another unit defines has none and is passed over.
std::optional<Variable> DwarfInfo::global_variable(const std::string& name,
                                                   const std::function<bool(const std::string&)>& file_matches) {
  std::optional<Variable> found;
  // A variable that only a linker script defines (`jiffies = jiffies_64;`)
  // has declarations in DWARF and no definition: the first declaration
  // gives its type, the symbol table its address (unqualified names only,
  // as in stap: "name@file" asks for that file's own variable).
  std::optional<Variable> declared;
  scan_top_level(
      [&](Dwarf_Die& cu) {
        const char* file = dwarf_diename(&cu);
        return file && (!file_matches || file_matches(file));
      },
      [&](Dwarf_Die& c) {
        if (dwarf_tag(&c) != DW_TAG_variable) return false;
        const char* n = dwarf_diename(&c);
        if (!n || name != n) return false;
        if (!dwarf_hasattr(&c, DW_AT_location)) {
          if (!declared && !file_matches && dwarf_hasattr(&c, DW_AT_declaration)) declared = make_var(c, 0, LocContext{});
          return false;
        }
        Variable v = make_var(c, 0, LocContext{});
        if (v.loc.kind != Location::Kind::Memory) return false;
        found = std::move(v);
        return true;
      });
  if (!found && declared && declared->type) {
    GElf_Ehdr eh;
    std::optional<uint64_t> addr;
    // (Only where symbol values are addresses: not a module's section offsets.)
    if (gelf_getehdr(elf_, &eh) && eh.e_type == ET_EXEC) addr = symbol_address(name);
    if (addr) {
      auto e = std::make_shared<LocExpr>();
      e->op = LocExpr::Op::Addr;
      e->value = static_cast<int64_t>(*addr);
      declared->loc = Location{};
      declared->loc.kind = Location::Kind::Memory;
      declared->loc.expr = e;
      found = std::move(declared);
    }
  }
  return found;
}

LocExprP DwarfInfo::cfa_at(uint64_t pc) {
  if (!cfi_tried_) {
    cfi_tried_ = true;
    Dwarf_Addr bias = 0;
    if (mod_) {
      // Relocated; a .ko's CFI shares DWARF's addresses only with no bias.
      cfi_ = dwfl_module_dwarf_cfi(mod_, &bias);
      if (!cfi_ || bias != bias_) cfi_ = dwfl_module_eh_cfi(mod_, &bias);
      if (cfi_ && bias != bias_) cfi_ = nullptr;
    } else {
      cfi_ = dwarf_getcfi(dw_);
      if (!cfi_) cfi_ = dwarf_getcfi_elf(elf_);
    }
  }
  if (!cfi_) return nullptr;
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(cfi_, pc, &frame) != 0) return nullptr;
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  LocExprP out;
  if (dwarf_frame_cfa(frame, &ops, &n) == 0) {
    Location l = translate_location(ops, n, LocContext{});
    if (l.kind == Location::Kind::Memory) out = l.expr;  // the CFA is the computed value
  }
  free(frame);
  return out;
}

ProbeSite DwarfInfo::make_site(Dwarf_Die& fn, const FuncSym& sym) { return make_site(fn, sym, &fn, sym.addr); }

// GCC records its options in DW_AT_producer ("GNU C17 12.2.0 -mtune=generic
// -g -O2"); its default is -O0, so a unit is unoptimized when its last -O
// option is -O0 or it has none. Other producers (the assembler, clang,
// which records no options) count as optimized: their probes stay put.
bool DwarfInfo::unit_optimized(Dwarf_Die& fn) {
  Dwarf_Die cu;
  if (!dwarf_diecu(&fn, &cu, nullptr, nullptr)) return true;
  auto [it, fresh] = unit_optimized_.emplace(dwarf_dieoffset(&cu), true);
  if (!fresh) return it->second;
  Dwarf_Attribute a;
  const char* producer = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &a));
  if (!producer || std::strncmp(producer, "GNU C", 5) != 0) return true;
  std::string p = producer;
  size_t o = p.rfind(" -O");
  it->second = o != std::string::npos && p.compare(o, 4, " -O0") != 0;
  return it->second;
}

// Where fn's prologue ends (libdw's reading of the line table: the
// prologue_end mark, or the second row), within its symbol; sym.addr if
// there is none or `when` says to stay at the entry.
uint64_t DwarfInfo::prologue_end(Dwarf_Die& fn, const FuncSym& sym, Prologue when) {
  if (when == Prologue::Never || (when == Prologue::Auto && unit_optimized(fn))) return sym.addr;
  Dwarf_Addr* bkpts = nullptr;
  int n = dwarf_entry_breakpoints(&fn, &bkpts);
  uint64_t pc = sym.addr;
  for (int i = 0; i < n; ++i)
    if (bkpts[i] > sym.addr && bkpts[i] < sym.addr + std::max<uint64_t>(sym.size, 1)) {
      pc = bkpts[i];
      break;
    }
  free(bkpts);
  return pc;
}

// `fn`: the subprogram or inlined instance whose variables are read at
// `pc`; `frame`: the out-of-line function that holds the frame base.
ProbeSite DwarfInfo::make_site(Dwarf_Die& fn, const FuncSym& sym, Dwarf_Die* frame, uint64_t pc) {
  ProbeSite site;
  const char* name = dwarf_diename(&fn);
  site.function = name ? name : sym.name;
  site.symbol = sym.name;
  site.addr = pc;
  site.symbol_offset = pc - sym.addr;
  // An inlined instance is not the entry of the frame (DW_OP_entry_value
  // would name the outer function's entry).
  site.at_entry = frame == &fn && pc == sym.addr;
  if (const char* file = dwarf_decl_file(&fn)) site.decl_file = file;
  dwarf_decl_line(&fn, &site.decl_line);
  Dwarf_Attribute a;
  if (dwarf_attr_integrate(&fn, DW_AT_type, &a)) {
    Dwarf_Die t;
    if (dwarf_formref_die(&a, &t)) site.return_type = convert(t);
  }
  LocContext ctx;
  ctx.at_entry = site.at_entry;
  ctx.cfa = [this, pc] { return cfa_at(pc); };
  // Entry values are the registers at the out-of-line function's entry,
  // which the module can watch where its symbol starts.
  Dwarf_Addr entry = 0;
  ctx.entry_values = dwarf_entrypc(frame, &entry) == 0 && entry == sym.addr;
  Dwarf_Die fn_copy = *frame;
  ctx.frame_base = [this, fn_copy, pc]() mutable {
    Dwarf_Attribute fb;
    Location none;
    none.kind = Location::Kind::Unsupported;
    none.why = "the function has no frame base";
    if (!dwarf_attr(&fn_copy, DW_AT_frame_base, &fb)) return none;
    Dwarf_Op* ops = nullptr;
    size_t n = 0;
    if (dwarf_getlocation_addr(&fb, pc, &ops, &n, 1) <= 0) return none;
    LocContext inner;
    inner.cfa = [this, pc] { return cfa_at(pc); };
    return translate_location(ops, n, inner);
  };
  collect_vars(fn, pc, ctx, site, true);
  if (frame != &fn) {
    // An instance lists its parameters in any order; the abstract
    // function's DIEs follow the declaration.
    std::unordered_map<std::string, Dwarf_Off> order;
    Dwarf_Die c;
    if (dwarf_child(&fn, &c) == 0) {
      do {
        Dwarf_Attribute ao;
        Dwarf_Die origin;
        const char* n = dwarf_diename(&c);
        if (dwarf_tag(&c) == DW_TAG_formal_parameter && n && dwarf_attr(&c, DW_AT_abstract_origin, &ao) &&
            dwarf_formref_die(&ao, &origin))
          order.emplace(n, dwarf_dieoffset(&origin));
      } while (dwarf_siblingof(&c, &c) == 0);
    }
    std::stable_sort(site.params.begin(), site.params.end(), [&](const Variable& a, const Variable& b) {
      return order[a.name] < order[b.name];
    });
  }
  return site;
}

void DwarfInfo::collect_vars(Dwarf_Die& scope, uint64_t pc, const LocContext& ctx, ProbeSite& site,
                             bool top) {
  Dwarf_Die child;
  if (dwarf_child(&scope, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_formal_parameter && top) {
      Variable v = make_var(child, pc, ctx);
      v.is_param = true;
      if (!v.name.empty()) site.params.push_back(std::move(v));
    } else if (tag == DW_TAG_variable) {
      Variable v = make_var(child, pc, ctx);
      if (!v.name.empty()) site.locals.push_back(std::move(v));
    } else if (tag == DW_TAG_lexical_block && dwarf_haspc(&child, pc) == 1) {
      collect_vars(child, pc, ctx, site, false);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

Variable DwarfInfo::make_var(Dwarf_Die& die, uint64_t pc, const LocContext& ctx) {
  Variable v;
  if (const char* name = dwarf_diename(&die)) v.name = name;
  v.type = type_of(die);
  Dwarf_Attribute a;
  if (dwarf_attr(&die, DW_AT_location, &a)) {
    Dwarf_Op* ops = nullptr;
    size_t n = 0;
    int r = dwarf_getlocation_addr(&a, pc, &ops, &n, 1);
    if (r > 0) {
      v.loc = translate_location(ops, n, ctx);
    } else if (r == 0) {
      v.loc.kind = Location::Kind::Unavailable;
      v.loc.why = "not available at this address";
    } else {
      v.loc.kind = Location::Kind::Unsupported;
      v.loc.why = dwarf_errmsg(-1);
    }
  } else if (dwarf_attr_integrate(&die, DW_AT_const_value, &a)) {
    Dwarf_Sword s;
    if (dwarf_formsdata(&a, &s) == 0) {
      auto e = std::make_shared<LocExpr>();
      e->op = LocExpr::Op::Const;
      e->value = s;
      v.loc.kind = Location::Kind::Value;
      v.loc.expr = e;
    } else {
      v.loc.kind = Location::Kind::Unsupported;
      v.loc.why = "a constant that is not a number";
    }
  } else {
    v.loc.kind = Location::Kind::Unavailable;
    v.loc.why = "optimized out";
  }
  return v;
}

std::unique_ptr<DebugInfo> open_dwarf(const std::string& path, std::string& error) {
  auto d = std::make_unique<DwarfInfo>();
  if (!d->open(path, error)) return nullptr;
  return d;
}

}  // namespace stapx::debug
