// Pass 4: build the generated C into a kernel module with the target's
// kbuild tree, through a cache keyed by everything that affects the .ko.
#pragma once

#include <optional>
#include <string>

namespace stapx {

struct KernelTarget {
  std::string release;     // e.g. 6.1.0-56-amd64
  std::string kbuild_dir;  // the tree `make -C` runs in
};

// Resolves -r (a release, a kbuild directory, or empty for the running
// kernel). On failure prints a one-line cause and hint and returns nullopt.
std::optional<KernelTarget> resolve_kernel(const std::string& spec);

struct BuildRequest {
  std::string module_name;
  std::string c_source;
  KernelTarget kernel;
  std::string runtime_dir;
  bool keep_tmp = false;
  int verbose = 0;
};

// Returns the path of the built module (in the cache), or nullopt after
// printing the compiler's errors.
std::optional<std::string> build_module(const BuildRequest& req);

}  // namespace stapx
