// Command-line options: parsed once into an immutable Options that every
// pass reads.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stapx {

struct Options {
  std::string script_path;  // a file, or "<input>" for -e
  std::string script_text;  // -e text
  bool from_command_line = false;
  std::vector<std::string> script_args;
  int last_pass = 5;
  int verbose = 0;
  bool keep_tmp = false;
  std::string module_name;  // -m
  std::string kernel;       // -r RELEASE or KBUILD_DIR
  std::string output_file;  // -o
  bool bulk = false;        // -b: per-CPU output files (stapx-run -b)
  std::string rotation;     // -S SIZE[,N], checked, for stapx-run
  long timeout_s = 0;       // -T SECONDS, for stapx-run
  bool flight = false;      // -F: flight recorder (stapx-run -F)
  bool skip_badvars = false;  // --skip-badvars: bad $vars read as 0
  std::string prologue = "auto";  // -P (always), --prologue-searching=WHEN
  bool sign_module = false;       // --sign-module[=KEYDIR]
  std::string signing_dir;        // its KEYDIR; empty: the cache's
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<std::string> include_dirs;
  std::string target_cmd;   // -c
  long target_pid = 0;      // -x
  std::vector<std::string> symbol_files;  // -d PATH (repeatable)
  bool ldd = false;                       // --ldd
  bool vm = false;
  std::vector<std::string> remotes;  // --remote URL (repeatable)
  std::string remote_prefix;         // --remote-prefix: "index" (stap's "N: ") or "host" ("[HOST] ")
  std::vector<std::string> debuginfo_dirs;  // --debuginfo DIR (repeatable)
  bool prefer_btf = false;                  // --btf
  bool guru = false;               // -g
  // --privilege=LEVEL / --unprivileged: what the script may use (stap's
  // groups): stapusr only begin/end/error/never/timer probes and tapset
  // functions marked unprivileged; stapsys every probe; stapdev anything.
  enum class Privilege { Usr, Sys, Dev } privilege = Privilege::Dev;
  bool keep_unused = false;        // -u
  bool coverage = false;           // -q: count what pass 2 kept (tapset_coverage.h)
  bool suppress_warnings = false;  // -w
  bool warnings_as_errors = false; // -W
  std::vector<std::pair<std::string, std::string>> global_values;  // -G NAME=VALUE
  enum class Dump { None, Functions, ProbeAliases, ProbeTypes } dump = Dump::None;  // --dump-*
  int list_probes = 0;  // -l PATTERN: 1; -L PATTERN: 2 (the script is "probe PATTERN {}")
};

// "stapusr", "stapsys" or "stapdev".
const char* privilege_name(Options::Privilege p);

// Returns the options, or nullopt after printing help, the version or an
// error; `exit_code` then says how to exit.
std::optional<Options> parse_options(int argc, char** argv, int& exit_code);

}  // namespace stapx
