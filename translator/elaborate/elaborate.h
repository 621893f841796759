// Pass 2: symbol resolution, probe point resolution, type inference and
// checks. Produces a Program; errors go to the sink.
#pragma once

#include "frontend/diagnostics.h"
#include "translator/elaborate/program.h"

namespace stapx {

class ProbeEnv;

class TapsetIndex;

struct ElaborateOptions {
  bool keep_unused = false;  // -u
  ProbeContext probes;       // what probe families may consult (probes.env: null for a bare one)
  // -G NAME=VALUE: a global's initial value, taken as its type requires.
  std::vector<std::pair<std::string, std::string>> global_values;
  // --privilege=stapusr: only the probe families and tapset functions an
  // unprivileged user may use, and no kernel memory through $var, @cast or
  // @var.
  bool stapusr = false;
  // The library's index, for the "similar:" names after an unknown
  // function or probe point; may be null.
  const TapsetIndex* library = nullptr;
  bool every_function = false;  // resolve functions no probe calls too (--dump-functions)
  // Keep probes that do nothing (-l/-L, whose points are the output; tests
  // whose cases are such probes), which stap elides.
  bool keep_empty_probes = false;
};

// `arena` receives the probes that alias expansion instantiates.
Program elaborate(std::vector<ast::Script*> scripts, const ElaborateOptions& opts, ast::Arena& arena,
                  DiagSink& diags);

// The -p2 listing, in stap's layout.
void print_program(std::ostream& out, const Program& program);

}  // namespace stapx
