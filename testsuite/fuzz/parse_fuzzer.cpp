// libFuzzer target for pass 1: the input bytes are a script. It is
// preprocessed and parsed; when that succeeds without parse errors, the
// script is printed (the -p1 output), the output is parsed again with the
// same facts and arguments, and printing that must give the same text.
// A failed second parse or a different second print aborts.
//
// The command line arguments ($1, @1, $#) and -g are chosen from a hash of
// the input (see config_for), so every mutation may flip them; set
// STAPX_FUZZ_VERBOSE=1 to see which were used for an input.
//
// Built with BOOST_ENABLE_ASSERT_HANDLER: a failed BOOST_ASSERT aborts with
// its expression, unless that expression contains the text of
// STAPX_FUZZ_IGNORE_BOOST_ASSERT, in which case the run goes on as an
// NDEBUG build would (a way to keep fuzzing past a known, reported bug).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/parse/parser.h"
#include "frontend/preprocess.h"
#include "frontend/printer.h"
#include "frontend/source.h"

namespace {

using namespace stapx;

struct Config {
  std::vector<std::string> args;
  bool guru = false;
};

// Argument sets: none, plain words and numbers, probe points, strings,
// empty, and arguments that are themselves preprocessor tokens or $1.
const std::vector<std::vector<std::string>> kArgSets = {
    {},
    {"1"},
    {"foo"},
    {"42", "bar"},
    {"kernel.function(\"vfs_read\")", "-1", "0x10"},
    {"", "a b"},
    {"\"quoted\"", "1+2", "$1"},
    {"%(", "@1", "%)", "@define"},
};

Config config_for(const uint8_t* data, size_t size) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  Config c;
  c.args = kArgSets[h % kArgSets.size()];
  c.guru = (h >> 8) & 1;
  return c;
}

PreprocessFacts facts_for(const Config& c) {
  PreprocessFacts f;
  f.kernel_v = "6.1.0";
  f.kernel_vr = "6.1.0-13-amd64";
  f.config = {{"CONFIG_SMP", "y"}, {"CONFIG_MODULES", "y"}, {"CONFIG_X86_64", "y"},
              {"CONFIG_HZ", "250"}, {"CONFIG_EXT4_FS", "m"}};
  f.args = c.args;
  f.guru = c.guru;
  return f;
}

struct Pass1 {
  bool ok = false;  // parsed without parse errors
  std::string printed;
  std::string diags;
};

// One -p1 run: preprocess, parse, print. Everything it allocates dies here.
Pass1 run_pass1(const std::string& name, const std::string& text, const Config& c) {
  Pass1 r;
  SourceManager sm;
  std::ostringstream diag_out;
  DiagSink diags(sm, diag_out);
  PreprocessFacts facts = facts_for(c);
  MacroTable macros;
  uint32_t file = preprocess(sm, sm.add(name, text), facts, macros, diags);
  ast::Arena arena;
  ast::Script* script = parse_file(sm, file, arena, diags, ParseOptions{c.args, c.guru});
  if (!script) {
    fprintf(stderr, "parse_file returned null\n");
    abort();
  }
  r.diags = diag_out.str();
  if (diags.parse_errors()) return r;
  std::ostringstream out;
  print_script(out, *script);
  r.printed = out.str();
  r.ok = true;
  return r;
}


void describe(const Config& c) {
  fprintf(stderr, "config: guru=%d args=[", c.guru ? 1 : 0);
  for (size_t i = 0; i < c.args.size(); ++i) fprintf(stderr, "%s'%s'", i ? ", " : "", c.args[i].c_str());
  fprintf(stderr, "]\n");
}

}  // namespace

namespace boost {

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file, long line) {
  static const char* ignore = getenv("STAPX_FUZZ_IGNORE_BOOST_ASSERT");
  if (ignore && *ignore && strstr(expr, ignore)) return;
  fprintf(stderr, "BOOST_ASSERT failed: %s%s%s\n  in %s\n  at %s:%ld\n", expr, msg ? ": " : "", msg ? msg : "",
          function, file, line);
  abort();
}

void assertion_failed(char const* expr, char const* function, char const* file, long line) {
  assertion_failed_msg(expr, nullptr, function, file, line);
}

}  // namespace boost

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Config c = config_for(data, size);
  static const bool verbose = getenv("STAPX_FUZZ_VERBOSE") != nullptr;
  if (verbose) describe(c);

  std::string text(reinterpret_cast<const char*>(data), size);
  Pass1 first = run_pass1("<input>", text, c);
  if (verbose) fprintf(stderr, "first parse: %s\n%s", first.ok ? "ok" : "errors", first.diags.c_str());
  if (!first.ok) return 0;

  Pass1 second = run_pass1("<printed>", first.printed, c);
  if (!second.ok) {
    describe(c);
    fprintf(stderr, "ROUND-TRIP FAILURE: the printed script does not parse.\n--- printed:\n%s\n--- diagnostics:\n%s",
            first.printed.c_str(), second.diags.c_str());
    abort();
  }
  if (second.printed != first.printed) {
    describe(c);
    fprintf(stderr, "ROUND-TRIP MISMATCH: printing the reparsed script differs.\n--- first:\n%s\n--- second:\n%s",
            first.printed.c_str(), second.printed.c_str());
    abort();
  }
  return 0;
}
