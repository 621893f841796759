// parse_tapsets: pass 1 over a whole tapset library, timed.
//
//   parse_tapsets [-n REPEAT] [-r RELEASE] [-a ARCH] [-q] [-v] [-x] [DIR...]
//
// For each search-path DIR (default /usr/share/systemtap/tapset) it picks the
// directories stap would use for the target (library_dirs: DIR, DIR/linux,
// DIR/ARCH, DIR/linux/ARCH), loads their .stpm library macros, then reads,
// preprocesses and parses every .stp file in them, as privileged tapset
// files. This is the work stap does in its pass 1 ("parsed user script and N
// library scripts"). A full pass is repeated REPEAT times (default 5) with
// fresh state each time; only the work is timed (not start-up, not the
// teardown of the AST, which is reported apart). Diagnostics of the first
// pass are summarised; the exit status is 1 if any file had a parse error.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frontend/heap.h"
#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/library.h"
#include "translator/build/kbuild.h"
#include "frontend/parse/parser.h"
#include "frontend/preprocess.h"
#include "frontend/source.h"

namespace fs = std::filesystem;
using namespace stapx;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string running_release() {
  std::ifstream in("/proc/sys/kernel/osrelease");
  std::string r;
  in >> r;
  return r;
}

struct PhaseTimes {
  double macros = 0, read = 0, preprocess = 0, parse = 0, teardown = 0;
  double work() const { return macros + read + preprocess + parse; }
};

struct PassResult {
  PhaseTimes t;
  size_t stpm_files = 0, stp_files = 0, bytes = 0, nodes = 0;
  size_t scanned = 0;      // .stp files needs_preprocessing() sends to the token pass
  size_t rewritten = 0;    // ... of which the preprocessor produced a view (its chosen tokens)
  size_t view_tokens = 0;  // tokens of those views, given to the parser
  size_t parse_errors = 0, semantic_errors = 0, warnings = 0;
  std::map<std::string, size_t> files_with_errors;  // file -> parse errors
  std::string diag_text;
};

PassResult run_pass(const std::vector<std::string>& dirs, const PreprocessFacts& facts, bool keep_diags, bool leak,
                    bool stats) {
  PassResult r;
  std::ostringstream diag_out;
  {
    auto sm = std::make_unique<SourceManager>();
    auto diags = std::make_unique<DiagSink>(*sm, diag_out);
    auto macros = std::make_unique<MacroTable>();
    auto arena = std::make_unique<ast::Arena>();

    // The library's files, listed once as stapx's pipeline does (its .stp
    // files, and its .stpm files, whose macros come first).
    auto t = Clock::now();
    LibraryFiles lib = list_library(dirs);
    const std::vector<std::string>& stp_files = lib.scripts;
    r.stpm_files = load_library_macros(*sm, lib, facts, *macros, *diags);
    r.t.macros = ms_since(t);

    FileReader reader;
    for (const std::string& p : stp_files) {
      t = Clock::now();
      std::string text = reader.read(p);
      r.bytes += text.size();
      uint32_t id = sm->add(p, std::move(text), /*is_tapset=*/true);
      r.t.read += ms_since(t);

      size_t before = diags->parse_errors();
      t = Clock::now();
      uint32_t file = preprocess(*sm, id, facts, *macros, *diags);
      r.t.preprocess += ms_since(t);
      if (stats && needs_preprocessing(sm->file(id).text)) ++r.scanned;  // (a scan of the text)
      if (file != id) ++r.rewritten;
      r.view_tokens += sm->file(file).tokens.size();

      t = Clock::now();
      parse_file(*sm, file, *arena, *diags, ParseOptions{facts.args, /*guru=*/false});
      r.t.parse += ms_since(t);
      if (size_t n = diags->parse_errors() - before) r.files_with_errors[p] = n;
      ++r.stp_files;
    }
    r.nodes = arena->size();
    r.parse_errors = diags->parse_errors();
    r.semantic_errors = diags->semantic_errors();
    r.warnings = diags->warnings();

    t = Clock::now();
    if (leak) {
      // Like a compiler that exits after its last pass: nothing is freed.
      (void)arena.release();
      (void)macros.release();
      (void)diags.release();
      (void)sm.release();
    }
    arena.reset();
    macros.reset();
    diags.reset();
    sm.reset();
    r.t.teardown = ms_since(t);
  }
  if (keep_diags) r.diag_text = diag_out.str();
  return r;
}

// Reference: the preprocessor's tokenizer alone over the same texts (files
// already in memory), i.e. roughly the cost of one hand-written lexing pass.
double tokenize_only(const std::vector<std::string>& texts, size_t& tokens) {
  auto t = Clock::now();
  tokens = 0;
  for (const std::string& s : texts) tokens += tokenize(s).size();
  return ms_since(t);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void usage() {
  std::cerr << "usage: parse_tapsets [-n REPEAT] [-r RELEASE] [-a ARCH] [-q] [-v] [-x] [DIR...]\n"
               "  -n REPEAT  full passes to time (default 5)\n"
               "  -r RELEASE target kernel release for %( kernel_v %) and CONFIG_ (default: running)\n"
               "  -a ARCH    target architecture directory (default x86_64)\n"
               "  -q         print only the summary line\n"
               "  -v         print every diagnostic of the first pass\n"
               "  -x         do not free the last pass's AST and sources (as a compiler exits)\n"
               "  DIR        tapset search path (default /usr/share/systemtap/tapset)\n";
}

}  // namespace

int main(int argc, char** argv) {
  stapx::use_huge_page_heap();  // as stapx's own main does
  int repeat = 5;
  bool quiet = false, verbose = false, leak_last = false;
  std::string release = running_release(), arch = "x86_64";
  std::vector<std::string> search_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-n")
      repeat = std::max(1, std::atoi(value().c_str()));
    else if (a == "-r")
      release = value();
    else if (a == "-a")
      arch = value();
    else if (a == "-q")
      quiet = true;
    else if (a == "-v")
      verbose = true;
    else if (a == "-x")
      leak_last = true;
    else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      usage();
      return 2;
    } else
      search_path.push_back(a);
  }
  if (search_path.empty()) search_path.push_back("/usr/share/systemtap/tapset");
  for (const std::string& d : search_path)
    if (!fs::is_directory(d)) {
      std::cerr << "parse_tapsets: not a directory: " << d << "\n";
      return 2;
    }

  PreprocessFacts facts;
  facts.kernel_vr = release;
  facts.kernel_v = release.substr(0, release.find('-'));
  facts.arch = arch;
  // CONFIG_* of the target, as the pipeline reads them, so that
  // %( CONFIG_X == "y" %? ... %) picks the same branches as a real run.
  if (auto k = stapx::resolve_kernel(release)) facts.config = stapx::kernel_config(*k);

  std::vector<std::string> dirs = library_dirs(search_path, facts);

  if (!quiet) {
    std::cout << "target: " << release << " " << arch << " (" << facts.config.size() << " CONFIG_ values)\n";
    std::cout << "directories:";
    for (auto& d : dirs) std::cout << " " << d;
    std::cout << "\n";
  }

  std::vector<PassResult> results;
  for (int i = 0; i < repeat; ++i) results.push_back(run_pass(dirs, facts, i == 0, leak_last && i + 1 == repeat, !quiet));
  const PassResult& first = results.front();

  // Not with -q: the whole-process timing (parse-vs-stap) must not pay for it.
  std::vector<std::string> texts;
  std::vector<double> lex;
  size_t tokens = 0;
  if (!quiet) {
    for (const std::string& p : stapx::list_library(dirs).scripts) texts.push_back(stapx::read_text_file(p));
    for (int i = 0; i < repeat; ++i) lex.push_back(tokenize_only(texts, tokens));
  }

  std::vector<double> work, macros, read, pre, parse, teardown;
  for (auto& r : results) {
    work.push_back(r.t.work());
    macros.push_back(r.t.macros);
    read.push_back(r.t.read);
    pre.push_back(r.t.preprocess);
    parse.push_back(r.t.parse);
    teardown.push_back(r.t.teardown);
  }
  double wmin = *std::min_element(work.begin(), work.end()), wmed = median(work);

  if (!quiet) {
    std::cout << fmt::format("files: {} .stpm (library macros) + {} .stp, {} bytes of .stp ({:.2f} MB); {} AST nodes\n",
                             first.stpm_files, first.stp_files, first.bytes, first.bytes / 1e6, first.nodes);
    std::cout << fmt::format("preprocessing: {} of {} .stp files scanned by the token pass, {} rewritten "
                             "(views of {} tokens given to the parser)\n",
                             first.scanned, first.stp_files, first.rewritten, first.view_tokens);
    std::cout << fmt::format("diagnostics: {} parse errors in {} files, {} semantic errors, {} warnings\n",
                             first.parse_errors, first.files_with_errors.size(), first.semantic_errors,
                             first.warnings);
    for (auto& [f, n] : first.files_with_errors) std::cout << fmt::format("  {}: {} parse error(s)\n", f, n);
    if (first.parse_errors || first.semantic_errors) {
      // The first lines of each diagnostic, to see what went wrong.
      std::istringstream in(first.diag_text);
      std::string line;
      int shown = 0;
      const int limit = verbose ? 1 << 30 : 40;
      while (std::getline(in, line) && shown < limit) {
        std::cout << "  | " << line << "\n";
        ++shown;
      }
      if (shown == limit) std::cout << "  | ... (-v for all)\n";
    } else if (verbose && !first.diag_text.empty()) {
      std::cout << first.diag_text;
    }
    std::cout << fmt::format("phases (median ms): macros {:.2f}, read {:.2f}, preprocess {:.2f}, parse {:.2f}; "
                             "teardown {:.2f} (not counted)\n",
                             median(macros), median(read), median(pre), median(parse), median(teardown));
    std::cout << fmt::format("reference: tokenize() alone over the same {} files: {:.2f} ms median ({} tokens)\n",
                             texts.size(), median(lex), tokens);
    std::cout << "passes (ms):";
    for (double w : work) std::cout << fmt::format(" {:.1f}", w);
    std::cout << "\n";
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::cout << fmt::format(
      "parse_tapsets: {} files ({} .stp + {} .stpm), {:.2f} MB, {} parse errors; "
      "full pass: min {:.1f} ms, median {:.1f} ms over {} runs ({:.1f} MB/s); max RSS {} MB\n",
      first.stp_files + first.stpm_files, first.stp_files, first.stpm_files, first.bytes / 1e6, first.parse_errors,
      wmin, wmed, repeat, first.bytes / 1e3 / wmed, ru.ru_maxrss / 1024);
  return first.parse_errors ? 1 : 0;
}
