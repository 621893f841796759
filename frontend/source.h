// Source files and locations. Every AST node and diagnostic points into a
// SourceFile held by the SourceManager, which outlives all passes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/lexer.h"

namespace stapx {

// A position in a source file: file index + 1 (0 means "no location") and
// a byte offset into that file's text.
struct SourceLoc {
  uint32_t file = 0;
  uint32_t offset = 0;
  bool valid() const { return file != 0; }
};

// A macro expansion: the call site, and the expansion it happened inside.
struct Expansion {
  std::string_view macro;  // "@name": the call's token, in a source file's text
  SourceLoc site;       // of the "@name" token, in a real file
  uint32_t parent = 0;  // the expansion the call site itself came from
};

// A token of a preprocessed view: the token at `begin`..`end` of real file
// `file`, reached through `expansion` (0: none, else index + 1 into
// SourceManager's expansions).
struct ViewToken {
  Token tok;
  uint32_t file;
  uint32_t expansion;
};

struct SourceFile {
  std::string name;  // as shown to users: path, or "<input>" for -e
  std::string text;
  std::vector<uint32_t> line_starts;  // offset of each line's first byte
  bool is_tapset = false;
  // A preprocessed view has no text: it is the tokens the parser reads, and
  // a SourceLoc in it is the index of a token (see resolve()).
  bool is_view = false;
  std::vector<ViewToken> tokens;
};

struct LineCol {
  uint32_t line = 0;  // 1-based
  uint32_t col = 0;   // 1-based, in bytes
};

class SourceManager {
 public:
  // Returns the file index + 1, usable as SourceLoc::file.
  uint32_t add(std::string name, std::string text, bool is_tapset = false);
  // Adds a preprocessed view of other files (see ViewToken).
  uint32_t add_view(std::string name, std::vector<ViewToken> tokens, bool is_tapset);
  uint32_t add_expansion(Expansion e);
  const Expansion& expansion(uint32_t id) const { return expansions_.at(id - 1); }
  const SourceFile& file(uint32_t id) const { return *files_.at(id - 1); }

  // A location in a real file, and the expansion (0: none) it came through.
  std::pair<SourceLoc, uint32_t> resolve(SourceLoc loc) const;
  // These resolve preprocessed locations to the user's text.
  LineCol line_col(SourceLoc loc) const;
  std::string_view line_text(SourceLoc loc) const;
  std::string describe(SourceLoc loc) const;  // "file:line:col"
  // The text a location is in and its offset there (a view's token is
  // looked up in its real file); an offset at or past the text's end is the
  // end of the input.
  std::pair<std::string_view, uint32_t> text_at(SourceLoc loc) const;

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
  std::vector<Expansion> expansions_;
};

}  // namespace stapx
