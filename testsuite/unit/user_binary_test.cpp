// The user-space ELF reader (translator/debuginfo/user_binary.cpp) on a
// fixture program built with gcc -g -O2 (testsuite/fixtures/user_fixture.c):
// its functions and their file offsets, SDT notes and semaphores, PLT
// stubs, needed libraries and unwind rows; and path lookup.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/user_binary.h"

namespace stapx::debug {
namespace {

const std::string kFixture = STAPX_USER_FIXTURE;

std::unique_ptr<UserBinary> open_fixture() {
  if (kFixture.empty()) return nullptr;
  std::string error;
  auto b = UserBinary::open(kFixture, error);
  EXPECT_TRUE(b) << error;
  return b;
}

TEST(UserBinary, FunctionsHaveFileOffsets) {
  auto b = open_fixture();
  if (!b) GTEST_SKIP() << "no fixture (sys/sdt.h missing)";
  EXPECT_TRUE(b->shared());  // a PIE
  std::vector<UserFunction> fns = b->functions("fix_*");
  ASSERT_EQ(fns.size(), 2u);
  EXPECT_EQ(fns[0].name, "fix_frame");
  EXPECT_EQ(fns[1].name, "fix_leaf");
  for (const UserFunction& f : fns) {
    uint64_t offset = 0;
    ASSERT_TRUE(b->file_offset(f.address, offset));
    EXPECT_EQ(offset, f.offset);
    EXPECT_GT(f.size, 0u);
    EXPECT_EQ(b->function_at(f.address + 1), f.name);
  }
  EXPECT_TRUE(b->functions("no_such_*").empty());
  // A static function is in .symtab too.
  EXPECT_EQ(b->functions("cmp_ints").size(), 1u);
}

TEST(UserBinary, SdtNotesAndSemaphores) {
  auto b = open_fixture();
  if (!b) GTEST_SKIP() << "no fixture (sys/sdt.h missing)";
  const auto& notes = b->sdt_notes();
  auto find = [&](const std::string& name) {
    return std::find_if(notes.begin(), notes.end(), [&](const SdtNote& n) { return n.name == name; });
  };
  auto plain = find("plain"), gated = find("gated");
  ASSERT_NE(plain, notes.end());
  ASSERT_NE(gated, notes.end());
  EXPECT_EQ(plain->provider, "fixture");
  // Two arguments, SIZE@OPERAND each; one.
  EXPECT_EQ(std::count(plain->args.begin(), plain->args.end(), '@'), 2);
  EXPECT_EQ(std::count(gated->args.begin(), gated->args.end(), '@'), 1);
  // Each names its semaphore, in a loaded segment.
  ASSERT_NE(gated->semaphore, 0u);
  uint64_t offset = 0;
  EXPECT_TRUE(b->data_offset(gated->semaphore, offset));
  EXPECT_EQ(b->symbol_address("fixture_gated_semaphore"), gated->semaphore);
  // The probe's address is code of the function that holds it.
  EXPECT_EQ(b->function_at(plain->pc), "fix_frame");
}

TEST(UserBinary, PltStubsAndNeededLibraries) {
  auto b = open_fixture();
  if (!b) GTEST_SKIP() << "no fixture (sys/sdt.h missing)";
  const auto& plt = b->plt_entries();
  auto qsort = std::find_if(plt.begin(), plt.end(), [](const UserFunction& f) { return f.name == "qsort"; });
  ASSERT_NE(qsort, plt.end());
  EXPECT_EQ(qsort->size, 16u);
  uint64_t offset = 0;
  EXPECT_TRUE(b->file_offset(qsort->address, offset));
  const auto& needed = b->needed();
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libc.so.6"), needed.end());
  EXPECT_FALSE(find_shared_library("libc.so.6").empty());
  EXPECT_TRUE(find_shared_library("libno-such-library.so.9").empty());
}

TEST(UserBinary, UnwindRowsStartEachFunctionAtItsEntryRule) {
  auto b = open_fixture();
  if (!b) GTEST_SKIP() << "no fixture (sys/sdt.h missing)";
  const auto& rows = b->unwind_rows();
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.offset < y.offset; }));
  for (const UserFunction& f : b->functions("fix_*")) {
    auto at = std::find_if(rows.begin(), rows.end(), [&](const UnwindRow& r) { return r.offset == f.offset; });
    ASSERT_NE(at, rows.end()) << f.name;
    // At entry the return address is on top: CFA = rsp + 8.
    EXPECT_FALSE(at->cfa_rbp);
    EXPECT_EQ(at->cfa_offset, 8) << f.name;
  }
  // fix_frame's array moves the CFA further from rsp inside it.
  UserFunction frame = b->functions("fix_frame")[0];
  bool deeper = false;
  for (const UnwindRow& r : rows)
    if (r.offset > frame.offset && r.offset < frame.offset + frame.size && r.cfa_offset > 8) deeper = true;
  EXPECT_TRUE(deeper);
}

// usymline() and the like: fix_leaf's first instruction is line 20's
// (its asm emits nothing), as addr2line says: the rows before it at the
// same address are empty steps. And the file has a build ID
// (umodbuildid()).
TEST(UserBinary, LineRowsAndBuildId) {
  auto b = open_fixture();
  if (!b) GTEST_SKIP() << "no fixture (sys/sdt.h missing)";
  EXPECT_EQ(b->build_id().size(), 40u) << b->build_id();
  std::string error;
  std::unique_ptr<DebugInfo> di = open_dwarf(kFixture, error);
  ASSERT_TRUE(di) << error;
  std::vector<std::string> files;
  std::vector<LineRow> rows = di->line_rows(files);
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(),
                             [](const LineRow& a, const LineRow& b) { return a.addr < b.addr; }));
  std::vector<UserFunction> leaf = b->functions("fix_leaf");
  ASSERT_EQ(leaf.size(), 1u);
  auto at = std::upper_bound(rows.begin(), rows.end(), leaf[0].address,
                             [](uint64_t addr, const LineRow& r) { return addr < r.addr; });
  ASSERT_NE(at, rows.begin());
  --at;
  EXPECT_EQ(at->line, 20u);
  ASSERT_LT(at->file, files.size());
  EXPECT_TRUE(files[at->file].ends_with("user_fixture.c")) << files[at->file];
}

TEST(UserBinary, RefusesWhatIsNotAProgram) {
  std::string error;
  EXPECT_FALSE(UserBinary::open(std::string(STAPX_SOURCE_DIR) + "/README.md", error));
  EXPECT_NE(error.find("is not an ELF file"), std::string::npos) << error;
  EXPECT_FALSE(UserBinary::open("/no/such/file", error));
  EXPECT_NE(error.find("cannot open /no/such/file"), std::string::npos) << error;
}

TEST(UserBinary, ProcessPathsAreResolvedAsStapDoes) {
  std::string error;
  std::string sh = resolve_process_path("sh", error);  // through $PATH
  EXPECT_FALSE(sh.empty()) << error;
  EXPECT_EQ(sh.front(), '/');
  EXPECT_TRUE(resolve_process_path("no-such-program-xyz", error).empty());
  EXPECT_NE(error.find("no executable named no-such-program-xyz in $PATH"), std::string::npos) << error;
}

}  // namespace
}  // namespace stapx::debug
