// "Did you mean": the names nearest a misspelt one, for the hints after
// "no match", "unresolved function" and "probe point mismatch".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stapx {

// Levenshtein distance between a and b; limit + 1 once it is known to be
// more than `limit`.
size_t edit_distance(std::string_view a, std::string_view b, size_t limit = SIZE_MAX);

// Up to `n` of `candidates` closest to `name` by edit distance, nearest
// first (ties in candidate order), each once; a candidate more than a third
// of `name`'s length away, or equal to it, is left out.
std::vector<std::string> similar_names(const std::vector<std::string_view>& candidates, std::string_view name,
                                       size_t n);

}  // namespace stapx
