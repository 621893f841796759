// Debug information on demand: release R's vmlinux fetched by its build ID
// from the servers $DEBUGINFOD_URLS names, through elfutils' debuginfod
// client (its cache: $DEBUGINFOD_CACHE_PATH, else
// ~/.cache/debuginfod_client). Local files come first (locate.h); this is
// what find_vmlinux() tries when none is there. (A module's DWARF comes
// the same way through libdwfl, which asks debuginfod itself: dwarf_info.h.)
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace stapx {

// Release R's build ID in hex: from /sys/kernel/notes when R runs here,
// else from the vmlinux compressed in R's vmlinuz (/boot/vmlinuz-R, or
// DIR/boot/vmlinuz-R, DIR/../boot/vmlinuz-R, DIR/vmlinuz-R for each DIR of
// `dirs`); cached by the image's path, size and time. nullopt with `why`.
std::optional<std::string> kernel_build_id(const std::string& release, const std::vector<std::string>& dirs,
                                           std::string& why);

// The path of R's vmlinux in the debuginfod client's cache, fetched first
// if need be (a progress line on a terminal); nullopt when
// $DEBUGINFOD_URLS is unset or empty, or after a one-line cause naming the
// servers. Asked once per release and process.
std::optional<std::string> debuginfod_vmlinux(const std::string& release, const std::vector<std::string>& dirs);

}  // namespace stapx
