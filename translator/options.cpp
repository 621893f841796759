// Option parsing, with stap's letters where stapx has the same option.
#include "translator/options.h"

#include <getopt.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "translator/remote/remote.h"
#include "translator/version.h"

namespace stapx {

namespace {

const char kUsage[] =
    "Usage: stapx [options] FILE [ARGS...]       run a script file\n"
    "   or: stapx [options] -e SCRIPT [ARGS...]  run a script given on the command line\n"
    "\n"
    "Options:\n"
    "  -e SCRIPT      run SCRIPT, given as text\n"
    "  -p NUM         stop after pass NUM: 1 parse, 2 elaborate, 3 translate to C,\n"
    "                 4 build the module, 5 run it (default)\n"
    "  -v             more verbose; repeat for more (pass timings from -v)\n"
    "  -k             keep the temporary build directory and print its path\n"
    "  -m NAME        name the module NAME (with -p4: leave NAME.ko here)\n"
    "  -r RELEASE|DIR build for kernel RELEASE, or for the kbuild tree DIR\n"
    "  -o FILE        send the script's output to FILE (strftime(3) conversions expanded)\n"
    "  -b             bulk mode: each CPU's output to its own file, FILE_cpuN\n"
    "                 (stpd_cpuN without -o); stapx-merge puts them back together\n"
    "  -s NUM         NUM megabytes of output buffer per CPU (1-4095; default 2)\n"
    "  -S SIZE[,N]    with -o, switch to a new file (FILE.0, FILE.1, ...) before one\n"
    "                 passes SIZE megabytes, and keep only the last N\n"
    "  -T SECONDS     end the session after SECONDS\n"
    "  -F             flight recorder: without -o, start the probes and detach,\n"
    "                 leaving them running (stapx-run -A NAME attaches); with -o,\n"
    "                 run in the background and print the PID\n"
    "  -t             at the end, report each probe point's hits and the cycles its\n"
    "                 handler took (min/avg/max)\n"
    "  -D NAME=VALUE  define a runtime tunable (MAXACTION, MAXSTRINGLEN, ...)\n"
    "  -I DIR         add DIR to the tapset search path\n"
    "  -c CMD         start the probes, run CMD, stop when CMD exits\n"
    "  -x PID         target() returns PID\n"
    "  -d PATH        put PATH's symbols and unwind tables into the module, for\n"
    "                 user-space symbols and stacks (usymname(), ubacktrace(), ...)\n"
    "  --ldd          the same for the shared libraries of the programs that\n"
    "                 process(...) probes and -d name\n"
    "  -g             guru mode: allow embedded C in the script\n"
    "  --privilege=stapusr|stapsys|stapdev, --unprivileged (= stapusr)\n"
    "                 refuse what that privilege level may not use\n"
    "  -u             keep unused functions and globals\n"
    "  -q             count the probes, functions and globals the script uses in\n"
    "                 ~/.cache/stapx/coverage/RELEASE.db (SQLite, stap's table)\n"
    "  -w             suppress warnings\n"
    "  -W             turn warnings into errors\n"
    "  -G NAME=VALUE  start global NAME at VALUE (a number, or a string for a string global)\n"
    "  -l PATTERN     list the probe points PATTERN matches, then exit\n"
    "  -L PATTERN     like -l, with each point's context variables\n"
    "  --debuginfo DIR  look for the kernel's and modules' debug information in DIR\n"
    "  --btf          read kernel types from BTF even when DWARF is installed\n"
    "  -P, --prologue-searching[=never|always|auto]\n"
    "                 put function probes past the prologue (always), at the entry\n"
    "                 (never), or past it in code built without optimization (auto:\n"
    "                 the default; -P is always)\n"
    "  --sign-module[=KEYDIR]\n"
    "                 sign the module for kernels that load only signed ones, with a\n"
    "                 key made once in KEYDIR (default ~/.cache/stapx/signing)\n"
    "  --skip-badvars  a $var that does not resolve, or cannot be read when the probe\n"
    "                 runs, is 0 (with a warning at pass 2) instead of an error\n"
    "  --suppress-handler-errors\n"
    "                 count run-time errors in handlers quietly instead of\n"
    "                 reporting them and exiting (no MAXERRORS/MAXSKIPPED exit)\n"
    "  --suppress-time-limits\n"
    "                 (with -g) no overload stop (STP_OVERLOAD_*) and no MAXACTION\n"
    "  --dump-functions, --dump-probe-aliases, --dump-probe-types\n"
    "                 list the library's functions, its probe aliases, or the probe\n"
    "                 point types stapx knows, then exit\n"
    "  --vm           run the module in a throwaway QEMU guest of the packaged kernel\n"
    "  --remote URL   run the module on the host URL, ssh://[USER@]HOST[:PORT] or\n"
    "                 [USER@]HOST (repeatable: one module per kernel release, the\n"
    "                 hosts' output merged); ssh is $STAPX_SSH (default ssh)\n"
    "  --remote-prefix[=index|host]\n"
    "                 start each line of remote output with the host's index and\n"
    "                 ': ' (index, the default) or with '[HOST] ' (host)\n"
    "  -h, --help     show this help\n"
    "  -V, --version  show the version\n";

}  // namespace

const char* privilege_name(Options::Privilege p) {
  return p == Options::Privilege::Usr ? "stapusr" : p == Options::Privilege::Sys ? "stapsys" : "stapdev";
}

namespace {

int fail(const std::string& msg) {
  std::cerr << "stapx: " << msg << "\nTry 'stapx --help' for more information.\n";
  return 1;
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv, int& exit_code) {
  Options o;
  bool suppress_time_limits = false;
  static const option long_opts[] = {{"help", no_argument, nullptr, 'h'},
                                     {"version", no_argument, nullptr, 'V'},
                                     {"vm", no_argument, nullptr, 1000},
                                     {"debuginfo", required_argument, nullptr, 1001},
                                     {"btf", no_argument, nullptr, 1002},
                                     {"suppress-handler-errors", no_argument, nullptr, 1003},
                                     {"dump-functions", no_argument, nullptr, 1004},
                                     {"dump-probe-aliases", no_argument, nullptr, 1005},
                                     {"dump-probe-types", no_argument, nullptr, 1006},
                                     {"suppress-time-limits", no_argument, nullptr, 1007},
                                     {"privilege", optional_argument, nullptr, 1008},
                                     {"unprivileged", no_argument, nullptr, 1009},
                                     {"ldd", no_argument, nullptr, 1010},
                                     {"skip-badvars", no_argument, nullptr, 1011},
                                     {"prologue-searching", optional_argument, nullptr, 1012},
                                     {"sign-module", optional_argument, nullptr, 1013},
                                     {"remote", required_argument, nullptr, 1014},
                                     {"remote-prefix", optional_argument, nullptr, 1015},
                                     {nullptr, 0, nullptr, 0}};
  opterr = 0;
  optind = 0;  // (0: glibc's getopt starts afresh, its permutation state too)
  int ch;
  // Options may come after the script and its arguments too, as stap's
  // (GNU getopt's) do: `stap script.stp -c CMD` is common. The first
  // non-option is the script, the rest its arguments; after `--` nothing
  // is an option.
  while ((ch = getopt_long(argc, argv, "e:p:vkm:r:o:bs:S:T:tFPD:I:c:x:d:guqwWG:l:L:hV", long_opts, nullptr)) != -1) {
    switch (ch) {
      case 'e':
        if (o.from_command_line) {
          exit_code = fail("Only one script can be given on the command line.");  // stap's words
          return std::nullopt;
        }
        o.script_text = optarg;
        o.from_command_line = true;
        o.script_path = "<input>";
        break;
      case 'p': {
        char* end = nullptr;
        long p = std::strtol(optarg, &end, 10);
        if (*end || p < 1 || p > 5) {
          exit_code = fail(std::string("invalid pass number '") + optarg + "' (expected 1 to 5)");
          return std::nullopt;
        }
        o.last_pass = static_cast<int>(p);
        break;
      }
      case 'v': ++o.verbose; break;
      case 'k': o.keep_tmp = true; break;
      case 'm':
        if (!*optarg) {
          exit_code = fail("Module name cannot be empty.");  // stap's words
          return std::nullopt;
        }
        o.module_name = optarg;
        break;
      case 'r': o.kernel = optarg; break;
      case 'o': o.output_file = optarg; break;
      case 'b': o.bulk = true; break;
      case 'F':
        // The module's buffer keeps the latest output while detached.
        o.flight = true;
        o.defines.emplace_back("STPX_FLIGHT", "1");
        break;
      // The runtime counts hits and cycles per probe point (session.h).
      case 't': o.defines.emplace_back("STPX_TIMING", "1"); break;
      case 's': {
        char* end = nullptr;
        errno = 0;
        long mb = std::strtol(optarg, &end, 10);
        if (errno || *end || mb < 1 || mb > 4095) {
          exit_code = fail("Invalid buffer size (should be 1-4095).");  // stap's words
          return std::nullopt;
        }
        // The relay buffer: 64 KiB sub-buffers (runtime-c/transport/transport.c).
        o.defines.emplace_back("STPX_RELAY_N_SUBBUFS", std::to_string(mb * 16));
        break;
      }
      case 'S': {
        std::string v = optarg;
        size_t comma = v.find(',');
        auto number = [](const std::string& t) {
          return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos;
        };
        if (!number(v.substr(0, comma)) || (comma != std::string::npos && !number(v.substr(comma + 1)))) {
          exit_code = fail("Safety pattern mismatch for -S parameter ('" + v +  // stap's words
                           "' vs. '^[0-9]+(,[0-9]+)?$')");
          return std::nullopt;
        }
        if (std::stol(v.substr(0, comma)) == 0 || (comma != std::string::npos && std::stol(v.substr(comma + 1)) == 0)) {
          exit_code = fail("-S " + v + ": the size (megabytes) and the number of files must be 1 or more");
          return std::nullopt;
        }
        o.rotation = v;
        break;
      }
      case 'T': {
        char* end = nullptr;
        errno = 0;
        long t = std::strtol(optarg, &end, 10);
        if (errno || *end || t < 1 || t > 2147483647L) {
          exit_code = fail("Invalid timeout interval.");  // stap's words
          return std::nullopt;
        }
        o.timeout_s = t;
        break;
      }
      case 'D': {
        std::string d = optarg;
        size_t eq = d.find('=');
        std::string name = d.substr(0, eq);
        if (name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
          exit_code = fail("invalid -D definition '" + d + "' (expected NAME or NAME=VALUE)");
          return std::nullopt;
        }
        o.defines.emplace_back(name, eq == std::string::npos ? "1" : d.substr(eq + 1));
        break;
      }
      case 'I': o.include_dirs.push_back(optarg); break;
      case 'c': o.target_cmd = optarg; break;
      case 'x': {
        char* end = nullptr;
        errno = 0;
        long pid = std::strtol(optarg, &end, 10);
        if (errno || *end || pid <= 0 || pid > 4194304) {
          exit_code = fail(std::string("invalid -x PID '") + optarg + "'");
          return std::nullopt;
        }
        o.target_pid = pid;
        break;
      }
      case 'g': o.guru = true; break;
      case 'u': o.keep_unused = true; break;
      case 'q': o.coverage = true; break;
      case 'w': o.suppress_warnings = true; break;
      case 'W': o.warnings_as_errors = true; break;
      case 'G': {
        // stap's safety pattern: ^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$
        std::string g = optarg;
        size_t eq = g.find('=');
        auto all_of = [](const std::string& s, const char* set) { return s.find_first_not_of(set) == std::string::npos; };
        bool ok = eq != std::string::npos && eq > 0 && eq + 1 < g.size() &&
                  all_of(g.substr(0, 1), "abcdefghijklmnopqrstuvwxyz_") &&
                  all_of(g.substr(0, eq), "abcdefghijklmnopqrstuvwxyz0123456789_") &&
                  all_of(g.substr(eq + 1), "abcdefghijklmnopqrstuvwxyz0123456789_.-");
        if (!ok) {
          exit_code = fail("Safety pattern mismatch for -G parameter ('" + g +
                           "' vs. '^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$')");
          return std::nullopt;
        }
        o.global_values.emplace_back(g.substr(0, eq), g.substr(eq + 1));
        break;
      }
      case 'l':
      case 'L':
        o.list_probes = ch == 'l' ? 1 : 2;
        o.script_text = std::string("probe ") + optarg + " {}";
        o.from_command_line = true;
        o.script_path = "<input>";
        o.last_pass = 2;
        break;
      case 1000: o.vm = true; break;
      case 1001: o.debuginfo_dirs.push_back(optarg); break;
      case 1002: o.prefer_btf = true; break;
      // Handled in the runtime: errors are counted, not reported, and
      // neither MAXERRORS nor MAXSKIPPED ends the session.
      case 1003: o.defines.emplace_back("STPX_SUPPRESS_HANDLER_ERRORS", "1"); break;
      case 1004: o.dump = Options::Dump::Functions; break;
      case 1005: o.dump = Options::Dump::ProbeAliases; break;
      case 1006: o.dump = Options::Dump::ProbeTypes; break;
      case 1007: suppress_time_limits = true; break;
      case 1008: {
        std::string level = optarg ? optarg : "stapusr";
        if (level == "stapusr") o.privilege = Options::Privilege::Usr;
        else if (level == "stapsys") o.privilege = Options::Privilege::Sys;
        else if (level == "stapdev") o.privilege = Options::Privilege::Dev;
        else {
          exit_code = fail("Invalid argument '" + level + "' for --privilege.");
          return std::nullopt;
        }
        break;
      }
      case 1009: o.privilege = Options::Privilege::Usr; break;
      case 'd': o.symbol_files.push_back(optarg); break;
      case 1010: o.ldd = true; break;
      case 1013:
        o.sign_module = true;
        o.signing_dir = optarg ? optarg : "";
        break;
      case 1014: {
        RemoteUrl url;
        std::string error;
        if (!parse_remote_url(optarg, url, error)) {
          exit_code = fail(error);
          return std::nullopt;
        }
        o.remotes.push_back(optarg);
        break;
      }
      case 1015:
        o.remote_prefix = optarg ? optarg : "index";
        if (o.remote_prefix != "index" && o.remote_prefix != "host") {
          exit_code = fail("Invalid argument '" + o.remote_prefix + "' for --remote-prefix (index or host).");
          return std::nullopt;
        }
        break;
      case 'P': o.prologue = "always"; break;
      case 1012: {
        std::string when = optarg ? optarg : "always";
        if (when != "never" && when != "always" && when != "auto") {
          exit_code = fail("Invalid argument '" + when + "' for --prologue-searching.");
          return std::nullopt;
        }
        o.prologue = when;
        break;
      }
      // Pass 2 resolves what it can; the runtime reads faults as 0.
      case 1011:
        o.skip_badvars = true;
        o.defines.emplace_back("STPX_SKIP_BADVARS", "1");
        break;
      case 'h':
        std::cout << kUsage;
        exit_code = 0;
        return std::nullopt;
      case 'V':
        std::cout << "stapx " << kVersion << "\n";
        exit_code = 0;
        return std::nullopt;
      case ':':
        exit_code = fail(std::string("option '-") + static_cast<char>(optopt) + "' needs an argument");
        return std::nullopt;
      default:
        if (optopt)
          exit_code = fail(std::string("invalid option -- '") + static_cast<char>(optopt) + "'");
        else
          exit_code = fail(std::string("unrecognized option '") + argv[optind - 1] + "'");
        return std::nullopt;
    }
  }
  if (o.guru && o.privilege != Options::Privilege::Dev) {
    exit_code = fail(std::string("You can't specify -g and --privilege=") + privilege_name(o.privilege) + " together.");
    return std::nullopt;
  }
  if (!o.rotation.empty() && o.output_file.empty()) {
    exit_code = fail("-S needs -o FILE: the output files are FILE.0, FILE.1, ...");
    return std::nullopt;
  }
  if (o.flight && !o.target_cmd.empty()) {
    exit_code = fail("-F and -c cannot be used together: the command would outlive the session");
    return std::nullopt;
  }
  if ((o.bulk || !o.rotation.empty()) && o.vm) {
    exit_code = fail(std::string(o.bulk ? "-b" : "-S") +
                     " cannot be used with --vm: the output files would stay in the guest");
    return std::nullopt;
  }
  if (o.flight && o.vm) {
    exit_code = fail("-F cannot be used with --vm: the guest ends with stapx");
    return std::nullopt;
  }
  if (!o.remotes.empty()) {
    const char* other = o.vm ? "--vm" : o.bulk ? "-b" : !o.rotation.empty() ? "-S" : o.flight ? "-F" : nullptr;
    if (other) {
      exit_code = fail(std::string(other) + " cannot be used with --remote");
      return std::nullopt;
    }
    if (o.last_pass < 5 || o.list_probes) {
      exit_code = fail(std::string(o.list_probes ? "-l/-L" : "-p") +
                       " cannot be used with --remote, which builds for each host's kernel and runs there; "
                       "hint: -r RELEASE builds for one kernel here");
      return std::nullopt;
    }
  }
  if (!o.target_cmd.empty() && o.target_pid) {
    exit_code = fail("you can't specify -c and -x options together");
    return std::nullopt;
  }
  int i = optind;
  if (o.dump != Options::Dump::None) {
    o.from_command_line = true;  // no script: the library is the input
    o.script_path = "<input>";
  }
  if (!o.from_command_line) {
    if (i >= argc) {
      exit_code = fail("no script given (a FILE or -e SCRIPT)");
      return std::nullopt;
    }
    o.script_path = argv[i++];
    if (o.script_path == "-") {  // the script on standard input, named as -e's is
      std::stringstream in;
      in << std::cin.rdbuf();
      o.script_text = in.str();
      o.script_path = "<input>";
      o.from_command_line = true;
    }
  }
  for (; i < argc; ++i) o.script_args.push_back(argv[i]);
  if (suppress_time_limits) {
    if (!o.guru) {
      exit_code = fail("--suppress-time-limits needs guru mode (-g)");
      return std::nullopt;
    }
    // No overload stop, and as good as no MAXACTION.
    o.defines.emplace_back("STP_NO_OVERLOAD", "1");
    o.defines.emplace_back("MAXACTION", "1000000000000000000");
    o.defines.emplace_back("MAXACTION_INTERRUPTIBLE", "1000000000000000000");
  }
  if (!o.module_name.empty()) {
    bool ok = o.module_name.size() <= 55 &&
              o.module_name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                  std::string::npos;
    if (!ok) {
      exit_code = fail("invalid module name '" + o.module_name +
                       "' (letters, digits and '_' only, at most 55 characters)");
      return std::nullopt;
    }
  }
  return o;
}

}  // namespace stapx
