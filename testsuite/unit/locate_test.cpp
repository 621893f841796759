// Finding kernel modules' debug information (translator/debuginfo/locate.cpp):
// DIR/m.ko, DIR/**/m.ko, a .ko named directly, '-' and '_' alike, wildcards,
// compressed modules (m.ko.xz, .zst, .gz), and the first directory winning.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "translator/debuginfo/locate.h"

namespace stapx {
namespace {

namespace fs = std::filesystem;

class FindModules : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/stapx-locate.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    unsetenv("STAPX_DEBUGINFO");
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string touch(const std::string& rel) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
    return p.string();
  }
  std::string dir(const std::string& rel) { return (root_ / rel).string(); }
  fs::path root_;
};

TEST_F(FindModules, TopLevelAndNested) {
  std::string top = touch("a/stapx_fixture.ko");
  std::string nested = touch("a/kernel/fs/ext4/ext4.ko");
  touch("a/kernel/fs/ext4/ext4.o");
  auto found = find_modules("R", {dir("a")}, "stapx_fixture");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found["stapx_fixture"], top);
  EXPECT_EQ(find_modules("R", {dir("a")}, "ext4")["ext4"], nested);
  EXPECT_TRUE(find_modules("R", {dir("a")}, "nosuch").empty());
}

TEST_F(FindModules, ShallowestCopyAndFirstDirectoryWin) {
  touch("a/deep/er/m.ko");
  std::string shallow = touch("a/deep/m.ko");
  std::string other = touch("b/m.ko");
  EXPECT_EQ(find_modules("R", {dir("a"), dir("b")}, "m")["m"], shallow);
  EXPECT_EQ(find_modules("R", {dir("b"), dir("a")}, "m")["m"], other);
}

TEST_F(FindModules, DashesAndUnderscoresAreTheSame) {
  std::string p = touch("a/snd-hda-intel.ko");
  auto found = find_modules("R", {dir("a")}, "snd_hda_intel");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found["snd_hda_intel"], p);
  EXPECT_EQ(find_modules("R", {dir("a")}, "snd-hda-*").count("snd_hda_intel"), 1u);
}

TEST_F(FindModules, WildcardsAndFiles) {
  std::string one = touch("a/sfx_one.ko");
  std::string two = touch("a/x/sfx_two.ko");
  touch("a/other.ko");
  auto found = find_modules("R", {dir("a")}, "sfx_*");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found["sfx_one"], one);
  EXPECT_EQ(found["sfx_two"], two);
  // --debuginfo naming the .ko itself.
  EXPECT_EQ(find_modules("R", {one}, "sfx_one")["sfx_one"], one);
  EXPECT_TRUE(find_modules("R", {one}, "sfx_two").empty());
}

TEST_F(FindModules, CompressedModules) {
  std::string xz = touch("a/kernel/fs/ext4/ext4.ko.xz");
  std::string zst = touch("a/kernel/drivers/block/brd.ko.zst");
  std::string gz = touch("a/loop.ko.gz");
  touch("a/kernel/fs/ext4/ext4.ko.bak");
  touch("a/notko.xz");
  auto found = find_modules("R", {dir("a")}, "*");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found["ext4"], xz);
  EXPECT_EQ(found["brd"], zst);
  EXPECT_EQ(found["loop"], gz);
  // Named directly; and an uncompressed copy beside it is the shorter path.
  EXPECT_EQ(find_modules("R", {xz}, "ext4")["ext4"], xz);
  std::string plain = touch("a/kernel/fs/ext4/ext4.ko");
  EXPECT_EQ(find_modules("R", {dir("a")}, "ext4")["ext4"], plain);
}

TEST_F(FindModules, EnvironmentAfterOptions) {
  std::string a = touch("a/m.ko");
  std::string b = touch("b/m.ko");
  setenv("STAPX_DEBUGINFO", (dir("nothing") + ":" + dir("b")).c_str(), 1);
  EXPECT_EQ(find_modules("R", {}, "m")["m"], b);
  EXPECT_EQ(find_modules("R", {dir("a")}, "m")["m"], a);
  unsetenv("STAPX_DEBUGINFO");
}

}  // namespace
}  // namespace stapx
