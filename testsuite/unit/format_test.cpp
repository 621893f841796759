// printf format parsing and its rewriting for the kernel's vsnprintf.
#include <gtest/gtest.h>

#include "translator/builtins/format.h"

namespace stapx {
namespace {

TEST(Format, ConversionsBecomeLongLong) {
  ParsedFormat f = parse_format("%d|%5x|%-3X|%s|%%|%i|%c");
  ASSERT_TRUE(f.error.empty()) << f.error;
  EXPECT_EQ(f.kernel_format, "%lld|%5llx|%-3llX|%s|%%|%lld|%c");
  ASSERT_EQ(f.conversions.size(), 6u);
  EXPECT_EQ(f.conversions[3].type, ast::Type::String);
  EXPECT_EQ(f.conversions[0].type, ast::Type::Long);
}

TEST(Format, BadConversionsAreErrors) {
  EXPECT_FALSE(parse_format("%q").error.empty());
  EXPECT_FALSE(parse_format("100%").error.empty());
  EXPECT_TRUE(parse_format("no conversions").conversions.empty());
}

}  // namespace
}  // namespace stapx
