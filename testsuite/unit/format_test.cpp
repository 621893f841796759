// printf format parsing and its rewriting for the kernel's vsnprintf.
#include <gtest/gtest.h>

#include "frontend/format.h"

namespace stapx {
namespace {

TEST(Format, ConversionsBecomeLongLong) {
  ParsedFormat f = parse_format("%d|%5x|%-3X|%s|%%|%i|%c");
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.pieces.size(), 1u);
  EXPECT_FALSE(f.pieces[0].special);
  EXPECT_EQ(f.pieces[0].kernel_format, "%lld|%5llx|%-3llX|%s|%%|%lld|%c");
  EXPECT_EQ(f.pieces[0].nargs, 6u);
  ASSERT_EQ(f.conversions.size(), 6u);
  EXPECT_EQ(f.conversions[3].type, ast::Type::String);
  EXPECT_EQ(f.conversions[0].type, ast::Type::Long);
}

TEST(Format, PointerKeepsFlagsBeforeWidth) {
  ParsedFormat f = parse_format("%-18p|%p");
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.pieces.size(), 1u);
  EXPECT_EQ(f.pieces[0].kernel_format, "%#-18llx|%#llx");
}

TEST(Format, StarWidthsConsumeArguments) {
  ParsedFormat f = parse_format("%*d %.*s %*.*x");
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.conversions.size(), 7u);
  EXPECT_EQ(f.conversions[0].conv, '*');
  EXPECT_EQ(f.conversions[1].conv, 'd');
  EXPECT_EQ(f.conversions[2].conv, '*');
  EXPECT_EQ(f.conversions[3].type, ast::Type::String);
  EXPECT_EQ(f.pieces[0].kernel_format, "%*lld %.*s %*.*llx");
  EXPECT_EQ(f.pieces[0].nargs, 7u);
}

TEST(Format, BinaryAndMemoryAreSpecialPieces) {
  ParsedFormat f = parse_format("a%db%2bc%10.4Md%.*me%#cf");
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.pieces.size(), 9u);
  EXPECT_EQ(f.pieces[0].kernel_format, "a%lldb");
  EXPECT_EQ(f.pieces[0].nargs, 1u);
  EXPECT_TRUE(f.pieces[1].special);
  EXPECT_EQ(f.pieces[1].conv, 'b');
  EXPECT_EQ(f.pieces[1].width, 2);
  EXPECT_EQ(f.pieces[1].first_arg, 1u);
  EXPECT_EQ(f.pieces[2].kernel_format, "c");
  EXPECT_EQ(f.pieces[2].nargs, 0u);
  EXPECT_EQ(f.pieces[3].conv, 'M');
  EXPECT_EQ(f.pieces[3].width, 10);
  EXPECT_EQ(f.pieces[3].precision, 4);
  EXPECT_EQ(f.pieces[5].conv, 'm');
  EXPECT_EQ(f.pieces[5].precision, -2);
  EXPECT_EQ(f.pieces[5].nargs, 2u);
  EXPECT_EQ(f.pieces[7].conv, 'c');
  EXPECT_EQ(f.pieces[7].flags, "#");
  EXPECT_EQ(f.pieces[8].kernel_format, "f");
  ASSERT_EQ(f.conversions.size(), 6u);
  EXPECT_EQ(f.conversions[3].conv, '*');
  for (const FormatConversion& c : f.conversions) EXPECT_EQ(c.type, ast::Type::Long);
}

TEST(Format, BadConversionsAreErrors) {
  EXPECT_FALSE(parse_format("%q").error.empty());
  EXPECT_FALSE(parse_format("100%").error.empty());
  EXPECT_FALSE(parse_format("%3b").error.empty());
  EXPECT_TRUE(parse_format("%8b").error.empty());
  EXPECT_TRUE(parse_format("no conversions").conversions.empty());
}

// What pass 1 rejects (stap's parser does): a bad or missing conversion
// letter, or flags/width cut off by the end; "%3b" only pass 2 rejects.
TEST(Format, SyntaxErrorsAreClassifiedForPass1) {
  using S = ParsedFormat::Syntax;
  EXPECT_EQ(parse_format("%q").syntax, S::BadConversion);
  EXPECT_EQ(parse_format("100%").syntax, S::BadConversion);
  EXPECT_EQ(parse_format("%*%").syntax, S::BadConversion);
  EXPECT_EQ(parse_format("%lld").syntax, S::BadConversion);
  EXPECT_EQ(parse_format("%l%").syntax, S::BadConversion);
  EXPECT_EQ(parse_format("%-5").syntax, S::Trailing);
  EXPECT_EQ(parse_format("%.2").syntax, S::Trailing);
  EXPECT_EQ(parse_format("%3b").syntax, S::Ok);
  EXPECT_EQ(parse_format("%d").syntax, S::Ok);
}

TEST(Format, OneLongModifierIsAccepted) {
  ParsedFormat f = parse_format("%ld|%-5lx|%lu|%ls");
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.pieces.size(), 1u);
  EXPECT_EQ(f.pieces[0].kernel_format, "%lld|%-5llx|%llu|%s");
  ASSERT_EQ(f.conversions.size(), 4u);
  EXPECT_EQ(f.conversions[3].type, ast::Type::String);
}

// What each cut piece holds: "L:text" for a literal, "F:format/first_arg/nargs" for vsnprintf.
std::vector<std::string> cuts(const std::string& format, size_t piece = 0) {
  ParsedFormat f = parse_format(format);
  EXPECT_TRUE(f.error.empty()) << f.error;
  std::vector<std::string> out;
  for (const FormatPiece& p : cut_literal_runs(f.pieces.at(piece)))
    out.push_back(p.literal ? "L:" + p.kernel_format
                            : "F:" + p.kernel_format + "/" + std::to_string(p.first_arg) + "/" + std::to_string(p.nargs));
  return out;
}

TEST(Format, LongLiteralRunsAreCutOut) {
  std::string pad(40, 'x');
  using V = std::vector<std::string>;
  // No conversion: all of it, %% undone.
  EXPECT_EQ(cuts("100%% done\n"), (V{"L:100% done\n"}));
  // At an end, 8 bytes are enough; inside, 32.
  EXPECT_EQ(cuts("o %d " + pad + "\n"), (V{"F:o %lld/0/1", "L: " + pad + "\n"}));
  EXPECT_EQ(cuts("pid=%d\n"), (V{"F:pid=%lld\n/0/1"}));
  EXPECT_EQ(cuts("process %s exits\n"), (V{"L:process ", "F:%s exits\n/0/1"}));  // 8 bytes, and 7
  EXPECT_EQ(cuts("%d, %d" + pad + "%*d%%" + pad + "%s"),
            (V{"F:%lld, %lld/0/2", "L:" + pad, "F:%*lld/2/2", "L:%" + pad, "F:%s/4/1"}));
  // A short run inside keeps its escaped %.
  EXPECT_EQ(cuts("%d%%%d"), (V{"F:%lld%%%lld/0/2"}));
  // Pieces after a special conversion keep their argument numbers.
  EXPECT_EQ(cuts("%b" + pad + "%d", 1), (V{"L:" + pad, "F:%lld/1/1"}));
}

}  // namespace
}  // namespace stapx
