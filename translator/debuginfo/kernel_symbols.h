// The target kernel's function symbols, for kprobe.function("pattern"):
// which functions exist and which of them may take a kprobe. Three sources
// behind one interface: the ELF symbol table of the release's vmlinux
// (indexed once per vmlinux into ~/.cache/stapx), /proc/kallsyms when the
// target is the running kernel, and a fixed list for unit tests.
#pragma once

#include "frontend/diagnostics.h"

#include <memory>
#include <string>
#include <vector>

namespace stapx {

struct KernelFunction {
  std::string name;
  // Why the kernel refuses a kprobe here ("kprobe blacklist",
  // ".noinstr.text", ...); empty when the function is probeable.
  std::string unprobeable;
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
