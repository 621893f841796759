// Probe point patterns over dotted names: '*' within a component, '**'
// across them (stapprobes(3stap): "sys**open").
#include <gtest/gtest.h>

#include "support/glob.h"

namespace {

using stapx::support::glob_match_components;

TEST(GlobComponents, StarStaysInItsComponent) {
  EXPECT_TRUE(glob_match_components("ope*", "open"));
  EXPECT_TRUE(glob_match_components("ope*", "openat"));
  EXPECT_FALSE(glob_match_components("ope*", "open.return"));
  EXPECT_FALSE(glob_match_components("o?en", "o.en"));
  EXPECT_TRUE(glob_match_components("*.return", "open.return"));
}

TEST(GlobComponents, DoubleStarSpansComponents) {
  EXPECT_TRUE(glob_match_components("ope**", "open.return"));
  EXPECT_TRUE(glob_match_components("sys**open", "syscall.open"));
  EXPECT_TRUE(glob_match_components("sys**open", "syscall.mq_open"));
  EXPECT_FALSE(glob_match_components("sys**open", "syscall.open.return"));
  EXPECT_TRUE(glob_match_components("**", "a.b.c"));
  EXPECT_TRUE(glob_match_components("**", ""));
}

TEST(GlobComponents, BracketsAndEscapes) {
  EXPECT_TRUE(glob_match_components("[oc]pen", "open"));
  EXPECT_FALSE(glob_match_components("[!o]pen", "open"));
  EXPECT_FALSE(glob_match_components("a[.]b", "a.b"));  // a class never takes the dot
  EXPECT_TRUE(glob_match_components("a\\*", "a*"));
  EXPECT_FALSE(glob_match_components("a\\*", "ab"));
}

}  // namespace
