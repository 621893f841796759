// Opening the target's debug information on first use (see probe_env.h).
#include "translator/probes/probe_env.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "translator/debuginfo/kernel_symbols.h"
#include "translator/debuginfo/locate.h"
#include "translator/debuginfo/user_binary.h"

extern char** environ;

namespace stapx {

ProbeEnv::~ProbeEnv() {
  if (!keep_) return;
  (void)debuginfo_.release();
  (void)btf_.release();
  for (auto& [path, m] : modules_) (void)m.release();
  for (auto& [list, h] : headers_) (void)h.release();
}

namespace {

// The header names in "<a.h><b/c.h>"; empty if the text is not that form.
std::vector<std::string> header_names(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t close = text.find('>', at);
    if (text[at] != '<' || close == std::string::npos || close == at + 1) return {};
    std::string name = text.substr(at + 1, close - at - 1);
    if (name.find_first_of("<\n") != std::string::npos) return {};
    out.push_back(std::move(name));
    at = close + 1;
  }
  return out;
}

// Runs gcc to make `out`, a shared object whose debug information has
// every type the headers declare (unused ones too). gcc's first error line
// in `error` if it fails. No shell: the names come from the script.
bool compile_headers(const std::vector<std::string>& headers, const std::string& out, const std::string& log,
                     std::string& error) {
  std::vector<std::string> args = {"gcc",       "-shared", "-g", "-fno-eliminate-unused-debug-types",
                                   "-x",        "c",       "/dev/null", "-o", out};
  for (const std::string& h : headers) {
    args.push_back("-include");
    args.push_back(h);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, "gcc", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = std::string("cannot run gcc: ") + std::strerror(rc);
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find("error: ");
    if (at == std::string::npos) continue;
    error = "gcc: " + line.substr(at + 7);
    return false;
  }
  error = "gcc failed";
  return false;
}

}  // namespace

debug::DebugInfo* ProbeEnv::binary_debuginfo(const std::string& path, std::string& error) {
  auto [it, added] = binaries_.try_emplace(path);
  if (added) {
    std::string resolved = debug::resolve_process_path(path, it->second.second);
    if (!resolved.empty()) it->second.first = debug::open_dwarf(resolved, it->second.second);
  }
  error = it->second.second;
  return it->second.first.get();
}

debug::DebugInfo* ProbeEnv::header_debuginfo(const std::string& headers, std::string& error) {
  auto [it, added] = headers_.try_emplace(headers);
  std::string& why = header_errors_[headers];
  if (!added) {
    error = why;
    return it->second.get();
  }
  std::vector<std::string> names = header_names(headers);
  if (names.empty()) {
    error = why = "write each header as <name.h>";
    return nullptr;
  }
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "stapx-typesXXXXXX").string();
  if (!mkdtemp(dir.data())) {
    error = why = std::string("no temporary directory: ") + std::strerror(errno);
    return nullptr;
  }
  std::string so = dir + "/types.so";
  if (compile_headers(names, so, dir + "/gcc.log", error)) it->second = debug::open_dwarf(so, error);
  // (Opened: its descriptor keeps the file.)
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!it->second) {
    why = error;
    return nullptr;
  }
  if (verbose_ >= 1) std::cerr << "Types of " << headers << ": compiled by gcc\n";
  return it->second.get();
}

const KernelSymbols* ProbeEnv::unprobeable_kernel_functions() {
  if (!unprobeable_tried_) {
    unprobeable_tried_ = true;
    std::string error;
    if (!vmlinux_.empty()) unprobeable_ = vmlinux_unprobeable(vmlinux_, &error);
    if (verbose_ >= 1 && unprobeable_) std::cerr << "Kernel functions not probed: " << unprobeable_->source() << "\n";
  }
  return unprobeable_.get();
}

debug::DebugInfo* ProbeEnv::debuginfo(DiagSink& diags, SourceLoc loc) {
  if (tried_) {
    if (!debuginfo_) diags.report(DiagId::SemNoDebuginfo, loc, release_, debuginfo_hint(release_));
    return debuginfo_.get();
  }
  tried_ = true;
  // DWARF when installed (it has locals, inline instances, source lines);
  // else BTF, which every Debian kernel carries.
  std::optional<std::string> path = prefer_btf_ ? std::nullopt : find_vmlinux(release_, dirs_);
  std::string error;
  if (path) debuginfo_ = debug::open_dwarf(*path, error);
  if (debuginfo_) vmlinux_ = *path;
  if (!debuginfo_) {
    std::optional<std::string> btf = find_btf(release_, dirs_);
    if (!btf && prefer_btf_) {
      // The DWARF vmlinux carries BTF too.
      btf = find_vmlinux(release_, dirs_);
    }
    std::string btf_error;
    if (btf) debuginfo_ = debug::open_btf(*btf, btf_error);
    debuginfo_is_btf_ = debuginfo_ != nullptr;
    if (!debuginfo_ && error.empty()) error = btf_error;
  }
  if (!debuginfo_) {
    diags.report(DiagId::SemNoDebuginfo, loc, release_,
                 error.empty() ? debuginfo_hint(release_) : error + "; " + debuginfo_hint(release_));
    return nullptr;
  }
  if (verbose_ >= 1) std::cerr << "Debug information: " << debuginfo_->source() << "\n";
  return debuginfo_.get();
}

std::vector<std::pair<std::string, debug::DebugInfo*>> ProbeEnv::module_debuginfo(const std::string& pattern,
                                                                                   DiagSink& diags, SourceLoc loc,
                                                                                   bool optional) {
  std::vector<std::pair<std::string, debug::DebugInfo*>> out;
  std::map<std::string, std::string> found = find_modules(release_, dirs_, pattern);
  if (found.empty()) {
    if (optional) return out;
    diags.report(DiagId::SemNoModuleDebuginfo, loc, pattern,
                 "point --debuginfo at a directory holding " + pattern + ".ko built with -g" +
                     " (or install linux-image-" + release_ + "-dbg for the kernel's own modules)");
    return out;
  }
  for (const auto& [name, path] : found) {
    auto it = modules_.find(path);
    if (it == modules_.end()) {
      std::string error;
      it = modules_.emplace(path, open_module(path, error)).first;
      if (!it->second) {
        diags.report(DiagId::SemNoModuleDebuginfo, loc, name, error + "; " + module_debuginfo_hint(release_, name));
        continue;
      }
      if (verbose_ >= 1) std::cerr << "Debug information for module " << name << ": " << it->second->source() << "\n";
    }
    if (it->second) out.emplace_back(name, it->second.get());
  }
  return out;
}

// A module's DWARF (unless --btf), else the split BTF in its .BTF section
// (Debian's modules carry one) on top of the kernel's BTF.
std::unique_ptr<debug::DebugInfo> ProbeEnv::open_module(const std::string& path, std::string& error) {
  std::string dwarf_error;
  if (!prefer_btf_) {
    if (auto d = debug::open_dwarf(path, dwarf_error)) return d;
  }
  std::optional<std::string> base = find_btf(release_, dirs_);
  if (!base) base = find_vmlinux(release_, dirs_);  // the DWARF vmlinux carries BTF too
  std::string btf_error;
  std::unique_ptr<debug::DebugInfo> b;
  if (base)
    b = debug::open_module_btf(path, *base, btf_error);
  else
    btf_error = "no BTF of kernel " + release_ + " to read its split BTF against";
  if (btf_error.compare(0, path.size() + 1, path + " ") == 0 && !dwarf_error.empty())
    btf_error.erase(0, path.size() + 1);  // "P has no DWARF ..., and has no .BTF section"
  if (!b) error = dwarf_error.empty() ? btf_error : dwarf_error + ", and " + btf_error;
  return b;
}

std::vector<std::pair<std::string, debug::DebugInfo*>> ProbeEnv::point_debuginfo(const ast::ProbePoint& point,
                                                                                 bool module, DiagSink& diags) {
  if (module) {
    const std::string mod(static_cast<const ast::StringLit*>(point.components[0].arg)->value);
    return module_debuginfo(mod, diags, point.components[0].arg->loc, point.optional);
  }
  std::vector<std::pair<std::string, debug::DebugInfo*>> out;
  if (debug::DebugInfo* di = debuginfo(diags, point.loc)) out.emplace_back("", di);
  return out;
}

debug::DebugInfo* ProbeEnv::btf(DiagSink& diags, SourceLoc loc) {
  if (debuginfo_is_btf_) return debuginfo_.get();
  if (!btf_tried_) {
    btf_tried_ = true;
    // A BTF file, else the .BTF section of the DWARF vmlinux.
    std::optional<std::string> path = find_btf(release_, dirs_);
    if (!path) path = find_vmlinux(release_, dirs_);
    std::string error;
    if (path) btf_ = debug::open_btf(*path, error);
    if (btf_ && verbose_ >= 1) std::cerr << "Tracepoints: " << btf_->source() << "\n";
    if (!btf_) {
      diags.report(DiagId::SemNoBtf, loc, release_, error.empty() ? "no BTF found" : error);
      return nullptr;
    }
  }
  if (!btf_) diags.report(DiagId::SemNoBtf, loc, release_, "no BTF found");
  return btf_.get();
}

}  // namespace stapx
