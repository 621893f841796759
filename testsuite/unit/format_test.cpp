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

// What each cut piece holds: "L:text" for a literal, "P:conv/arg" for a plain
// conversion, "F:format/first_arg/nargs" for vsnprintf.
std::vector<std::string> cuts(const std::string& format, size_t piece = 0) {
  ParsedFormat f = parse_format(format);
  EXPECT_TRUE(f.error.empty()) << f.error;
  std::vector<std::string> out;
  for (const FormatPiece& p : cut_for_output(f.pieces.at(piece)))
    out.push_back(p.literal ? "L:" + p.kernel_format
                  : p.plain ? std::string("P:") + p.conv + "/" + std::to_string(p.first_arg)
                            : "F:" + p.kernel_format + "/" + std::to_string(p.first_arg) + "/" + std::to_string(p.nargs));
  return out;
}

TEST(Format, PlainConversionsAndLiteralsAreCutOut) {
  std::string pad(40, 'x');
  using V = std::vector<std::string>;
  // No conversion: all of it, %% undone.
  EXPECT_EQ(cuts("100%% done\n"), (V{"L:100% done\n"}));
  // %d, %i, %u, %x, %X, %s with nothing else: written by the runtime.
  EXPECT_EQ(cuts("o %d " + pad + "\n"), (V{"L:o ", "P:d/0", "L: " + pad + "\n"}));
  EXPECT_EQ(cuts("pid=%d\n"), (V{"L:pid=", "P:d/0", "L:\n"}));
  EXPECT_EQ(cuts("%i %ld %u %x %X %s"),
            (V{"P:d/0", "L: ", "P:d/1", "L: ", "P:u/2", "L: ", "P:x/3", "L: ", "P:X/4", "L: ", "P:s/5"}));
  EXPECT_EQ(cuts("process %s exits\n"), (V{"L:process ", "P:s/0", "L: exits\n"}));
  EXPECT_EQ(cuts("%d%%%d"), (V{"P:d/0", "L:%", "P:d/1"}));
  // Flags, a width or a precision, %o, %c, %p: vsnprintf, with the short
  // literal runs beside them (8 bytes on one side, 32 between two).
  EXPECT_EQ(cuts("pid=%5d\n"), (V{"F:pid=%5lld\n/0/1"}));
  EXPECT_EQ(cuts("%-5s|%d"), (V{"F:%-5s|/0/1", "P:d/1"}));
  EXPECT_EQ(cuts("process %#x\n"), (V{"L:process ", "F:%#llx\n/0/1"}));  // 8 bytes, and 1
  EXPECT_EQ(cuts("%o, %c; %p"), (V{"F:%llo, %c; %#llx/0/3"}));
  EXPECT_EQ(cuts("%d, %d" + pad + "%*d%%" + pad + "%s"),
            (V{"P:d/0", "L:, ", "P:d/1", "L:" + pad, "F:%*lld/2/2", "L:%" + pad, "P:s/4"}));
  EXPECT_EQ(cuts("%.3s%%%5d"), (V{"F:%.3s%%%5lld/0/2"}));
  // Pieces after a special conversion keep their argument numbers.
  EXPECT_EQ(cuts("%b" + pad + "%d", 1), (V{"L:" + pad, "P:d/1"}));
}

}  // namespace
}  // namespace stapx
