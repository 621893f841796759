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
#include "frontend/source_loc.h"

namespace stapx {

// A macro expansion: the call site, and the expansion it happened inside.
struct Expansion {
  std::string_view macro;  // "@name": the call's token, in a source file's text
  SourceLoc site;       // of the "@name" token, in a real file
  uint32_t parent = 0;  // the expansion the call site itself came from
};

// Where a token of a preprocessed view that came through a macro expansion
// (or a $1 argument) was: its real file and offset, and the expansion.
struct ExpandedLoc {
  uint32_t file;
  uint32_t offset;
  uint32_t expansion;
};

struct SourceFile {
  std::string name;  // as shown to users: path, or "<input>" for -e
  std::string text;
  // The offset of each line's first byte, made when first asked for (most
  // files never are: a line is looked up for diagnostics and locations).
  mutable std::vector<uint32_t> line_starts;
  bool is_tapset = false;
  // A preprocessed view has no text: it is the tokens the parser reads.
  // A location of one of its tokens is in the token's real file, except for
  // the tokens that came through an expansion: SourceLoc{view, k} is the
  // k-th of those, and `expanded` says where it was (see resolve()). The
  // parser's tokens are made with those locations: `expanded` is written
  // then (by parse::make_tokens, in the same walk), before any exists.
  bool is_view = false;
  uint32_t source = 0;  // a view: the file it is a view of
  mutable std::vector<ExpandedLoc> expanded;
  // A view's tokens, for the parser: they live in the SourceManager's run
  // buffer until the next view is begun (start_run; see has_tokens()), and
  // are empty after.
  std::span<const Tok> tokens;
};

struct LineCol {
  uint32_t line = 0;  // 1-based
  uint32_t col = 0;   // 1-based, in bytes
};

class SourceManager {
 public:
  // Returns the file index + 1, usable as SourceLoc::file.
  uint32_t add(std::string name, std::string text, bool is_tapset = false);

  // The tokens of a view being made, written in the SourceManager's run
  // buffer, which is kept from view to view: a view's tokens are needed
  // only until it is parsed, and the locations of its nodes are kept
  // without them. Beginning a run ends the last view's tokens.
  class TokenRun {
   public:
    size_t size() const { return static_cast<size_t>(end_ - begin_); }
    const Tok* begin() const { return begin_; }
    const Tok* end() const { return end_; }
    operator std::span<const Tok>() const { return {begin_, size()}; }
    void clear() { end_ = begin_; }
    // For a loop that keeps many tokens (see TokenArray): it writes at
    // cursor() up to limit(), then commits where it stopped.
    Tok* cursor() const { return end_; }
    Tok* limit() const { return limit_; }
    void commit(Tok* end) { end_ = end; }
    Tok* make_room(Tok* end) {
      end_ = end;
      sm_->grow_run(*this);
      return end_;
    }
    __attribute__((always_inline)) void push_back(const Tok& t) {
      if (end_ == limit_) sm_->grow_run(*this);
      *end_++ = t;
    }

   private:
    friend class SourceManager;
    SourceManager* sm_ = nullptr;
    Tok *begin_ = nullptr, *end_ = nullptr, *limit_ = nullptr;
  };
  TokenRun start_run();
  // Adds a preprocessed view of file `source` (see SourceFile): the run's
  // tokens, which stay in the run buffer until the next start_run().
  uint32_t add_view(uint32_t source, TokenRun& run);
  // Whether view `id`'s tokens are still there (it is the latest view, and
  // no run has begun since).
  bool has_tokens(uint32_t id) const { return id == live_view_; }
  uint32_t add_expansion(Expansion e);
  // A location of a token met before any view is made (a preprocessor
  // diagnostic's): `offset` in real file `file`, reached through
  // `expansion` (0: none), so that it shows the expansion chain.
  SourceLoc located(uint32_t file, uint32_t offset, uint32_t expansion);
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
  // The run buffer (see TokenRun), and the view whose tokens are in it.
  std::unique_ptr<Tok[]> run_buffer_;
  size_t run_capacity_ = 0;
  uint32_t live_view_ = 0;
  uint32_t located_ = 0;  // the view whose expanded locations located() makes
};

}  // namespace stapx
