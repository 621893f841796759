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
//
// With STAPX_FUZZ_SKIP_HUGE_EXPANSION set, inputs whose macro expansion
// would produce more than kExpansionBudget tokens (or depth errors) are
// skipped: a reported bug (regressions/macro_*) makes them hang or exhaust
// memory. The estimate mirrors preprocess.cpp's expansion on the tokens.
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

// An upper-bound-minded count of what macro and argument expansion would
// emit (tokens and error reports), stopping at kExpansionBudget.
constexpr size_t kExpansionBudget = 100000;
constexpr int kMaxDepth = 64;  // preprocess.cpp's kMaxExpansionDepth

class ExpansionEstimate {
 public:
  struct ETok {
    std::string_view s;
    uint32_t begin, end;
    TokKind kind;
  };
  explicit ExpansionEstimate(const std::vector<std::string>& args) {
    for (const std::string& a : args) args_.push_back(lex(a));
  }
  // True if expanding `text` stays within the budget.
  bool within_budget(std::string_view text) {
    if (!needs_preprocessing(text)) return true;
    try {
      expand(lex(text), 0);
    } catch (const Over&) {
      return false;
    }
    return true;
  }

 private:
  struct Over {};
  struct Macro {
    std::vector<std::string> params;
    std::vector<ETok> body;
  };
  static std::vector<ETok> lex(std::string_view text) {
    std::vector<ETok> out;
    for (const Token& t : tokenize(text)) {
      if (t.kind == TokKind::Error) break;
      out.push_back({t.text(text), t.begin, t.end, t.kind});
    }
    return out;
  }
  void emit() {
    if (++emitted_ > kExpansionBudget) throw Over{};
  }
  size_t define(const std::vector<ETok>& in, size_t i) {
    ++i;
    if (i >= in.size() || in[i].kind != TokKind::Ident) return in.size();
    std::string name(in[i++].s);
    Macro m;
    if (i < in.size() && in[i].s == "(") {
      ++i;
      if (i < in.size() && in[i].s == ")") return in.size();
      while (i < in.size() && in[i].s != ")") {
        if (in[i].kind != TokKind::Ident) return in.size();
        m.params.emplace_back(in[i++].s);
        if (i < in.size() && in[i].s == ",") ++i;
      }
      if (i >= in.size()) return in.size();
      ++i;
    }
    if (i >= in.size() || in[i].s != "%(") return in.size();
    int depth = 1;
    for (++i; i < in.size(); ++i) {
      if (in[i].s == "%(") ++depth;
      if (in[i].s == "%)" && --depth == 0) break;
      m.body.push_back(in[i]);
    }
    if (i >= in.size()) return in.size();
    macros_.emplace(name, std::move(m));  // the first definition wins
    return i + 1;
  }
  void expand(const std::vector<ETok>& in, int depth) {
    for (size_t i = 0; i < in.size();) {
      const ETok& t = in[i];
      if (t.kind == TokKind::Dollar || t.kind == TokKind::At) {
        std::string_view s = t.s;
        bool count = s.size() == 2 && s[1] == '#';
        bool digits = s.size() >= 2 && s.find_first_not_of("0123456789", 1) == std::string_view::npos;
        if (count) {
          emit();
          ++i;
          continue;
        }
        if (digits) {
          size_t index = std::strtoul(std::string(s.substr(1)).c_str(), nullptr, 10);
          if (index >= 1 && index <= args_.size()) {
            if (s[0] == '@')
              emit();
            else
              expand(args_[index - 1], depth + 1);
            ++i;
            continue;
          }
        }
      }
      if (t.kind != TokKind::At) {
        emit();
        ++i;
        continue;
      }
      std::string name(t.s.substr(1));
      if (name == "define") {
        i = define(in, i);
        continue;
      }
      auto it = macros_.find(name);
      if (it == macros_.end()) {
        emit();
        ++i;
        continue;
      }
      const Macro& m = it->second;
      if (depth >= kMaxDepth) {
        emit();  // the depth error
        return;
      }
      std::vector<std::vector<ETok>> args;
      ++i;
      if (i < in.size() && in[i].s == "(" && (!m.params.empty() || in[i].begin == t.end)) {
        int nest = 0;
        args.emplace_back();
        for (++i; i < in.size(); ++i) {
          std::string_view s = in[i].s;
          if ((s == ")" || s == "]" || s == "}") && nest == 0) break;
          if (s == "(" || s == "[" || s == "{") ++nest;
          if (s == ")" || s == "]" || s == "}") --nest;
          if (s == "," && nest == 0) {
            args.emplace_back();
            continue;
          }
          args.back().push_back(in[i]);
        }
        if (i >= in.size() || in[i].s != ")") return;
        ++i;
        if (args.size() == 1 && args[0].empty() && m.params.empty()) args.clear();
      }
      if (args.size() != m.params.size()) {
        emit();  // the argument count error
        continue;
      }
      std::vector<ETok> body;
      for (const ETok& b : m.body) {
        if (b.kind == TokKind::At) {
          bool substituted = false;
          for (size_t k = 0; k < m.params.size(); ++k) {
            if (b.s.substr(1) == m.params[k]) {
              body.insert(body.end(), args[k].begin(), args[k].end());
              substituted = true;
              break;
            }
          }
          if (substituted) continue;
        }
        body.push_back(b);
      }
      expand(body, depth + 1);
    }
  }

  std::vector<std::vector<ETok>> args_;
  std::map<std::string, Macro> macros_;
  size_t emitted_ = 0;
};

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
  static const bool skip_huge = getenv("STAPX_FUZZ_SKIP_HUGE_EXPANSION") != nullptr;
  if (skip_huge && !ExpansionEstimate(c.args).within_budget(text)) {
    if (verbose) fprintf(stderr, "skipped: macro expansion over budget\n");
    return -1;  // libFuzzer: do not add to the corpus
  }
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
