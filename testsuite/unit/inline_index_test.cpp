// The index of inlined instances (translator/debuginfo/inline_index.h) on
// the DWARF fixture, where fx_inlined_sq is inlined twice into
// fx_calls_inline: the same answers built and read back from the cache,
// lookups by name and pattern, and a cache that is not this file's (a
// damaged image, a changed file) rebuilt rather than trusted.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "translator/debuginfo/inline_index.h"

namespace stapx::debug {
namespace {

namespace fs = std::filesystem;

class InlineIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stapx_inline_index_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    // A copy, so that the test may change its modification time.
    lib_ = (dir_ / "fixture.so").string();
    fs::copy_file(STAPX_DWARF_FIXTURE, lib_);
    open_dwarf();
  }
  void TearDown() override {
    if (dw_) dwarf_end(dw_);
    if (fd_ >= 0) close(fd_);
    fs::remove_all(dir_);
  }
  void open_dwarf() {
    fd_ = ::open(lib_.c_str(), O_RDONLY);
    dw_ = dwarf_begin(fd_, DWARF_C_READ);
    ASSERT_NE(dw_, nullptr);
  }
  std::string cache() const { return (dir_ / "cache").string(); }
  std::vector<std::string> cache_files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_ / "cache")) out.push_back(e.path().string());
    return out;
  }
  // "name@pc" for each instance the pattern finds.
  static std::vector<std::string> found(const InlineIndex& idx, const std::string& pattern) {
    std::vector<std::string> out;
    idx.find(pattern, [&](std::string_view name, const InlineInstance& i) {
      out.push_back(std::string(name) + "@" + std::to_string(i.pc));
    });
    return out;
  }

  fs::path dir_;
  std::string lib_;
  int fd_ = -1;
  Dwarf* dw_ = nullptr;
};

TEST_F(InlineIndexTest, BuiltThenReadFromTheCache) {
  std::unique_ptr<InlineIndex> built = InlineIndex::open(dw_, lib_, cache());
  ASSERT_NE(built, nullptr);
  EXPECT_EQ(built->origin().rfind("built, cached in " + cache() + "/inlines-", 0), 0u) << built->origin();
  ASSERT_EQ(cache_files().size(), 1u);
  std::vector<std::string> sq = found(*built, "fx_inlined_sq");
  ASSERT_EQ(sq.size(), 2u);
  EXPECT_NE(sq[0], sq[1]);
  // Each instance's DIE and its frame's.
  built->find("fx_inlined_sq", [&](std::string_view, const InlineInstance& i) {
    Dwarf_Die inst, outer;
    ASSERT_NE(dwarf_offdie(dw_, i.die, &inst), nullptr);
    EXPECT_EQ(dwarf_tag(&inst), DW_TAG_inlined_subroutine);
    ASSERT_NE(dwarf_offdie(dw_, i.outer, &outer), nullptr);
    EXPECT_STREQ(dwarf_diename(&outer), "fx_calls_inline");
    Dwarf_Addr pc = 0;
    EXPECT_EQ(dwarf_entrypc(&inst, &pc), 0);
    EXPECT_EQ(pc, i.pc);
  });

  std::unique_ptr<InlineIndex> cached = InlineIndex::open(dw_, lib_, cache());
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->origin(), "cached index " + cache_files()[0]);
  EXPECT_EQ(cached->names(), built->names());
  EXPECT_EQ(cached->instances(), built->instances());
  for (const char* pattern : {"fx_inlined_sq", "fx_in*", "*sq", "fx_inlined_s?", "fx_[i]nlined_sq"})
    EXPECT_EQ(found(*cached, pattern), sq) << pattern;
  // By name, then in DIE order: fx_inlined_sq before fx_twice.
  std::vector<std::string> all = found(*cached, "fx_*");
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(all.begin(), all.begin() + 2), sq);
  EXPECT_EQ(all[2].rfind("fx_twice@", 0), 0u);
  EXPECT_TRUE(found(*cached, "fx_inlined").empty());  // a prefix is no match
  EXPECT_TRUE(found(*cached, "fx_calls_inline").empty());  // never inlined
  EXPECT_TRUE(found(*cached, "nosuch*").empty());
  EXPECT_TRUE(found(*cached, "").empty());
}

TEST_F(InlineIndexTest, DamagedCacheIsRebuilt) {
  ASSERT_NE(InlineIndex::open(dw_, lib_, cache()), nullptr);
  ASSERT_EQ(cache_files().size(), 1u);
  std::string file = cache_files()[0];
  auto size = fs::file_size(file);
  for (uintmax_t cut : {uintmax_t{0}, uintmax_t{7}, uintmax_t{40}, size - 1}) {
    fs::resize_file(file, cut);
    std::unique_ptr<InlineIndex> idx = InlineIndex::open(dw_, lib_, cache());
    ASSERT_NE(idx, nullptr);
    EXPECT_EQ(idx->origin(), "built, cached in " + file) << "cut at " << cut;
    EXPECT_EQ(found(*idx, "fx_inlined_sq").size(), 2u);
    EXPECT_EQ(fs::file_size(file), size);
  }
}

TEST_F(InlineIndexTest, AChangedFileGetsItsOwnIndex) {
  ASSERT_NE(InlineIndex::open(dw_, lib_, cache()), nullptr);
  fs::last_write_time(lib_, fs::last_write_time(lib_) + std::chrono::seconds(5));
  std::unique_ptr<InlineIndex> idx = InlineIndex::open(dw_, lib_, cache());
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(idx->origin().rfind("built, cached in ", 0), 0u) << idx->origin();
  EXPECT_EQ(cache_files().size(), 2u);
}

TEST_F(InlineIndexTest, WithoutACacheDirectoryBuiltInMemory) {
  std::unique_ptr<InlineIndex> idx = InlineIndex::open(dw_, lib_, "");
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(idx->origin(), "built");
  EXPECT_EQ(found(*idx, "fx_inlined_sq").size(), 2u);
  EXPECT_TRUE(cache_files().empty());
}

}  // namespace
}  // namespace stapx::debug
