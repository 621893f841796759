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
  // A token's text; and an error, reported at a token in stap's words: what
  // was expected there.
  using TextOf = std::function<std::string_view(const ViewToken&)>;
  using Expected = std::function<void(const ViewToken&, const std::string&)>;
  ConditionReader(const PreprocessFacts& facts, TextOf text, Expected error)
      : facts_(facts), text_(std::move(text)), error_(std::move(error)) {}

  // Whether condition `c` holds; it was ended by the '%?' `end`, and
  // `after` is the token after that, if any (errors past the condition's
  // tokens point at them). An erroneous condition is reported and false.
  bool operator()(std::span<const ViewToken> c, const ViewToken& end, const ViewToken* after);

 private:
  bool comparison(std::span<const ViewToken> c, size_t& i);
  std::string_view text(const ViewToken& t) const { return text_(t); }
  void error(const ViewToken& t, const std::string& expected) { error_(t, expected); }

  const PreprocessFacts& facts_;
  TextOf text_;
  Expected error_;
  const ViewToken* cond_end_ = nullptr;    // the '%?' ending the condition
  const ViewToken* cond_after_ = nullptr;  // the token after it, if any
};

}  // namespace stapx
