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
#include "frontend/token_maker.h"

namespace stapx {

// The file the command-line arguments' tokens come from ($1 is expanded
// as an argument's tokens, located there).
inline constexpr std::string_view kArgumentsFile = "<command line arguments>";

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
  // A preprocessed view has no text: it is the tokens the parser reads.
  // A location of one of its tokens is in the token's real file, except for
  // the tokens that came through an expansion: SourceLoc{view, k} is the
  // k-th of those, and `expanded` says where it was (see resolve()). The
  // view's tokens are made for the grammar, with those locations, as the
  // preprocessor chooses them (see TokenMaker).
  bool is_view = false;
  uint32_t source = 0;  // a view: the file it is a view of
  std::span<const ExpandedLoc> expanded;  // (in the SourceManager's store)
  // A view's tokens as the grammar takes them: after a token that is none,
  // ending with a token of kind End at the end of the file the view is of.
  // They live in the SourceManager's run buffer until the next view is
  // begun (start_run; see has_tokens()), and are empty after.
  std::span<const Tok> tokens;
  // Why the grammar must not see them, if so (reported when parsed).
  TokenProblem problem = TokenProblem::None;
  SourceLoc problem_at;
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
    // The tokens so far: as given (push_back), or as the grammar takes
    // them (make).
    size_t size() const { return static_cast<size_t>(made_.out - begin_); }
    const Tok* begin() const { return begin_; }
    const Tok* end() const { return made_.out; }
    operator std::span<const Tok>() const { return {begin_, size()}; }
    void clear() {
      uint32_t view = made_.view;
      made_ = TokenMaker(begin_, made_.expanded_base, view);
    }
    // For a loop that adds many tokens: it keeps the maker's state in
    // locals while its `out` is below limit(), then stores it back; grow()
    // makes room.
    TokenMaker& maker() { return made_; }
    const Tok* limit() const { return limit_; }
    void grow() { sm_->grow_run(*this); }
    __attribute__((always_inline)) void push_back(const Tok& t) {
      if (made_.out >= limit_) grow();
      *made_.out++ = t;
    }
    __attribute__((always_inline)) void make(const Tok& t) {
      if (made_.out >= limit_) grow();
      made_.add<true>(t);
    }

   private:
    friend class SourceManager;
    SourceManager* sm_ = nullptr;
    Tok* begin_ = nullptr;  // (a token that is none before it)
    const Tok* limit_ = nullptr;
    TokenMaker made_;
  };
  // Begins the tokens of a view of file `source`: the view's number is
  // taken now (its expanded tokens' locations name it).
  TokenRun start_run(uint32_t source);
  // Makes the run's tokens view `run`'s view (see SourceFile), ended by the
  // End token; they stay in the run buffer until the next start_run().
  uint32_t add_view(TokenRun& run);
  // A run that makes no view: its number is given back, if still last.
  void drop_run(TokenRun& run);
  // Whether view `id`'s tokens are still there (it is the latest view, and
  // no run has begun since).
  bool has_tokens(uint32_t id) const { return id == live_view_; }
  // (Its fields apart: an Expansion made to be passed, field by field,
  // then copied whole, made the processor wait on those stores.)
  uint32_t add_expansion(std::string_view macro, SourceLoc site, uint32_t parent) {
    Expansion& e = expansions_.emplace_back();
    e.macro = macro;
    e.site = site;
    e.parent = parent;
    return static_cast<uint32_t>(expansions_.size());
  }
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

  // Room for `n` expanded locations from the store's next free one on
  // (see expanded_next_), keeping the `keep` already written there.
  void expanded_room(size_t n, size_t keep);

  std::vector<std::unique_ptr<SourceFile>> files_;
  std::vector<Expansion> expansions_;
  // The run buffer (see TokenRun), and the view whose tokens are in it.
  std::unique_ptr<Tok[]> run_buffer_;
  size_t run_capacity_ = 0;
  uint32_t live_view_ = 0;
  // The views' expanded locations, in chunks that are never moved: a run
  // writes its view's where they stay (at most one per token of the run,
  // from expanded_next_ on), and add_view() keeps those it wrote.
  std::vector<std::unique_ptr<ExpandedLoc[]>> expanded_chunks_;
  ExpandedLoc* expanded_next_ = nullptr;
  ExpandedLoc* expanded_end_ = nullptr;
  uint32_t located_ = 0;  // the view whose expanded locations located() makes
  std::vector<ExpandedLoc> located_locs_;  // ... and those locations
};

}  // namespace stapx
