// The target kernel's function symbols, for kprobe.function("pattern"):
// which functions exist and which of them may take a kprobe. Three sources
// behind one interface: the ELF symbol table of the release's vmlinux
// (indexed once per vmlinux into ~/.cache/stapx), /proc/kallsyms when the
// target is the running kernel, and a fixed list for unit tests.
#pragma once

#include "frontend/diagnostics.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stapx {

struct KernelFunction {
  std::string name;
  // Why the kernel refuses a kprobe here ("kprobe blacklist",
  // ".noinstr.text", ...); empty when the function is probeable.
  std::string unprobeable;
  // Its address (link-time in a vmlinux, run-time in kallsyms); 0 when
  // unknown, or when several functions have the name.
  uint64_t addr = 0;
  // Its size in bytes; 0 when unknown (kallsyms).
  uint64_t size = 0;
  // Whether ftrace can attach at its entry: it holds one of the vmlinux's
  // __mcount_loc call sites. kallsyms cannot tell, and says yes.
  bool traceable = false;
  // Whether other function symbols have its address (__x64_sys_getpid,
  // __do_sys_getpid): the kernel may name the address by another.
  bool aliased = false;
};

class KernelSymbols {
 public:
  virtual ~KernelSymbols() = default;
  // Every text symbol, sorted by name, each name once.
  virtual const std::vector<KernelFunction>& functions() const = 0;
  // Where the symbols came from, for -v ("vmlinux /path (cached)").
  virtual std::string source() const = 0;
  // The function named exactly `name`, or null.
  const KernelFunction* find(const std::string& name) const;
};

// The vmlinux's ELF symbol table; its index is cached under
// $XDG_CACHE_HOME/stapx (or ~/.cache/stapx) keyed by path, size and mtime.
// Null with *error set when the file can't be read as an ELF vmlinux.
std::unique_ptr<KernelSymbols> vmlinux_symbols(const std::string& path, std::string* error);

// Only the functions of the vmlinux's symbol table that cannot be probed,
// each with why: what probe sites inlined into other functions are checked
// against. A small cache file, kept beside vmlinux_symbols()'s, so that
// the check does not read the whole table.
std::unique_ptr<KernelSymbols> vmlinux_unprobeable(const std::string& path, std::string* error);

// /proc/kallsyms (or another file in its format), with the kprobe blacklist
// of debugfs when it is readable.
std::unique_ptr<KernelSymbols> kallsyms_symbols(const std::string& path, std::string* error);

// The entries of kernel functions that a batch of ftrace-attached probes
// can take by address (runtime-c/probes/kprobes.c): the address of each
// probeable, traceable function whose name is unique, and of the symbol
// the module relocates those addresses by (kFtraceReference), all from one
// table, so that the runtime can add the kernel's KASLR offset.
class FtraceAddresses {
 public:
  struct Entry {
    uint64_t addr = 0;  // 0: the batch cannot take it
    uint64_t size = 0;
    bool aliased = false;
  };
  virtual ~FtraceAddresses() = default;
  // `name`'s entry if a batch can take it there.
  virtual Entry entry(std::string_view name) const = 0;
  // kFtraceReference's address in the same table; 0 (and no batch) if
  // the table lacks it.
  virtual uint64_t reference() const = 0;
};

// The symbol the module finds its probes' run-time addresses from: an
// exported kernel function the runtime calls anyway.
constexpr const char* kFtraceReference = "register_kprobe";

// The entries of a vmlinux, looked up in vmlinux_symbols()'s cached index
// in place (a few lookups need not parse 60,000 lines); null, with *error,
// if the vmlinux cannot be read.
std::unique_ptr<FtraceAddresses> vmlinux_ftrace_addresses(const std::string& path, std::string* error);
// The entries of a loaded table (kallsyms); it must outlive the result.
std::unique_ptr<FtraceAddresses> table_ftrace_addresses(const KernelSymbols& syms);

// The index vmlinux_symbols() caches, as text, and the entries looked up
// in such a text (what vmlinux_ftrace_addresses() reads); null if the text
// is not an index. For tests.
std::string ksyms_index_text(const KernelSymbols& syms);
std::unique_ptr<FtraceAddresses> index_ftrace_addresses(std::string text);

// A fixed table, for tests.
std::unique_ptr<KernelSymbols> fixture_symbols(std::vector<KernelFunction> functions);

// The functions a kprobe.function pattern names, in name order; functions
// that match but can't be probed go to *excluded.
std::vector<const KernelFunction*> match_kernel_functions(const KernelSymbols& syms, const std::string& pattern,
                                                          std::vector<const KernelFunction*>* excluded);

// Up to `n` function names closest to `name` by edit distance (as stap's
// "similar functions" list after "no match"), nearest first; names more
// than a third of `name` away are left out.
std::vector<std::string> similar_functions(const KernelSymbols& syms, const std::string& name, size_t n);

// The "no match" diagnostic, with the similar names when there are any.
void report_no_match(DiagSink& diags, SourceLoc at, const KernelSymbols* syms, const std::string& name);

}  // namespace stapx
