// The tapset index: what it finds, and its cache, which a changed file
// invalidates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "frontend/library.h"
#include "translator/elaborate/tapsets.h"

namespace stapx {
namespace {

namespace fs = std::filesystem;

TEST(TapsetIndex, CachedPerTreeAndInvalidatedByAChange) {
  fs::path root = fs::temp_directory_path() / ("stapx_index_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "tapsets");
  fs::create_directories(root / "cache");
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", (root / "cache").c_str(), 1);
  auto write = [&](const std::string& text) {
    std::ofstream(root / "tapsets" / "a.stp") << text;
  };
  write("function alpha() { return 1 }\nprobe one.two = begin { }\n"
        "global g1, g2[8], g3 = -1, g4% = 2\nprivate global hidden\n");
  std::vector<std::string> dirs = {(root / "tapsets").string()};
  {
    TapsetIndex index(list_library(dirs));
    EXPECT_EQ(index.files_for_function("alpha").size(), 1u);
    for (const char* g : {"g1", "g2", "g3", "g4"}) EXPECT_EQ(index.files_for_global(g).size(), 1u) << g;
    EXPECT_TRUE(index.files_for_global("hidden").empty());
  }
  size_t caches = 0;
  for (auto& e : fs::recursive_directory_iterator(root / "cache"))
    if (e.path().filename().string().rfind("tapset-index-", 0) == 0) ++caches;
  EXPECT_EQ(caches, 1u);
  {
    TapsetIndex cached(list_library(dirs));  // from the cache file
    EXPECT_EQ(cached.files_for_function("alpha").size(), 1u);
    ast::Arena arena;
    ast::ProbePoint pt;
    pt.components.emplace_back(arena);
    pt.components.emplace_back(arena);
    pt.components[0].name = "one";
    pt.components[1].name = "two";
    EXPECT_EQ(cached.files_for_point(pt).size(), 1u);
    pt.components[1].name = "t*";
    EXPECT_EQ(cached.files_for_point(pt).size(), 1u);
    pt.components[1].name = "three";
    EXPECT_TRUE(cached.files_for_point(pt).empty());
    EXPECT_EQ(cached.files_for_global("g4").size(), 1u);
  }
  write("function beta() { return 2 }\n// longer now, so the size differs\n");
  {
    TapsetIndex fresh(list_library(dirs));
    EXPECT_TRUE(fresh.files_for_function("alpha").empty());
    EXPECT_EQ(fresh.files_for_function("beta").size(), 1u);
  }
  if (old)
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
  fs::remove_all(root);
}

}  // namespace
}  // namespace stapx
