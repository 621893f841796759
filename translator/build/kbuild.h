// Pass 4: build the generated C into a kernel module with the target's
// kbuild tree, through a cache keyed by everything that affects the .ko.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/preprocess.h"
#include "support/hash.h"

namespace stapx {

struct KernelTarget {
  std::string release;     // e.g. 6.1.0-56-amd64
  std::string kbuild_dir;  // the tree `make -C` runs in
};

// Resolves -r (a release, a kbuild directory, or empty for the running
// kernel). A release's tree is the installed one, else DIR/RELEASE/build
// for the first of `unpacked` that has one (where testsuite/vm/fetch-kernel
// unpacks a release's header packages). kbuild_dir stays empty when there
// is none; nullopt (after a one-line cause) when a given directory is not
// a kernel build tree.
std::optional<KernelTarget> resolve_kernel(const std::string& spec, const std::vector<std::string>& unpacked = {});

// Pass 4 needs a build tree: prints the cause and a hint when there is none.
bool require_kbuild(const KernelTarget& k);

// CONFIG_* values of the target's .config, as the file writes them (a
// string with its quotes); empty without a build tree.
KernelConfig kernel_config(const KernelTarget& k);

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
