// --remote (remote.h). Four steps, each on every host at once:
//   1. ask:    `uname -r; uname -m` over ssh; a host that does not answer
//              is reported and left out;
//   2. build:  passes 1-4 once per distinct release, each in a child
//              process of its own (they run in parallel);
//   3. copy:   stapx-run, then the module, into a new private directory;
//   4. run:    stapx-run there, its stdout and stderr streamed back.
// Ctrl-C (or SIGTERM, SIGHUP) closes the ssh sessions' stdin, which on
// each host makes a watcher send stapx-run SIGINT: the end probes run and
// their output still comes back. A second one ends the ssh clients.
// Every host's failure is reported by its URL; the others go on.
#include "translator/remote/remote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "support/process.h"

namespace stapx {

namespace fs = std::filesystem;

bool parse_remote_url(const std::string& url, RemoteUrl& out, std::string& error) {
  std::string rest = url;
  bool ssh_scheme = rest.rfind("ssh://", 0) == 0;
  if (ssh_scheme) {
    rest = rest.substr(6);
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
  } else if (size_t colon = rest.find(':'); colon != std::string::npos && rest.find('[') == std::string::npos) {
    error = "--remote " + url + ": stapx reaches hosts through ssh: give ssh://[USER@]HOST[:PORT] or [USER@]HOST";
    return false;
  }
  size_t at = rest.rfind('@');
  std::string user = at == std::string::npos ? "" : rest.substr(0, at + 1);
  std::string host = at == std::string::npos ? rest : rest.substr(at + 1);
  std::string port;
  if (!host.empty() && host[0] == '[') {  // [IPv6]:PORT
    size_t close = host.find(']');
    if (close == std::string::npos || (close + 1 < host.size() && host[close + 1] != ':')) {
      error = "--remote " + url + ": an IPv6 address goes in brackets: ssh://[ADDRESS]:PORT";
      return false;
    }
    if (close + 1 < host.size()) port = host.substr(close + 2);
    host = host.substr(1, close - 1);
  } else if (size_t colon = host.rfind(':'); colon != std::string::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty() || host[0] == '-' || host.find_first_of(" \t/@") != std::string::npos) {
    error = "--remote " + url + ": no host name (ssh://[USER@]HOST[:PORT])";
    return false;
  }
  if (!port.empty()) {
    bool digits = port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stol(port) < 1 || std::stol(port) > 65535) {
      error = "--remote " + url + ": invalid port '" + port + "'";
      return false;
    }
  }
  out.dest = user + host;
  out.port = port;
  out.label = ssh_scheme ? url.substr(6, url.size() - 6 - (url.back() == '/')) : url;
  return true;
}

namespace {

struct Host {
  RemoteUrl url;
  size_t index = 0;
  std::string release, arch;
  std::string ko;       // the module for its release
  std::string dir;      // its work directory there
  std::string failure;  // why it stopped; empty while it goes on
  support::Child child;
  std::string out_part, err_part;  // the unfinished last line of each
};

// ssh running `command` on `h`: $STAPX_SSH (default "ssh", split at
// blanks, e.g. "ssh -F CONFIG") with options that keep a fleet run from
// stopping at a password or host-key prompt no one sees.
std::vector<std::string> ssh_argv(const Host& h, const std::string& command) {
  std::vector<std::string> argv;
  const char* env = std::getenv("STAPX_SSH");
  std::istringstream words(env && *env ? env : "ssh");
  for (std::string w; words >> w;) argv.push_back(w);
  // (ServerAlive: a connection that dies without closing ends the
  // session in about a minute, and with it the host's script.)
  argv.insert(argv.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "-o", "ServerAliveInterval=15", "-o",
                           "ServerAliveCountMax=4"});
  if (!h.url.port.empty()) argv.insert(argv.end(), {"-p", h.url.port});
  argv.insert(argv.end(), {"--", h.url.dest, command});
  return argv;
}

// The last line of what ssh or the remote shell said: the reason.
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "no message";
  size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, end - start + 1);
}

void report(const Host& h) { std::cerr << "stapx: remote " << h.url.label << ": " << h.failure << "\n"; }

// 1. Each host's kernel release and machine.
void ask_hosts(std::vector<Host>& hosts) {
  std::vector<support::Command> cmds;
  for (const Host& h : hosts) cmds.push_back({ssh_argv(h, "uname -r && uname -m"), ""});
  std::vector<support::Finished> answers = support::run_all(cmds);
  struct utsname self {};
  uname(&self);
  for (size_t i = 0; i < hosts.size(); ++i) {
    Host& h = hosts[i];
    std::istringstream lines(answers[i].out);
    if (answers[i].status != 0 || !(lines >> h.release >> h.arch)) {
      h.failure = "cannot connect: " + last_line(answers[i].err);
      report(h);
    } else if (h.arch != self.machine) {
      h.failure = "its machine is " + h.arch + "; stapx builds " + self.machine + " modules only";
      report(h);
    }
  }
}

struct Build {
  std::string kernel;  // what -r gets
  std::string ko, release;
  std::string err;     // what it printed
  int status = -1;
};

// 2. Passes 1-4 for each build at once, each in a child process with its
// stderr and its result in pipes.
void run_builds(const Options& opts, std::vector<Build>& builds, const BuildModule& build) {
  std::vector<pid_t> pids;
  std::vector<std::string> results(builds.size());
  std::vector<std::pair<int, std::string*>> sources;
  for (size_t i = 0; i < builds.size(); ++i) {
    int res[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(res, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
      builds[i].err = std::string("stapx: pipe: ") + std::strerror(errno) + "\n";
      for (int fd : {res[0], res[1], err[0], err[1]})
        if (fd >= 0) close(fd);
      pids.push_back(-1);
      continue;
    }
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = fork();
    if (pid == 0) {
      dup2(err[1], 2);
      Options o = opts;
      o.kernel = builds[i].kernel;
      std::string ko, release;
      int rc = build(o, ko, release);
      std::cout.flush();
      std::cerr.flush();
      std::string said = ko + "\n" + release + "\n";
      (void)!write(res[1], said.data(), said.size());
      _exit(rc);
    }
    close(res[1]);
    close(err[1]);
    if (pid < 0) {
      builds[i].err = std::string("stapx: fork: ") + std::strerror(errno) + "\n";
      close(res[0]);
      close(err[0]);
    } else {
      sources.push_back({res[0], &results[i]});
      sources.push_back({err[0], &builds[i].err});
    }
    pids.push_back(pid);
  }
  support::read_all(sources);
  for (size_t i = 0; i < builds.size(); ++i) {
    if (pids[i] > 0) builds[i].status = support::wait_status(pids[i]);
    std::istringstream said(results[i]);
    std::getline(said, builds[i].ko);
    std::getline(said, builds[i].release);
  }
  // What the builds said, each text once (the same script errors for
  // every release), naming the release where they differ.
  std::set<std::string> said;
  for (const Build& b : builds) {
    if (b.err.empty() || !said.insert(b.err).second) continue;
    bool shared = true;
    for (const Build& o : builds) shared = shared && o.err == b.err;
    if (!shared) std::cerr << "stapx: building for " << (b.release.empty() ? b.kernel : b.release) << ":\n";
    std::cerr << b.err;
  }
}

// 3. stapx-run, then the module, into a new directory only we can read.
void copy_files(std::vector<Host>& hosts, const std::string& stapx_run) {
  std::random_device random;
  for (int step = 0; step < 2; ++step) {
    std::vector<support::Command> cmds;
    std::vector<Host*> which;
    for (Host& h : hosts) {
      if (!h.failure.empty()) continue;
      if (step == 0) {
        h.dir = fmt::format("/tmp/stapx.{:08x}", random());
        std::string d = support::shell_quote(h.dir);
        cmds.push_back({ssh_argv(h, "umask 077 && mkdir " + d + " && cat >" + d + "/stapx-run && chmod 700 " + d +
                                        "/stapx-run"),
                        stapx_run});
      } else {
        std::string ko = support::shell_quote(h.dir + "/" + fs::path(h.ko).filename().string());
        cmds.push_back({ssh_argv(h, "cat >" + ko), h.ko});
      }
      which.push_back(&h);
    }
    std::vector<support::Finished> done = support::run_all(cmds);
    for (size_t i = 0; i < which.size(); ++i) {
      if (done[i].status == 0) continue;
      which[i]->failure = fmt::format("cannot copy {} there: {}", step == 0 ? "stapx-run" : "the module",
                                      last_line(done[i].err));
      report(*which[i]);
      // (Best effort: the directory may be there, half filled.)
      support::run_all({{ssh_argv(*which[i], "rm -rf " + support::shell_quote(which[i]->dir)), ""}});
    }
  }
}

// The shell script that runs stapx-run in `dir` on the host. The session's
// stdin stays open while we want the script to run: when it closes (our
// Ctrl-C, or the connection lost), the watcher sends stapx-run SIGINT, as
// Ctrl-C would at a terminal. stapx-run itself runs in the foreground with
// stdin from /dev/null, so that neither it nor a -c command reads the
// session, and SIGINT is not ignored as in a background job. It writes
// its PID before it looks for the watcher's "stop": a stop that comes
// before the PID is seen there, one that comes after finds the PID.
std::string run_script(const Host& h, const std::vector<std::string>& run_args) {
  std::string args;
  for (const std::string& a : run_args) args += " " + support::shell_quote(a);
  args += " ./" + support::shell_quote(fs::path(h.ko).filename().string());
  std::string d = support::shell_quote(h.dir);
  return "cd " + d +
         " || exit 125\n"
         "exec 3<&0\n"
         "(cat <&3 >/dev/null; : >stop; kill -INT $(cat pid 2>/dev/null) 2>/dev/null) </dev/null >/dev/null 2>&1 &\n"
         "w=$!\n"
         "sh -c 'echo $$ >pid.new && mv pid.new pid; [ -e stop ] && exit 130; exec ./stapx-run \"$@\"' stapx-run" +
         args +
         " </dev/null 3<&-\n"
         "s=$?\n"
         "kill $w 2>/dev/null\n"
         "cd / && rm -rf " +
         d + "\nexit $s\n";
}

int signal_pipe[2] = {-1, -1};

void on_signal(int) {
  int e = errno;
  (void)!write(signal_pipe[1], "x", 1);
  errno = e;
}

// Writes what `h` sent that ends in a newline (all of it at the end),
// each line after the prefix.
void emit(std::string& part, const std::string& prefix, FILE* to, bool all) {
  size_t start = 0;
  for (size_t nl; (nl = part.find('\n', start)) != std::string::npos; start = nl + 1) {
    fputs(prefix.c_str(), to);
    fwrite(part.data() + start, 1, nl + 1 - start, to);
  }
  part.erase(0, start);
  if (all && !part.empty()) {
    fputs(prefix.c_str(), to);
    fwrite(part.data(), 1, part.size(), to);
    if (!prefix.empty()) fputc('\n', to);  // (the next host's line starts a line)
    part.clear();
  }
  fflush(to);
}

// 4. Runs every host's stapx-run and merges their output until all end.
void run_hosts(std::vector<Host>& hosts, const std::vector<std::string>& run_args, const std::string& prefix_kind,
               FILE* out) {
  std::vector<Host*> running;
  for (Host& h : hosts) {
    if (!h.failure.empty()) continue;
    std::string error;
    if (auto c = support::spawn(ssh_argv(h, run_script(h, run_args)), "", true, error)) {
      h.child = *c;
      running.push_back(&h);
    } else {
      h.failure = error;
      report(h);
    }
  }
  if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0) signal_pipe[0] = signal_pipe[1] = -1;
  struct sigaction sa {}, old_int {}, old_term {}, old_hup {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;  // (a write to our stdout is not cut short)
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  int signals = 0;
  auto prefix = [&](const Host& h) {
    if (prefix_kind == "index") return fmt::format("{}: ", h.index);
    if (prefix_kind == "host") return fmt::format("[{}] ", h.url.label);
    return std::string();
  };
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Host*, bool>> whose;  // (host, is stderr)
    if (signal_pipe[0] >= 0) {
      fds.push_back({signal_pipe[0], POLLIN, 0});
      whose.push_back({nullptr, false});
    }
    for (Host* h : running) {
      if (h->child.out >= 0) {
        fds.push_back({h->child.out, POLLIN, 0});
        whose.push_back({h, false});
      }
      if (h->child.err >= 0) {
        fds.push_back({h->child.err, POLLIN, 0});
        whose.push_back({h, true});
      }
    }
    if (fds.size() == (signal_pipe[0] >= 0 ? 1u : 0u)) break;
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t k = 0; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      char buf[65536];
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      Host* h = whose[k].first;
      if (!h) {  // a signal: the first stops the scripts, the next the clients
        if (n <= 0) continue;
        int before = signals;
        signals += static_cast<int>(n);
        if (before == 0)
          for (Host* r : running)
            if (r->child.in >= 0) close(r->child.in), r->child.in = -1;
        if (signals > 1) {
          for (Host* r : running) kill(-r->child.pid, SIGTERM);  // (its group: a wrapper's ssh too)
        }
        continue;
      }
      bool is_err = whose[k].second;
      std::string& part = is_err ? h->err_part : h->out_part;
      if (n > 0) {
        part.append(buf, n);
        emit(part, prefix(*h), is_err ? stderr : out, false);
      } else if (n == 0 || errno != EINTR) {
        emit(part, prefix(*h), is_err ? stderr : out, true);
        close(fds[k].fd);
        (is_err ? h->child.err : h->child.out) = -1;
      }
    }
  }
  for (Host* h : running) {
    if (h->child.in >= 0) close(h->child.in);
    int status = support::wait_status(h->child.pid);
    if (status == 255) h->failure = "the ssh session failed (ssh exit status 255)";
    else if (status != 0) h->failure = fmt::format("stapx-run exited with status {}", status);
    if (!h->failure.empty()) report(*h);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  for (int& fd : signal_pipe)
    if (fd >= 0) close(fd), fd = -1;
}

}  // namespace

int run_remote(const Options& opts, const std::string& stapx_run, const std::vector<std::string>& run_args,
               const BuildModule& build) {
  std::vector<Host> hosts;
  for (const std::string& url : opts.remotes) {
    Host h;
    std::string error;
    if (!parse_remote_url(url, h.url, error)) {  // (checked with the options)
      std::cerr << "stapx: " << error << "\n";
      return 1;
    }
    h.index = hosts.size();
    hosts.push_back(h);
  }
  // The -o file first: a bad path fails before any host is touched.
  FILE* out = stdout;
  if (!opts.output_file.empty() && !(out = fopen(opts.output_file.c_str(), "w"))) {
    std::cerr << "stapx: cannot open " << opts.output_file << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  ask_hosts(hosts);

  // One build per release, or the one -r names (each host must run it).
  std::vector<Build> builds;
  std::map<std::string, size_t> build_of;  // host release -> builds index
  for (const Host& h : hosts) {
    if (!h.failure.empty()) continue;
    std::string kernel = opts.kernel.empty() ? h.release : opts.kernel;
    if (build_of.emplace(opts.kernel.empty() ? h.release : "", builds.size()).second)
      builds.push_back(Build{kernel, "", "", "", -1});
  }
  if (builds.empty()) {
    std::cerr << "stapx: no --remote host can run the script\n";
    if (out != stdout) fclose(out);
    return 1;
  }
  run_builds(opts, builds, build);
  for (Host& h : hosts) {
    if (!h.failure.empty()) continue;
    const Build& b = builds[build_of.at(opts.kernel.empty() ? h.release : "")];
    if (b.status != 0 || b.ko.empty()) h.failure = "no module: pass 4 failed for " + b.kernel;
    else if (b.release != h.release) h.failure = "it runs " + h.release + ", and -r built the module for " + b.release;
    else h.ko = b.ko;
    if (!h.failure.empty()) report(h);
  }

  copy_files(hosts, stapx_run);
  std::cout.flush();
  run_hosts(hosts, run_args, opts.remote_prefix, out);
  if (out != stdout) fclose(out);
  for (const Host& h : hosts)
    if (!h.failure.empty()) return 1;
  return 0;
}

}  // namespace stapx
