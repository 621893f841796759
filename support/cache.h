// stapx's per-user caches (tapset index, kernel symbols, inline index,
// built modules): where they live and how a file is written into them.
#pragma once

#include <string>

namespace stapx::support {

// $XDG_CACHE_HOME/stapx or ~/.cache/stapx; empty when neither is set, and
// nothing is cached then (never a shared directory such as /tmp, where
// another user could plant a cached module for root to load).
std::string cache_dir();

// Writes a cache file so that readers see all of it or nothing (a
// temporary file renamed into place), creating its directory. Failures are
// quiet: a cache is only ever an optimization.
void write_cache_file(const std::string& path, const std::string& text);

}  // namespace stapx::support
