// Where the target kernel's debug information is: the vmlinux with DWARF
// (and its full ELF symbol table) that Debian's linux-image-R-dbg installs,
// or one the user points at with --debuginfo.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stapx {

// The places searched for release R's vmlinux, in order: for each DIR of
// `dirs` (--debuginfo, then $STAPX_DEBUGINFO, colon-separated): DIR itself
// when it is a file, DIR/vmlinux-R, DIR/vmlinux, DIR/boot/vmlinux-R,
// DIR/usr/lib/debug/boot/vmlinux-R, DIR/lib/modules/R/vmlinux; then the
// system's /usr/lib/debug/boot/vmlinux-R and /usr/lib/debug/lib/modules/R/vmlinux.
std::vector<std::string> vmlinux_candidates(const std::string& release,
                                            const std::vector<std::string>& dirs);

// The first candidate that exists as a regular file; else, with
// $DEBUGINFOD_URLS set, the vmlinux its servers have for R's build ID
// (debuginfod.h).
std::optional<std::string> find_vmlinux(const std::string& release,
                                        const std::vector<std::string>& dirs);

// Release R's BTF: DIR/vmlinux-R.btf or DIR/btf/vmlinux-R for each DIR of
// `dirs` and $STAPX_DEBUGINFO, then /sys/kernel/btf/vmlinux when R is the
// running kernel.
std::optional<std::string> find_btf(const std::string& release, const std::vector<std::string>& dirs);

// Kernel modules with debug information whose names match the fnmatch(3)
// `pattern` ('-' and '_' are the same in module names, as for the kernel),
// name -> path, from: each DIR of `dirs` and $STAPX_DEBUGINFO (DIR/m.ko,
// or DIR/**/m.ko, or DIR itself when it is a .ko), then the system's
// /usr/lib/debug/lib/modules/R/ (DWARF, from linux-image-R-dbg), then the
// installed modules of R under /lib/modules/R/{kernel,updates,extra} (BTF,
// in Debian's). A module may also be m.ko.xz, m.ko.zst or m.ko.gz. The first
// directory that has a module wins.
std::map<std::string, std::string> find_modules(const std::string& release, const std::vector<std::string>& dirs,
                                                const std::string& pattern);

// The hint printed when debug information is needed and missing.
std::string debuginfo_hint(const std::string& release);
// The same for a module's.
std::string module_debuginfo_hint(const std::string& release, const std::string& module);

}  // namespace stapx
