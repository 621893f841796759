// Child processes (process.h).
#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stapx::support {

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

std::optional<Child> spawn(const std::vector<std::string>& argv, const std::string& stdin_path, bool stdin_pipe,
                           std::string& error) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  auto fail = [&](const std::string& what) {
    error = what + ": " + std::strerror(errno);
    for (int* p : {in, out, err, report}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
    return std::nullopt;
  };
  if (argv.empty()) {
    error = "nothing to run";
    return std::nullopt;
  }
  if (stdin_pipe) {
    if (pipe2(in, O_CLOEXEC) < 0) return fail("pipe");
  } else {
    in[0] = open(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in[0] < 0) return fail(stdin_path.empty() ? "/dev/null" : stdin_path);
  }
  // `report` carries exec's errno back; it closes unread when exec works.
  if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) return fail("pipe");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return fail("fork");
  if (pid == 0) {
    setpgid(0, 0);  // (and the parent's setpgid below: whichever runs first)
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    // Above 2 first: with one of our 0-2 closed, a pipe may have got its
    // number, and a dup2 would overwrite it (or, onto itself, keep its
    // close-on-exec).
    int from[3] = {fcntl(in[0], F_DUPFD_CLOEXEC, 3), fcntl(out[1], F_DUPFD_CLOEXEC, 3),
                   fcntl(err[1], F_DUPFD_CLOEXEC, 3)};
    for (int fd = 0; fd < 3; ++fd) dup2(from[fd], fd);
    execvp(args[0], args.data());
    int e = errno;
    (void)!write(report[1], &e, sizeof e);
    _exit(127);
  }
  setpgid(pid, pid);
  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(err[1]);
  close_fd(report[1]);
  int e = 0;
  ssize_t n;
  while ((n = read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  close_fd(report[0]);
  if (n > 0) {
    wait_status(pid);
    errno = e;
    return fail("cannot run " + argv[0]);
  }
  return Child{pid, in[1], out[0], err[0]};
}

int wait_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

void read_all(const std::vector<std::pair<int, std::string*>>& sources) {
  std::vector<std::pair<int, std::string*>> open_ones = sources;
  while (!open_ones.empty()) {
    std::vector<pollfd> fds;
    for (auto& [fd, sink] : open_ones) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t k = fds.size(); k-- > 0;) {
      if (!fds[k].revents) continue;
      char buf[4096];
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n > 0) {
        open_ones[k].second->append(buf, n);
      } else if (n == 0 || errno != EINTR) {
        close(fds[k].fd);
        open_ones.erase(open_ones.begin() + k);
      }
    }
  }
  for (auto& [fd, sink] : open_ones) close(fd);
}

std::vector<Finished> run_all(const std::vector<Command>& commands) {
  std::vector<Finished> done(commands.size());
  std::vector<Child> children(commands.size());
  std::vector<std::pair<int, std::string*>> sources;
  for (size_t i = 0; i < commands.size(); ++i) {
    std::string error;
    if (auto c = spawn(commands[i].argv, commands[i].stdin_path, false, error)) {
      children[i] = *c;
      sources.push_back({c->out, &done[i].out});
      sources.push_back({c->err, &done[i].err});
    } else {
      done[i].err = error + "\n";
    }
  }
  read_all(sources);
  for (size_t i = 0; i < children.size(); ++i)
    if (children[i].pid > 0) done[i].status = wait_status(children[i].pid);
  return done;
}

}  // namespace stapx::support
