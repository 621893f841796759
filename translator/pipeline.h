// The pass manager: runs passes 1..N in order and stops at a pass boundary
// when errors exist.
#pragma once

#include <memory>

#include "translator/options.h"

namespace stapx {

// What pass 2 opens once for a target kernel (its debug information, its
// function symbols), kept by a caller that runs many scripts in one
// process (the pass-2 fuzzer) so that the next run reuses it. Each run
// otherwise opens its own and leaves it to the process's exit.
struct PipelineCache;
struct PipelineCacheDeleter {
  void operator()(PipelineCache* c) const;
};
std::unique_ptr<PipelineCache, PipelineCacheDeleter> make_pipeline_cache();

// Returns the process exit status.
int run_pipeline(const Options& opts, PipelineCache* cache = nullptr);

}  // namespace stapx
