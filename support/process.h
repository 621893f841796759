// Child processes without a shell: started from an argument vector, their
// output collected through pipes. For the tools stapx drives (ssh for
// --remote) where a shell command line would need quoting twice.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stapx::support {

// `s` as one word for a POSIX shell: 'it'\''s'.
std::string shell_quote(std::string_view s);

// A started child and our ends of its pipes (-1 where there is none).
// Every descriptor is close-on-exec, so later children do not inherit it.
struct Child {
  pid_t pid = -1;
  int in = -1;   // its stdin, when spawn() was asked for a pipe
  int out = -1;  // its stdout
  int err = -1;  // its stderr
};

// Starts argv[0] (looked up in PATH) with stdin from `stdin_path` (a file;
// empty: /dev/null) or, with `stdin_pipe`, from a pipe we keep open.
// The child leads a process group of its own: a terminal's Ctrl-C reaches
// only us, and we decide what the child gets. nullopt after setting `error`.
std::optional<Child> spawn(const std::vector<std::string>& argv, const std::string& stdin_path, bool stdin_pipe,
                           std::string& error);

// Waits for `pid`: its exit status, or 128+N when signal N ended it.
int wait_status(pid_t pid);

// Reads each (descriptor, sink) pair to its end, all at once, appending
// what comes to the sink, and closes the descriptors.
void read_all(const std::vector<std::pair<int, std::string*>>& sources);

struct Finished {
  int status = -1;  // as wait_status(); -1 if it could not start
  std::string out, err;
};

// Runs each command (argv, stdin file) to its end, all at once, and
// returns what each printed, in order.
struct Command {
  std::vector<std::string> argv;
  std::string stdin_path;
};
std::vector<Finished> run_all(const std::vector<Command>& commands);

}  // namespace stapx::support
