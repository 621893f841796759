// The conditions of preprocessor conditionals (%( COND %? A %: B %)), as
// stap reads them: comparisons of the target's facts, literals and script
// arguments, joined by && and || (no parentheses). Used by the
// preprocessor (preprocess.cpp), which gives it a condition's tokens.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "frontend/lexer.h"
#include "frontend/preprocess.h"

namespace stapx {

class ConditionReader {
 public:
  // An error, reported at a token in stap's words: what was expected there
  // (`expected`), or else the whole message.
  using Report = std::function<void(const Tok&, bool expected, const std::string&)>;
  ConditionReader(const PreprocessFacts& facts, Report error) : facts_(facts), error_(std::move(error)) {}

  // Whether condition `c` holds; it was ended by the '%?' `end`, and
  // `after` is the token after that, if any (errors past the condition's
  // tokens point at them). An erroneous condition is reported and false.
  bool operator()(std::span<const Tok> c, const Tok& end, const Tok* after);

 private:
  bool comparison(std::span<const Tok> c, size_t& i);
  static std::string_view text(const Tok& t) { return t.view(); }
  void error(const Tok& t, const std::string& expected) { error_(t, true, expected); }
  void error_text(const Tok& t, const std::string& text) { error_(t, false, text); }

  const PreprocessFacts& facts_;
  Report error_;
  const Tok* cond_end_ = nullptr;    // the '%?' ending the condition
  const Tok* cond_after_ = nullptr;  // the token after it, if any
};

}  // namespace stapx
