// Tapset directory selection: stap's kernel-version, runtime and
// architecture subdirectories of each search-path root.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "frontend/library.h"

namespace stapx {
namespace {

namespace fs = std::filesystem;

TEST(Library, VersionRuntimeAndArchSubdirectories) {
  fs::path root = fs::temp_directory_path() / ("stapx_library_test_" + std::to_string(::getpid()));
  for (const char* d : {"6.1.0-56-amd64", "6.1.0", "6.1", "6", "5.10", "linux", "x86_64", "linux/x86_64", "i386"})
    fs::create_directories(root / d);
  PreprocessFacts facts;
  facts.kernel_vr = "6.1.0-56-amd64";
  facts.kernel_v = "6.1.0";
  std::vector<std::string> got = library_dirs({root.string()}, facts);
  std::vector<std::string> want;
  for (const char* d : {"6.1.0-56-amd64", "6.1.0", "6.1", "", "linux", "x86_64", "linux/x86_64"})
    want.push_back(*d ? (root / d).string() : root.string());
  EXPECT_EQ(got, want);
  fs::remove_all(root);
}

}  // namespace
}  // namespace stapx
