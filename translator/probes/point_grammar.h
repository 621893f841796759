// The grammar of built-in probe points. Each family declares the shapes it
// accepts as patterns in stap's notation ("timer.ms(number).randomize(number)",
// "kernel.function(string).return"); the patterns of all families form one
// tree of components, through which a point is matched before any family
// sees it. The same tree gives --dump-probe-types, the names a point can
// continue with, and stap's messages for points that fit no pattern:
// "probe point mismatch (similar: ...)", "invalid suffix for probe",
// "probe point truncated (follow: ...)".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace stapx {

class ProbeFamily;

// One accepted shape; its text must live as long as the family (a literal,
// or a string the family object holds). `tag` is the family's own name for it (an enum of the
// family's, as an int), handed back with each point that matches it.
// Unlisted shapes are matched (so that the family can say why it refuses
// them) but left out of --dump-probe-types.
struct PointPattern {
  std::string_view text;
  int tag = 0;
  bool listed = true;
};

// A point that fits one pattern: its family, the pattern's tag, and the
// point's components with their arguments of the kinds the pattern names.
class PointMatch {
 public:
  const ProbeFamily* family = nullptr;
  int tag = 0;
  const ast::ProbePoint* point = nullptr;

  size_t size() const { return point->components.size(); }
  const ast::ProbePointComponent& component(size_t i) const { return point->components[i]; }
  bool has_arg(size_t i) const { return component(i).arg != nullptr; }
  // Component i's argument, which the pattern says is a string (number).
  std::string string_arg(size_t i) const;
  int64_t number_arg(size_t i) const;
  // The argument's location, or the component's when it has none.
  SourceLoc arg_loc(size_t i) const;
};

class PointGrammar {
 public:
  // Builds the tree; a pattern text that does not parse, or one that two
  // families both declare, is a programming error and aborts.
  explicit PointGrammar(const std::vector<const ProbeFamily*>& families);
  ~PointGrammar();

  // Whether some pattern starts with this component name.
  bool knows(std::string_view first) const;
  // Names the first component of a pattern can have.
  std::vector<std::string_view> first_names() const;

  enum class Result {
    Unknown,   // no pattern starts with the point's first name
    Matched,   // `out` is filled
    Mismatch,  // the point starts like some pattern but fits none; reported
  };
  // Matches a point. Mismatches are reported to `diags` unless the point
  // is optional ("?"), which stap drops silently. A first component that
  // fits no pattern is compared for the message with the grammar's first
  // names and with `other_first_names()` (the probe aliases'), if given.
  Result match(const ast::ProbePoint& point, PointMatch& out, DiagSink& diags,
               const std::function<std::vector<std::string>()>& other_first_names = {}) const;

  // Every listed pattern, sorted; with `unprivileged`, only those of the
  // families --privilege=stapusr allows.
  std::vector<std::string> listed_patterns(bool unprivileged = false) const;

 private:
  struct Node;
  std::unique_ptr<Node> root_;
  std::vector<std::pair<std::string_view, const ProbeFamily*>> listed_;
};

// The grammar of probe_families().
const PointGrammar& probe_grammar();

}  // namespace stapx
