// The inlined instances of a DWARF file, by the name of the function
// inlined. DWARF has no index from a function to the places it was inlined
// into: finding them reads every unit's whole DIE tree (about 3 s for a
// kernel's vmlinux). That walk is done once per file; its result is kept in
// $XDG_CACHE_HOME/stapx (or ~/.cache/stapx), keyed by the file's path, size
// and modification time, so that a changed vmlinux or .ko gets a new index,
// and later runs map the cached file and look names up in it.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace stapx::debug {

struct InlineInstance {
  uint64_t die;    // the DW_TAG_inlined_subroutine, as an offset in .debug_info
  uint64_t outer;  // the out-of-line subprogram that holds it (its frame)
  uint64_t pc;     // where the instance begins: its entry pc
};

class InlineIndex {
 public:
  virtual ~InlineIndex() = default;
  // The index of `dw`, the DWARF of the file at `path`: read from
  // `cache_dir` when an index of this same file is there, else built and
  // written there (an empty `cache_dir`: built and kept in memory only).
  static std::unique_ptr<InlineIndex> open(Dwarf* dw, const std::string& path, const std::string& cache_dir);
  // Calls f for each instance of each function whose name matches the
  // fnmatch(3) `pattern` (the name itself when it has no wildcard), by
  // name, each name's instances in DIE order.
  virtual void find(const std::string& pattern,
                    const std::function<void(std::string_view name, const InlineInstance&)>& f) const = 0;
  virtual size_t names() const = 0;
  virtual size_t instances() const = 0;
  // "cached index FILE", "built, cached in FILE" or "built": for -v and tests.
  virtual const std::string& origin() const = 0;
};

}  // namespace stapx::debug
