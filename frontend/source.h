// Source files and locations. Every AST node and diagnostic points into a
// SourceFile held by the SourceManager, which outlives all passes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stapx {

// A position in a source file: file index + 1 (0 means "no location") and
// a byte offset into that file's text.
struct SourceLoc {
  uint32_t file = 0;
  uint32_t offset = 0;
  bool valid() const { return file != 0; }
};

struct SourceFile {
  std::string name;  // as shown to users: path, or "<input>" for -e
  std::string text;
  std::vector<uint32_t> line_starts;  // offset of each line's first byte
  bool is_tapset = false;
};

struct LineCol {
  uint32_t line = 0;  // 1-based
  uint32_t col = 0;   // 1-based, in bytes
};

class SourceManager {
 public:
  // Returns the file index + 1, usable as SourceLoc::file.
  uint32_t add(std::string name, std::string text, bool is_tapset = false);
  const SourceFile& file(uint32_t id) const { return *files_.at(id - 1); }
  LineCol line_col(SourceLoc loc) const;
  std::string_view line_text(SourceLoc loc) const;
  std::string describe(SourceLoc loc) const;  // "file:line:col"

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

}  // namespace stapx
