// What probe families may ask about the target while they expand probe
// points: its release and, opened on first use, its debug information.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/kernel_symbols.h"

namespace stapx {

class ProbeEnv {
 public:
  ProbeEnv() = default;
  // `prefer_btf`: use BTF even where DWARF is installed (--btf).
  ProbeEnv(std::string release, std::vector<std::string> debuginfo_dirs, int verbose, bool prefer_btf = false)
      : release_(std::move(release)), dirs_(std::move(debuginfo_dirs)), verbose_(verbose), prefer_btf_(prefer_btf) {}
  ProbeEnv(const ProbeEnv&) = delete;
  ProbeEnv& operator=(const ProbeEnv&) = delete;
  ~ProbeEnv();
  // Leaves the debug information to the process's exit: freeing libdw's
  // bookkeeping for a 633 MB vmlinux costs a tenth of pass 2.
  void keep_until_exit() { keep_ = true; }

  const std::string& release() const { return release_; }
  // The target kernel's debug information; null after reporting, once, at
  // `loc` why there is none.
  debug::DebugInfo* debuginfo(DiagSink& diags, SourceLoc loc);
  // The debug information of each kernel module whose name matches the
  // fnmatch(3) `pattern`, by module name, opened on first use (its DWARF,
  // else its BTF, or with --btf its BTF only); empty after
  // reporting at `loc` why (no module found, or one cannot be read), unless
  // `optional` (a probe point marked '?' or '!').
  std::vector<std::pair<std::string, debug::DebugInfo*>> module_debuginfo(const std::string& pattern,
                                                                           DiagSink& diags, SourceLoc loc,
                                                                           bool optional = false);
  // What a kernel.* or module("pattern").* point resolves against: the
  // kernel's debug information (named ""), or each matching module's, by
  // name; empty after reporting why.
  std::vector<std::pair<std::string, debug::DebugInfo*>> point_debuginfo(const ast::ProbePoint& point, bool module,
                                                                         DiagSink& diags);
  // The types user-space headers declare ("<sys/un.h>", or several:
  // "<sys/socket.h><sys/un.h>"), from the debug information of an empty
  // program that includes them, compiled with the host's gcc on first use;
  // null, with why in `error` (a header gcc cannot include), if not.
  debug::DebugInfo* header_debuginfo(const std::string& headers, std::string& error);
  // The DWARF of a user-space program or library at `path` (@cast(p,
  // "type", "/usr/bin/prog"); its separate debug file if it has one),
  // opened on first use; null, with why in `error`, if it has none.
  debug::DebugInfo* binary_debuginfo(const std::string& path, std::string& error);
  // The target kernel's BTF (tracepoints are described there), opened on
  // first use; null after reporting why at `loc`.
  debug::DebugInfo* btf(DiagSink& diags, SourceLoc loc);
  // The functions of the vmlinux whose DWARF debuginfo() opened that the
  // kernel will not kprobe (vmlinux_unprobeable()), read on first use;
  // null without such a vmlinux.
  const KernelSymbols* unprobeable_kernel_functions();
  // For unit tests: answer from this instead.
  void set_debuginfo(std::unique_ptr<debug::DebugInfo> d) {
    debuginfo_ = std::move(d);
    tried_ = true;
  }

 private:
  std::unique_ptr<debug::DebugInfo> open_module(const std::string& path, std::string& error);

  std::string release_;
  std::vector<std::string> dirs_;
  int verbose_ = 0;
  bool prefer_btf_ = false;
  bool keep_ = false;
  bool tried_ = false;
  std::unique_ptr<debug::DebugInfo> debuginfo_;
  std::string vmlinux_;  // the file debuginfo_ is the DWARF of
  bool unprobeable_tried_ = false;
  std::unique_ptr<KernelSymbols> unprobeable_;
  bool btf_tried_ = false;
  bool debuginfo_is_btf_ = false;
  std::unique_ptr<debug::DebugInfo> btf_;
  std::map<std::string, std::unique_ptr<debug::DebugInfo>> modules_;  // by path
  std::map<std::string, std::unique_ptr<debug::DebugInfo>> headers_;  // by header list; null: failed
  std::map<std::string, std::string> header_errors_;                  // why it failed
  std::map<std::string, std::pair<std::unique_ptr<debug::DebugInfo>, std::string>> binaries_;  // by path; why if null
};

}  // namespace stapx
