// libFuzzer target for pass 2: the input bytes are a script, run through
// stapx's own pipeline to the end of elaboration (-p2) against the guest
// kernel that `make deps` fetched: the tapset library, the kernel's DWARF
// (its vmlinux) or, for one input in four, its BTF (--btf). The kernel's
// debug information and symbols are opened once and kept across inputs
// (PipelineCache); everything else is made and freed per input. Any
// crash, sanitizer report or hang is a bug; diagnostics are not.
//
// As in parse_fuzzer.cpp, -g and the script's arguments come from a hash
// of the input. STAPX_FUZZ_KERNEL_DIR names the kernel directory (default:
// build/kernel next to this source tree, as the Makefile's deps make it);
// STAPX_FUZZ_VERBOSE=1 lets the pipeline's output and diagnostics through.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "translator/options.h"
#include "translator/pipeline.h"

namespace {

using namespace stapx;

const std::vector<std::vector<std::string>> kArgSets = {
    {},
    {"1"},
    {"vfs_read"},
    {"42", "kernel.function(\"vfs_*\")"},
    {"/bin/sh", "main"},
    {"", "a b"},
    {"$1", "@2"},  // arguments naming arguments: refused, never expanded
};

std::string kernel_release() {
  const char* dir = getenv("STAPX_FUZZ_KERNEL_DIR");
  std::string kdir = dir && *dir ? dir : STAPX_FUZZ_DEFAULT_KERNEL_DIR;
  std::ifstream in(kdir + "/release");
  std::string release;
  if (!(in >> release)) {
    fprintf(stderr, "elab_fuzzer: no %s/release: run 'make deps' (or set STAPX_FUZZ_KERNEL_DIR)\n", kdir.c_str());
    exit(1);
  }
  setenv("STAPX_KERNEL_DIR", kdir.c_str(), 1);
  return release;
}

// A stream buffer that drops what it is given.
struct NullBuf : std::streambuf {
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string release = kernel_release();
  static auto cache = make_pipeline_cache();
  static const bool verbose = getenv("STAPX_FUZZ_VERBOSE") != nullptr;
  static NullBuf null_buf;

  uint32_t h = 2166136261u;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  Options opts;
  opts.script_path = "<input>";
  opts.script_text.assign(reinterpret_cast<const char*>(data), size);
  opts.from_command_line = true;
  opts.script_args = kArgSets[h % kArgSets.size()];
  opts.guru = (h >> 8) & 1;
  opts.prefer_btf = ((h >> 9) & 3) == 0;
  opts.last_pass = 2;
  opts.kernel = release;

  std::streambuf* out = std::cout.rdbuf();
  std::streambuf* err = std::cerr.rdbuf();
  if (!verbose) {
    std::cout.rdbuf(&null_buf);
    std::cerr.rdbuf(&null_buf);
  }
  run_pipeline(opts, cache.get());
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  return 0;
}
