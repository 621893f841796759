// A position in a source file (see SourceManager, source.h).
#pragma once

#include <cstdint>

namespace stapx {

// A position in a source file: file index + 1 (0 means "no location") and
// a byte offset into that file's text.
struct SourceLoc {
  uint32_t file = 0;
  uint32_t offset = 0;
  bool valid() const { return file != 0; }
};

}  // namespace stapx
