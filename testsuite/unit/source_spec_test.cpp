// The "function@file:line" argument of kernel.function/kernel.statement.
#include <gtest/gtest.h>

#include "translator/probes/source_spec.h"

namespace stapx {
namespace {

TEST(SourceSpec, Forms) {
  SourceSpec s = SourceSpec::parse("vfs_read");
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.function, "vfs_read");
  EXPECT_TRUE(s.file.empty());
  EXPECT_FALSE(s.has_line());

  s = SourceSpec::parse("vfs_*@fs/read_write.c");
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.function, "vfs_*");
  EXPECT_EQ(s.file, "fs/read_write.c");
  EXPECT_FALSE(s.has_line());

  s = SourceSpec::parse("f@a.c:12");
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.lines, SourceSpec::Lines::Range);
  EXPECT_EQ(s.lo, 12);
  EXPECT_EQ(s.hi, 12);

  s = SourceSpec::parse("f@a.c:12-20");
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.lo, 12);
  EXPECT_EQ(s.hi, 20);

  s = SourceSpec::parse("f@a.c:*");
  EXPECT_TRUE(s.valid);
  EXPECT_TRUE(s.keeps("a.c", 1, 0));
  EXPECT_TRUE(s.keeps("dir/a.c", 99999, 0));
  EXPECT_FALSE(s.keeps("b.c", 1, 0));

  s = SourceSpec::parse("f@a.c+3");
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.lines, SourceSpec::Lines::Relative);
  EXPECT_TRUE(s.keeps("a.c", 13, 10));
  EXPECT_FALSE(s.keeps("a.c", 12, 10));
}

TEST(SourceSpec, Malformed) {
  for (const char* bad : {"", "@a.c", "f@", "f@a.c:", "f@a.c:x", "f@a.c:0", "f@a.c:9-3", "f@a.c:3-",
                          "f@a.c+", "f@a.c+x", "f@:3", "f@a.c:1234567890"})
    EXPECT_FALSE(SourceSpec::parse(bad).valid) << bad;
}

TEST(SourceSpec, FileMatchesTail) {
  EXPECT_TRUE(file_matches("read_write.c", "fs/read_write.c"));
  EXPECT_TRUE(file_matches("fs/*.c", "fs/read_write.c"));
  EXPECT_TRUE(file_matches("fs/read_write.c", "fs/read_write.c"));
  EXPECT_FALSE(file_matches("write.c", "fs/read_write.c"));
  EXPECT_FALSE(file_matches("mm/*.c", "fs/read_write.c"));
}

}  // namespace
}  // namespace stapx
