// Pass 4: which kernel APIs the target's kbuild tree has, found by
// compiling the feature probes under runtime-c/autoconf/ (autoconf.cpp).
#pragma once

#include <optional>
#include <string>

#include "translator/build/kbuild.h"

namespace stapx {

// A C header defining STPX_HAVE_NAME for each runtime-c/autoconf/NAME.c
// that compiles against `kernel`'s tree; nullopt (after a one-line cause)
// when make cannot be run at all.
std::optional<std::string> autoconf_header(const KernelTarget& kernel, const std::string& runtime_dir, int verbose);

}  // namespace stapx
