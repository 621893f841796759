// The pass manager: runs passes 1..N in order and stops at a pass boundary
// when errors exist.
#pragma once

#include "translator/options.h"

namespace stapx {

// Returns the process exit status.
int run_pipeline(const Options& opts);

}  // namespace stapx
