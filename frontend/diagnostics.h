// The diagnostic sink: every pass reports here, by ID from diagnostics.def.
// Printing follows stap's layout (message, location, source line, caret) so
// that users' habits carry over.
#pragma once

#include <fmt/format.h>

#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "frontend/source.h"

namespace stapx {

enum class Severity { ParseError, SemanticError, Warning };

enum class DiagId {
#define DIAG(id, sev, text) id,
#include "frontend/diagnostics.def"
#undef DIAG
};

struct Diagnostic {
  DiagId id;
  Severity severity;
  std::string message;
  SourceLoc loc;
  std::string token;  // how stap names the offending token, e.g. "identifier 'x'"
};

class DiagSink {
 public:
  DiagSink(const SourceManager& sm, std::ostream& out) : sm_(sm), out_(out) {}
  DiagSink(const DiagSink&) = delete;
  DiagSink& operator=(const DiagSink&) = delete;
  ~DiagSink() { report_suppressed(); }

  template <typename... Args>
  void report(DiagId id, SourceLoc loc, Args&&... args) {
    emit(id, loc, fmt::format(fmt::runtime(text(id)), std::forward<Args>(args)...));
  }

  // A context error ("while resolving probe point") printed just before the
  // next error, as stap prints it, and not at all if no error follows.
  template <typename... Args>
  void set_context(DiagId id, SourceLoc loc, Args&&... args) {
    context_ = Pending{id, loc, fmt::format(fmt::runtime(text(id)), std::forward<Args>(args)...), true};
  }
  void clear_context() { context_.set = false; }
  // An error stap prints as soon as it meets it, before any context line
  // ("while resolving probe point") of what it concerns: without one.
  template <typename... Args>
  void report_early(DiagId id, SourceLoc loc, Args&&... args) {
    clear_context();
    report(id, loc, std::forward<Args>(args)...);
  }

  size_t parse_errors() const { return parse_errors_; }
  size_t semantic_errors() const { return semantic_errors_; }
  size_t errors() const { return parse_errors_ + semantic_errors_; }
  const SourceManager& sources() const { return sm_; }
  size_t warnings() const { return warnings_; }
  void set_warnings_as_errors(bool on) { werror_ = on; }
  void set_suppress_warnings(bool on) { suppress_warnings_ = on; }
  // Without -v a warning whose message (its location aside) was printed
  // already is counted, not printed, as stap does; report_suppressed()
  // then says how many (once; the destructor calls it too).
  void set_verbose(bool on) { verbose_ = on; }
  void report_suppressed();
  const std::vector<Diagnostic>& all() const { return all_; }
  // "describe the token at loc" in stap's words; exposed for tests.
  static std::string describe_token(std::string_view text, size_t offset);

 private:
  static const char* text(DiagId id);
  static Severity severity(DiagId id);
  void emit(DiagId id, SourceLoc loc, std::string message);

  const SourceManager& sm_;
  std::ostream& out_;
  std::vector<Diagnostic> all_;
  size_t parse_errors_ = 0, semantic_errors_ = 0, warnings_ = 0;
  bool werror_ = false, suppress_warnings_ = false, verbose_ = false;
  std::set<std::string> warned_;  // messages of the warnings printed
  size_t suppressed_ = 0;
  struct Pending {
    DiagId id;
    SourceLoc loc;
    std::string message;
    bool set = false;
  } context_;
};

}  // namespace stapx
