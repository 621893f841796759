// The one ordered list of passes. Ordering constraints:
//  - pass 2 needs every parsed file (tapsets are parsed on demand in pass 2);
//  - pass 3 needs a Program without errors: codegen assumes all types known;
//  - pass 4 needs the kernel target resolved before the cache key is made;
//  - pass 5 runs the module where it can be loaded: here (stapx-run) or in
//    the QEMU guest (--vm, testsuite/vm/vm-run), which fixes the target
//    kernel to the guest's before pass 4.
#include "translator/pipeline.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "frontend/library.h"
#include "frontend/parse/parser.h"
#include "frontend/pass1_checks.h"
#include "frontend/lexer.h"  // (TokKind)
#include "frontend/preprocess.h"
#include "frontend/printer.h"
#include "support/cache.h"
#include "translator/build/kbuild.h"
#include "translator/build/signing.h"
#include "translator/codegen/codegen.h"
#include "translator/config.h"
#include "translator/coverage/tapset_coverage.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/kernel_symbols.h"
#include "translator/debuginfo/locate.h"
#include "translator/elaborate/dump.h"
#include "translator/elaborate/elaborate.h"
#include "translator/elaborate/tapsets.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_env.h"
#include "translator/probes/uprobe_table.h"
#include "translator/remote/remote.h"

namespace stapx {

namespace fs = std::filesystem;

namespace {

// The files whose symbols and unwind rows go into the module: those the
// probes are in, -d PATH's, and with --ldd the libraries all of them
// need. False after saying why.
bool user_symbol_files(const Options& opts, const Program& prog, std::vector<std::string>& out) {
  auto add = [&](const std::string& path) {
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
  };
  for (const ProbeSpec& p : prog.probes)
    if (std::string file = p.data ? p.data->user_file() : ""; !file.empty()) add(file);
  for (const std::string& d : opts.symbol_files) {
    std::string error;
    std::string path = debug::resolve_process_path(d, error);
    if (path.empty() || !user_binary(path, error)) {
      std::cerr << "stapx: -d " << d << ": " << error << "\n";
      return false;
    }
    add(path);
  }
  if (!opts.ldd) return true;
  for (size_t i = 0, n = out.size(); i < n; ++i) {  // (the libraries' own libraries too)
    std::string error;
    if (const debug::UserBinary* bin = user_binary(out[i], error))
      for (const auto& [name, lib] : needed_libraries(*bin)) add(lib->path());
  }
  return true;
}


// "Xusr/Ysys/Zreal ms" since the last mark, like stap's -v.
class PassTimer {
 public:
  PassTimer() { mark(); }
  void mark() {
    getrusage(RUSAGE_SELF, &ru_);
    t_ = std::chrono::steady_clock::now();
  }
  std::string elapsed() const {
    rusage now{};
    getrusage(RUSAGE_SELF, &now);
    auto ms = [](const timeval& a, const timeval& b) {
      return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_usec - a.tv_usec) / 1000;
    };
    auto real = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t_);
    return fmt::format("{}usr/{}sys/{}real ms", ms(ru_.ru_utime, now.ru_utime),
                       ms(ru_.ru_stime, now.ru_stime), real.count());
  }

 private:
  rusage ru_{};
  std::chrono::steady_clock::time_point t_;
};

// stap's pass-2 warning for each command-line argument no $N or @N of
// the user's script names, unless the script reads them through the argv
// library (its argv and argc globals), as stap exempts it.
void warn_unused_args(const std::vector<bool>& used, const Program& prog, const Options& opts, DiagSink& diags) {
  if (opts.list_probes) return;
  for (const ast::Symbol* g : prog.globals)
    if (g->name == "argv" || g->name == "argc") return;
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i]) diags.report(DiagId::WarnUnusedArg, SourceLoc{}, i + 1);
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string self_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "." : p.parent_path().string();
}

// An installed stapx finds its runtime and guest files next to its prefix.
std::string data_dir(const char* env, const char* installed, const char* built) {
  if (const char* v = std::getenv(env); v && *v) return v;
  fs::path p = fs::path(self_dir()) / ".." / "share" / "stapx" / installed;
  std::error_code ec;
  if (fs::is_directory(p, ec)) return fs::canonical(p, ec).string();
  return built;
}

// Where the --vm guest's kernels are (fetch-kernel's layout): the build
// tree's for stapx run from it, the user's cache for an installed one.
std::string guest_kernel_dir() {
  if (const char* v = std::getenv("STAPX_KERNEL_DIR"); v && *v) return v;
  std::error_code ec;
  if (fs::is_directory(fs::path(self_dir()) / ".." / "share" / "stapx" / "vm", ec) && !support::cache_dir().empty())
    return support::cache_dir() + "/kernel";
  return STAPX_KERNEL_DIR;
}

std::string find_stapx_run() {
  std::string next = self_dir() + "/stapx-run";
  if (std::error_code ec; fs::exists(next, ec)) return next;
  return env_or("STAPX_RUN", STAPX_RUN_PATH);
}

uint64_t fnv(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// execv(2)'s argument vector over `args` (which must outlive it).
std::vector<char*> argv_of(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

int exec_argv(std::vector<std::string> args) {
  std::vector<char*> argv = argv_of(args);
  std::cout.flush();
  execv(argv[0], argv.data());
  std::cerr << "stapx: cannot run " << args[0] << ": " << std::strerror(errno) << "\n";
  return 1;
}

// Runs argv (its progress on our stderr; its stdout too, or with
// `drop_stdout` nowhere) and waits: its exit status, or -1 if it could
// not run.
int exec_wait(std::vector<std::string> args, bool drop_stdout = false) {
  std::vector<char*> argv = argv_of(args);
  std::cout.flush();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = drop_stdout ? open("/dev/null", O_WRONLY) : -1;
    dup2(null >= 0 ? null : 2, 1);  // (what it prints is progress, not the script's output)
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

struct PipelineCache {
  std::string release;  // what env and ksyms are for
  std::vector<std::string> debuginfo_dirs;
  bool prefer_btf = false;
  std::unique_ptr<ProbeEnv> env;
  std::unique_ptr<KernelSymbols> ksyms;
  bool ksyms_tried = false;
  std::unique_ptr<FtraceAddresses> ftrace;
  bool ftrace_tried = false;
};

void PipelineCacheDeleter::operator()(PipelineCache* c) const { delete c; }

std::unique_ptr<PipelineCache, PipelineCacheDeleter> make_pipeline_cache() {
  return std::unique_ptr<PipelineCache, PipelineCacheDeleter>(new PipelineCache);
}

namespace {

// Whether a script's text is only blanks and comments (#, //, /* */).
bool no_tokens(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s[i] == '#' || s.compare(i, 2, "//") == 0) {
      size_t nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl + 1;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) return false;  // (the lexer's error)
      i = end + 2;
    } else {
      return false;
    }
  }
  return true;
}

// stapx-run's options for what `opts` asks of pass 5 (with_output: -o
// too; --remote merges the output here instead).
std::vector<std::string> stapx_run_args(const Options& opts, bool with_output) {
  std::vector<std::string> run_args;
  if (with_output && !opts.output_file.empty()) run_args.insert(run_args.end(), {"-o", opts.output_file});
  if (opts.bulk) run_args.push_back("-b");
  if (opts.flight) run_args.push_back("-F");
  if (!opts.rotation.empty()) run_args.insert(run_args.end(), {"-S", opts.rotation});
  if (opts.timeout_s) run_args.insert(run_args.end(), {"-T", std::to_string(opts.timeout_s)});
  if (!opts.target_cmd.empty()) run_args.insert(run_args.end(), {"-c", opts.target_cmd});
  if (opts.target_pid) run_args.insert(run_args.end(), {"-x", std::to_string(opts.target_pid)});
  for (int i = 0; i < opts.verbose; ++i) run_args.push_back("-v");
  return run_args;
}

// Passes 1-5, or with `built` (--remote) passes 1-4, leaving there the
// module's path and the release it is for.
struct Built {
  std::string ko, release;
};
int run_passes(const Options& opts, PipelineCache* cache, Built* built);

}  // namespace

int run_pipeline(const Options& opts, PipelineCache* cache) {
  if (!opts.remotes.empty())
    return run_remote(opts, find_stapx_run(), stapx_run_args(opts, false),
                      [](const Options& o, std::string& ko, std::string& release) {
                        Built b;
                        int rc = run_passes(o, nullptr, &b);
                        ko = b.ko;
                        release = b.release;
                        return rc;
                      });
  return run_passes(opts, cache, nullptr);
}

namespace {

int run_passes(const Options& opts, PipelineCache* cache, Built* built) {
  if (opts.dump == Options::Dump::ProbeTypes) {
    dump_probe_types(std::cout, opts.privilege == Options::Privilege::Usr);
    return 0;
  }
  SourceManager sm;
  DiagSink diags(sm, std::cerr);
  diags.set_suppress_warnings(opts.suppress_warnings);
  diags.set_warnings_as_errors(opts.warnings_as_errors);
  diags.set_verbose(opts.verbose > 0);
  PassTimer timer;

  // The target kernel: -r, the --vm guest's, or the running one. Pass 1
  // needs its version and configuration for %( %) conditionals.
  std::string vm_kernel_dir = guest_kernel_dir();
  std::string kernel_spec = opts.kernel;
  if (opts.vm && kernel_spec.empty()) {
    // The default guest kernel (linux-headers-amd64's release), fetched
    // the first time.
    bool fetch = !fs::exists(vm_kernel_dir + "/release");
    if (fetch) std::cerr << "stapx: --vm: fetching the guest's kernel into " << vm_kernel_dir << " (once)\n";
    if (fetch && exec_wait({data_dir("STAPX_VM_DIR", "vm", STAPX_VM_DIR) + "/fetch-kernel", vm_kernel_dir}, true) != 0) {
      std::cerr << "stapx: --vm cannot fetch the guest kernel into " << vm_kernel_dir
                << "; hint: it needs linux-headers-amd64 installed and Debian's archive reachable\n";
      return 1;
    }
    std::ifstream rel(vm_kernel_dir + "/release");
    if (!(rel >> kernel_spec)) {
      std::cerr << "stapx: --vm needs the guest kernel in " << vm_kernel_dir
                << " (missing 'release'); hint: run 'make deps', or set STAPX_KERNEL_DIR\n";
      return 1;
    }
  }
  // --vm -r R: a kernel of the test matrix, fetched (image, headers) into
  // the guest's kernel directory the first time.
  if (opts.vm && !kernel_spec.empty() && kernel_spec.find('/') == std::string::npos &&
      !std::filesystem::exists(vm_kernel_dir + "/" + kernel_spec + "/boot/vmlinuz-" + kernel_spec)) {
    std::string fetch = data_dir("STAPX_VM_DIR", "vm", STAPX_VM_DIR) + "/fetch-kernel";
    if (exec_wait({fetch, vm_kernel_dir, kernel_spec}, true) != 0) {
      std::cerr << "stapx: cannot fetch kernel " << kernel_spec << " for --vm; hint: is linux-image-" << kernel_spec
                << " a Debian package? (apt-cache policy linux-image-" << kernel_spec << ")\n";
      return 1;
    }
  }
  auto kernel = resolve_kernel(kernel_spec, {vm_kernel_dir});
  if (!kernel) return 1;
  PreprocessFacts facts;
  facts.kernel_vr = kernel->release;
  facts.kernel_v = kernel->release.substr(0, kernel->release.find('-'));
  facts.config = kernel_config(*kernel);
  facts.args = opts.script_args;
  facts.guru = opts.guru;
  facts.privilege = privilege_name(opts.privilege);

  // Pass 1: parse.
  std::string text = opts.script_text;
  if (!opts.from_command_line) {
    std::ifstream in(opts.script_path, std::ios::binary);
    if (!in) {
      std::cerr << "stapx: cannot open script file '" << opts.script_path << "': " << std::strerror(errno)
                << "\n";
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  // The tapset search path: stapx's own library, $STAPX_TAPSETS, then -I.
  std::vector<std::string> search = {data_dir("STAPX_TAPSETS", "tapsets", STAPX_TAPSET_DIR)};
  search.insert(search.end(), opts.include_dirs.begin(), opts.include_dirs.end());
  std::vector<std::string> lib_dirs = library_dirs(search, facts);
  MacroTable macros;
  LibraryFiles lib = list_library(lib_dirs);  // (one listing, for the macros and the index)
  size_t library_files = load_library_macros(sm, lib, facts, macros, diags);
  if (opts.dump == Options::Dump::Functions || opts.dump == Options::Dump::ProbeAliases)
    return dump_library(std::cout,
                        opts.dump == Options::Dump::Functions ? LibraryDump::Functions : LibraryDump::ProbeAliases,
                        lib, facts, macros, sm);
  std::vector<bool> args_used(opts.script_args.size());
  uint32_t file = preprocess(sm, sm.add(opts.script_path, text), facts, macros, diags, false, &args_used);
  // A script of no tokens is refused at pass 1, as stap's: "is empty", or
  // "is empty after preprocessing" when its conditionals left none. (One
  // that needs no preprocessing is its own view, of its own tokens.)
  const SourceFile& view = sm.file(file);
  bool blank = no_tokens(text);
  if (!diags.errors() && (blank || (view.is_view && sm.has_tokens(file) && !view.tokens.empty() &&
                                    view.tokens.front().kind == TokKind::End))) {
    std::cerr << "Input file '" << view.name << "' is empty" << (blank ? "" : " after preprocessing")
              << ".\nPass 1: parse failed.\n";
    return 1;
  }
  ast::Arena arena;
  ast::Script* script = parse_file(sm, file, arena, diags, ParseOptions{opts.script_args, opts.guru});
  check_pass1(*script, diags);
  std::vector<ast::Script*> scripts = {script};
  std::optional<TapsetIndex> index;
  if (!diags.parse_errors()) {
    index.emplace(lib);
    library_files += link_tapsets(scripts, sm, arena, diags, LinkInputs{&*index, &facts, &macros, opts.guru});
  }
  if (diags.parse_errors()) {
    std::cerr << diags.parse_errors() << " parse error" << (diags.parse_errors() > 1 ? "s" : "") << ".\n";
    std::cerr << "Pass 1: parse failed.\n";
    return 1;
  }
  if (opts.verbose)
    std::cerr << "Pass 1: parsed user script and " << library_files << " library scripts in "
              << timer.elapsed() << ".\n";
  if (opts.last_pass == 1) {
    print_script(std::cout, *script);
    return 0;
  }

  // Pass 2: elaborate.
  timer.mark();
  // After the user's --debuginfo: what `make deps` unpacked for the guest
  // kernel, when the target is that kernel (its DWARF vmlinux, its BTF).
  std::vector<std::string> debuginfo_dirs = opts.debuginfo_dirs;
  debuginfo_dirs.push_back(vm_kernel_dir + "/" + kernel->release + "/debug");
  debuginfo_dirs.push_back(vm_kernel_dir + "/" + kernel->release);
  PipelineCache own;
  if (!cache || cache->release != kernel->release || cache->debuginfo_dirs != debuginfo_dirs ||
      cache->prefer_btf != opts.prefer_btf) {
    if (!cache) cache = &own;
    *cache = PipelineCache{kernel->release, debuginfo_dirs, opts.prefer_btf, nullptr, nullptr, false, nullptr, false};
    cache->env = std::make_unique<ProbeEnv>(kernel->release, debuginfo_dirs, opts.verbose, opts.prefer_btf);
  }
  ProbeEnv& env = *cache->env;
  if (cache == &own) env.keep_until_exit();
  // The target's function symbols, opened only if a probe point needs them:
  // the release's vmlinux (which also says what the kernel won't kprobe),
  // else its System.map, else /proc/kallsyms when the target is this kernel.
  std::unique_ptr<KernelSymbols>& ksyms = cache->ksyms;
  bool& ksyms_tried = cache->ksyms_tried;
  // -L lists the locals an alias's prologue sets, which nothing reads: kept.
  ElaborateOptions eopts{opts.keep_unused || opts.list_probes == 2, {}, opts.global_values};
  eopts.stapusr = opts.privilege == Options::Privilege::Usr;
  eopts.keep_empty_probes = opts.list_probes != 0;
  eopts.library = index ? &*index : nullptr;
  eopts.probes.env = &env;
  eopts.probes.guru = opts.guru;
  eopts.probes.skip_badvars = opts.skip_badvars;
  eopts.probes.prologue = opts.prologue == "always"  ? debug::Prologue::Always
                          : opts.prologue == "never" ? debug::Prologue::Never
                                                     : debug::Prologue::Auto;
  eopts.probes.target_command = opts.target_cmd;
  eopts.probes.target_pid = opts.target_pid;
  eopts.probes.kernel_symbols = [&]() -> const KernelSymbols* {
    if (ksyms_tried) return ksyms.get();
    ksyms_tried = true;
    std::string err;
    auto vmlinux = find_vmlinux(kernel->release, opts.debuginfo_dirs);
    if (!vmlinux) vmlinux = find_vmlinux(kernel->release, {vm_kernel_dir + "/" + kernel->release + "/debug"});
    // A table without functions (Debian's System.map is an 83-byte stub)
    // is no table: the next source is tried, and with none, plain names
    // are probed unchecked.
    auto usable = [&](std::unique_ptr<KernelSymbols> s) {
      if (s && s->functions().empty()) {
        err = s->source() + " lists no functions";
        s.reset();
      }
      return s;
    };
    if (vmlinux) ksyms = usable(vmlinux_symbols(*vmlinux, &err));
    for (const std::string& map : {vm_kernel_dir + "/" + kernel->release + "/boot/System.map-" + kernel->release,
                                   "/boot/System.map-" + kernel->release}) {
      if (std::error_code ec; !ksyms && std::filesystem::is_regular_file(map, ec)) ksyms = usable(kallsyms_symbols(map, &err));
    }
    struct utsname u;
    if (!ksyms && uname(&u) == 0 && kernel->release == u.release)
      ksyms = usable(kallsyms_symbols("/proc/kallsyms", &err));
    if (opts.verbose)
      std::cerr << "Kernel symbols: " << (ksyms ? ksyms->source() : "none for " + kernel->release)
                << (ksyms ? fmt::format(", {} functions", ksyms->functions().size()) : "")
                << (err.empty() ? "" : " (" + err + ")") << "\n";
    return ksyms.get();
  };
  // Where probes on kernel functions can be attached by address, as one
  // ftrace batch: from the vmlinux's cached index, else from the table
  // above when it has addresses (kallsyms read as root).
  eopts.probes.ftrace_addresses = [&, kernel_symbols = eopts.probes.kernel_symbols]() -> const FtraceAddresses* {
    if (cache->ftrace_tried) return cache->ftrace.get();
    cache->ftrace_tried = true;
    std::string err;
    auto vmlinux = find_vmlinux(kernel->release, opts.debuginfo_dirs);
    if (!vmlinux) vmlinux = find_vmlinux(kernel->release, {vm_kernel_dir + "/" + kernel->release + "/debug"});
    if (vmlinux)
      cache->ftrace = vmlinux_ftrace_addresses(*vmlinux, &err);
    else if (const KernelSymbols* syms = kernel_symbols())
      cache->ftrace = table_ftrace_addresses(*syms);
    if (cache->ftrace && !cache->ftrace->reference()) cache->ftrace.reset();
    return cache->ftrace.get();
  };
  Program prog = elaborate(scripts, eopts, arena, diags);
  warn_unused_args(args_used, prog, opts, diags);
  if (diags.errors()) {
    std::cerr << "Pass 2: analysis failed.\n";
    return 1;
  }
  if (opts.verbose)
    std::cerr << fmt::format("Pass 2: analyzed script: {} probe(s), {} function(s), {} global(s) in {}.\n",
                             prog.probes.size(), prog.functions.size(), prog.globals.size(),
                             timer.elapsed());
  if (opts.list_probes) {
    // -l/-L: the points the pattern resolved to, sorted, each once; a
    // point an alias made is listed by the alias's name (what pn() says).
    // -L adds the alias's locals (name:type, from its prologue) and the
    // context variables readable there (those with a location), as stap
    // lists them: $name:type.
    std::set<std::string> points;
    for (const ProbeSpec& p : prog.probes) {
      bool alias = p.decl && !p.decl->pn.empty();
      std::string line = p.pn_text(p.pp);
      // A label's point is listed with its .label("L"), as stap lists it
      // (its pp() has the label's line alone).
      if (!alias && p.site && !p.site->label.empty()) line += fmt::format(".label(\"{}\")", p.site->label);
      if (opts.list_probes == 2 && alias) {
        for (const ast::Symbol* v : p.decl->locals)
          if (v->type != ast::Type::Unknown) line += fmt::format(" {}:{}", v->name, ast::type_name(v->type));
      }
      if (opts.list_probes == 2 && !p.site)
        for (const std::string& v : p.family->listed_vars(p)) line += " " + v;
      if (opts.list_probes == 2 && p.site) {
        if (p.is_return && p.site->return_type && p.site->return_type->strip()->kind != debug::DType::Kind::Void)
          line += " $return:" + p.site->return_type->to_string();
        for (const auto* vars : {&p.site->params, &p.site->locals}) {
          if (p.is_return && vars == &p.site->locals) break;
          for (const debug::Variable& v : *vars) {
            using K = debug::Location::Kind;
            if (v.loc.kind == K::Unavailable || v.loc.kind == K::Unsupported) continue;
            line += " $" + v.name + ":" + v.type->to_string();
          }
        }
      }
      points.insert(line);
    }
    for (const std::string& p : points) std::cout << p << "\n";
    return 0;
  }
  if (opts.coverage) {
    std::string db = coverage_database(kernel->release), error;
    if (db.empty() || !record_coverage(prog, sm, db, error))
      std::cerr << "WARNING: -q: " << (db.empty() ? "no cache directory (HOME is not set)" : error) << "\n";
  }
  if (opts.last_pass == 2) {
    print_program(std::cout, prog);
    return 0;
  }

  diags.report_suppressed();  // before pass 5's exec

  // Pass 3: translate.
  timer.mark();
  CodegenOptions cg;
  std::string key = text;
  for (auto& [n, v] : opts.defines) key += "\n-D" + n + "=" + v;
  for (auto& [n, v] : opts.global_values) key += "\n-G" + n + "=" + v;
  cg.module_name = opts.module_name.empty() ? fmt::format("stapx_{:012x}", fnv(key) & 0xffffffffffffULL)
                                            : opts.module_name;
  cg.defines = opts.defines;
  if (!user_symbol_files(opts, prog, cg.user_symbol_files)) return 1;
  std::string c_source = generate_c(prog, sm, cg);
  if (opts.verbose) std::cerr << "Pass 3: translated to C into \"" << cg.module_name << ".c\" in " << timer.elapsed() << ".\n";
  if (opts.last_pass == 3) {
    std::cout << c_source;
    return 0;
  }

  // Pass 4: build.
  timer.mark();
  if (!require_kbuild(*kernel)) return 1;
  BuildRequest req{cg.module_name, c_source, *kernel, data_dir("STAPX_RUNTIME_DIR", "runtime", STAPX_RUNTIME_DIR),
                   opts.keep_tmp, opts.verbose};
  auto ko = build_module(req);
  if (!ko) {
    std::cerr << "Pass 4: compilation failed.\n";
    return 1;
  }
  if (opts.sign_module) {
    std::optional<SigningKey> key = signing_key(opts.signing_dir, opts.verbose);
    if (key) ko = sign_module(*ko, *key, *kernel, opts.verbose);
    if (!key || !ko) return 1;
  }
  if (opts.verbose)
    std::cerr << "Pass 4: compiled C into \"" << cg.module_name << ".ko\" in " << timer.elapsed() << ".\n";
  if (built) {
    *built = Built{*ko, kernel->release};
    return 0;
  }
  if (opts.last_pass == 4) {
    if (!opts.module_name.empty()) {
      std::error_code ec;
      fs::copy_file(*ko, opts.module_name + ".ko", fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::cerr << "stapx: cannot copy the module here: " << ec.message() << "\n";
        return 1;
      }
      std::cout << opts.module_name << ".ko\n";
    } else {
      std::cout << *ko << "\n";
    }
    return 0;
  }

  // Pass 5: run.
  std::vector<std::string> run_args = stapx_run_args(opts, true);
  if (opts.vm) {
    std::vector<std::string> argv = {data_dir("STAPX_VM_DIR", "vm", STAPX_VM_DIR) + "/vm-run", "--kernel-dir",
                                     vm_kernel_dir, "--release", kernel->release, "--stapx-run", find_stapx_run(),
                                     *ko, "--"};
    argv.insert(argv.end(), run_args.begin(), run_args.end());
    return exec_argv(argv);
  }
  std::vector<std::string> argv = {find_stapx_run()};
  argv.insert(argv.end(), run_args.begin(), run_args.end());
  argv.push_back(*ko);
  return exec_argv(argv);
}

}  // namespace

}  // namespace stapx
