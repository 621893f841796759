// "Did you mean": the names nearest a misspelt one, for the hints after
// "no match", "unresolved function" and "probe point mismatch".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stapx {

// Up to `n` of `candidates` closest to `name` by edit distance, nearest
// first (ties in candidate order), each once; a candidate more than a third
// of `name`'s length away, or equal to it, is left out.
std::vector<std::string> similar_names(const std::vector<std::string_view>& candidates, std::string_view name,
                                       size_t n);

}  // namespace stapx
