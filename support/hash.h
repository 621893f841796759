// FNV-1a over strings, each ended by a separator: the keys of stapx's
// caches (modules, kernel feature answers, signed modules, build IDs).
#pragma once

#include <cstdint>
#include <string_view>

namespace stapx {

struct Fnv {
  uint64_t h = 1469598103934665603ULL;
  void add(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;
    h *= 1099511628211ULL;
  }
};

}  // namespace stapx
