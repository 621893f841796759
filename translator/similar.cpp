#include "translator/similar.h"

#include <algorithm>
#include <set>
#include <utility>

namespace stapx {

size_t edit_distance(std::string_view a, std::string_view b, size_t limit) {
  std::vector<size_t> row(b.size() + 1), prev(b.size() + 1);
  // One row at a time, given up past the limit.
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  size_t row_min = 0;
  for (size_t i = 1; i <= a.size() && row_min <= limit; ++i) {
    row[0] = i;
    row_min = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      row_min = std::min(row_min, row[j]);
    }
    std::swap(row, prev);
  }
  return row_min > limit ? limit + 1 : prev[b.size()];
}

std::vector<std::string> similar_names(const std::vector<std::string_view>& candidates, std::string_view name,
                                       size_t n) {
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::vector<std::pair<size_t, std::string_view>> best;
  for (std::string_view s : candidates) {
    if (s.size() + limit < name.size() || s.size() > name.size() + limit) continue;
    size_t d = edit_distance(s, name, limit);
    if (d == 0 || d > limit) continue;
    best.emplace_back(d, s);
  }
  std::stable_sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  for (size_t i = 0; i < best.size() && out.size() < n; ++i)
    if (seen.insert(best[i].second).second) out.emplace_back(best[i].second);
  return out;
}

}  // namespace stapx
