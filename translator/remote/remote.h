// Pass 5 on other machines: `stapx --remote ssh://[USER@]HOST[:PORT]`
// (repeatable). Each host is asked its kernel release over ssh, one
// module is built per distinct release, and each host gets its module and
// our static stapx-run in a private directory under /tmp, runs it there
// and removes it; the hosts' output comes back merged, line by line.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "translator/options.h"

namespace stapx {

// One --remote target, parsed.
struct RemoteUrl {
  std::string label;  // what messages and --remote-prefix=host name it by
  std::string dest;   // ssh's destination: [USER@]HOST
  std::string port;   // empty: ssh's default
};

// Parses `url`: ssh://[USER@]HOST[:PORT][/] or [USER@]HOST, HOST an
// IPv6 address in brackets with a port. False after setting `error`.
bool parse_remote_url(const std::string& url, RemoteUrl& out, std::string& error);

// Passes 1-4 for `opts` (whose `kernel` names one host's release): sets
// the module's path and the release it was built for, or returns the
// exit status after saying why not.
using BuildModule = std::function<int(const Options& opts, std::string& ko, std::string& release)>;

// Runs the script on every --remote host: `run_args` are stapx-run's
// options (without -o: the merged output goes to opts.output_file or our
// stdout). Returns 0 when every host ran it to the end.
int run_remote(const Options& opts, const std::string& stapx_run, const std::vector<std::string>& run_args,
               const BuildModule& build);

}  // namespace stapx
