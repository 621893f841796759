// Source files and locations. Every AST node and diagnostic points into a
// SourceFile held by the SourceManager, which outlives all passes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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

struct SourceFile {
  std::string name;  // as shown to users: path, or "<input>" for -e
  std::string text;
  // The offset of each line's first byte, made when first asked for (most
  // files never are: a line is looked up for diagnostics and locations).
  mutable std::vector<uint32_t> line_starts;
  bool is_tapset = false;
  // A preprocessed view has no text: it is the tokens the parser reads, and
  // a SourceLoc in it is the index of a token (see resolve()).
  bool is_view = false;
  std::span<const ViewToken> tokens;  // in the SourceManager's token store
};

struct LineCol {
  uint32_t line = 0;  // 1-based
  uint32_t col = 0;   // 1-based, in bytes
};

class SourceManager {
 public:
  // Returns the file index + 1, usable as SourceLoc::file.
  uint32_t add(std::string name, std::string text, bool is_tapset = false);

  // The tokens of a view being made, written where the view will keep them:
  // at the end of the SourceManager's token store, whose chunks never move
  // once a view holds tokens in them. One run is made at a time; a run not
  // given to add_view() is dropped by the next start_run().
  class TokenRun {
   public:
    size_t size() const { return static_cast<size_t>(end_ - begin_); }
    const ViewToken* begin() const { return begin_; }
    const ViewToken* end() const { return end_; }
    operator std::span<const ViewToken>() const { return {begin_, size()}; }
    void clear() { end_ = begin_; }
    // For a loop that keeps many tokens (see TokenArray): it writes at
    // cursor() up to limit(), then commits where it stopped.
    ViewToken* cursor() const { return end_; }
    ViewToken* limit() const { return limit_; }
    void commit(ViewToken* end) { end_ = end; }
    ViewToken* make_room(ViewToken* end) {
      end_ = end;
      sm_->grow_run(*this);
      return end_;
    }
    __attribute__((always_inline)) void push_back(const ViewToken& t) {
      if (end_ == limit_) sm_->grow_run(*this);
      *end_++ = t;
    }

   private:
    friend class SourceManager;
    SourceManager* sm_ = nullptr;
    ViewToken *begin_ = nullptr, *end_ = nullptr, *limit_ = nullptr;
  };
  TokenRun start_run();
  // Adds a preprocessed view of other files (see ViewToken): the run's
  // tokens, which stay where they are.
  uint32_t add_view(std::string name, TokenRun& run, bool is_tapset);
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
  void grow_run(TokenRun& run);

  std::vector<std::unique_ptr<SourceFile>> files_;
  std::vector<Expansion> expansions_;
  // The token store: views' tokens, in chunks; the free part of the last
  // chunk is [store_end_, store_limit_).
  std::vector<std::unique_ptr<ViewToken[]>> store_;
  ViewToken *store_end_ = nullptr, *store_limit_ = nullptr;
};

}  // namespace stapx
