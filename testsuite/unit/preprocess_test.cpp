// Pass 1 preprocessing: conditionals, macros, arguments, and runaway input.
#include <gtest/gtest.h>

#include "frontend/preprocess.h"
#include "test_util.h"

namespace stapx::test {
namespace {

// Preprocesses and parses `text`; returns the -p1 print or the diagnostics.
std::string pre(const std::string& text, PreprocessFacts facts = {}) {
  SourceManager sm;
  std::ostringstream diag_text;
  DiagSink diags(sm, diag_text);
  MacroTable macros;
  uint32_t f = preprocess(sm, sm.add("<input>", text), facts, macros, diags);
  ast::Arena arena;
  ast::Script* s = parse_file(sm, f, arena, diags, ParseOptions{facts.args, false});
  if (diags.errors()) return diag_text.str();
  std::ostringstream out;
  print_script(out, *s);
  return out.str();
}

TEST(Preprocess, ConditionalsChooseTokens) {
  PreprocessFacts facts;
  facts.kernel_v = "6.1.0";
  facts.kernel_vr = "6.1.0-56-amd64";
  facts.config.set("CONFIG_SMP", "y");
  EXPECT_NE(pre("probe begin { x = %( kernel_v >= \"5.10\" %? 1 %: 2 %) }", facts).find("(x = 1)"),
            std::string::npos);
  EXPECT_NE(pre("probe begin { x = %( kernel_vr == \"6.1.*\" && arch != \"arm*\" %? 3 %: 4 %) }", facts)
                .find("(x = 3)"),
            std::string::npos);
  EXPECT_NE(pre("probe begin { x = %( CONFIG_SMP == \"y\" || CONFIG_NOPE == \"y\" %? 5 %) }", facts)
                .find("(x = 5)"),
            std::string::npos);
  // Nested, and the untaken branch may hold anything.
  EXPECT_NE(pre("probe begin { x = %( 1 == 2 %? **junk** %: %( \"a\" < \"b\" %? 7 %: 8 %) %) }").find("(x = 7)"),
            std::string::npos);
}

TEST(Preprocess, KernelConfigReadsTheSetLinesOfADotConfig) {
  KernelConfig c = KernelConfig::from_text(
      "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
      "CONFIG_SMP=y\n"
      "# CONFIG_NOPE is not set\n"
      "CONFIG_EXT4_FS=m\n"
      "CONFIG_LOCALVERSION=\"-amd64\"\n"
      "CONFIG_EMPTY=\"\"\n"
      "CONFIG_HZ=100\n"
      "CONFIG_HZ=250\n"
      "CONFIG_NO_EQUALS\n"
      "CONFIG_LAST=0x10");  // no final newline
  EXPECT_EQ(c.find("CONFIG_SMP"), "y");
  EXPECT_EQ(c.find("CONFIG_EXT4_FS"), "m");
  EXPECT_EQ(c.find("CONFIG_LOCALVERSION"), "\"-amd64\"");  // strings keep their quotes
  EXPECT_EQ(c.find("CONFIG_EMPTY"), "\"\"");
  EXPECT_EQ(c.find("CONFIG_HZ"), "250");  // the last setting wins
  EXPECT_EQ(c.find("CONFIG_LAST"), "0x10");
  EXPECT_FALSE(c.find("CONFIG_NOPE"));
  EXPECT_FALSE(c.find("CONFIG_NO_EQUALS"));
  EXPECT_FALSE(c.find("CONFIG_SM"));
  EXPECT_EQ(c.size(), 6u);

  // A copy looks at the same text; set() values outlive their arguments.
  KernelConfig copy = c;
  {
    std::string name = "CONFIG_SET", value = "y";
    copy.set(name, value);
    copy.set("CONFIG_HZ", "1000");
  }
  c = KernelConfig{};
  EXPECT_EQ(copy.find("CONFIG_SET"), "y");
  EXPECT_EQ(copy.find("CONFIG_HZ"), "1000");
  EXPECT_EQ(copy.find("CONFIG_LOCALVERSION"), "\"-amd64\"");
  EXPECT_FALSE(c.find("CONFIG_SMP"));
}

TEST(Preprocess, MacrosExpandWithArgumentsAndShowTheChain) {
  EXPECT_NE(pre("@define add(a, b) %( ((@a) + (@b)) %)\nprobe begin { x = @add(1, 2 * 3) }").find("(1 + (2 * 3))"),
            std::string::npos);
  std::string err = pre("@define bad %( (1 + ) %)\nprobe begin { x = @bad }");
  EXPECT_NE(err.find("in expansion of macro: operator '@bad' at <input>:2:19"), std::string::npos) << err;
}

// Whether pre(text) printed `want`; the print or diagnostics if not.
::testing::AssertionResult Has(const std::string& text, const std::string& want) {
  std::string got = pre(text);
  if (got.find(want) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no \"" << want << "\" in:\n" << got;
}

TEST(Preprocess, WhatAConditionalDropsIsNotExpanded) {
  // As stap: a dropped call is not expanded, so its errors are not
  // reported, and a dropped @define is not made.
  EXPECT_TRUE(Has("@define two(a, b) %( 1 %)\nprobe begin { x = %( arch == \"nope\" %? @two(1) %: 2 %) }",
                  "(x = 2)"));
  EXPECT_TRUE(Has("probe begin { x = %( arch == \"nope\" %? @nosuch(1) %: 2 %) }", "(x = 2)"));
  EXPECT_TRUE(Has("%( arch == \"nope\" %? @define two %( 1 %) %: @define two %( 2 %) %)\nprobe begin { x = @two }",
                  "(x = 2)"));
  // Nor in a macro's body, whatever its arguments hold.
  EXPECT_TRUE(Has("@define two(a, b) %( 1 %)\n@define m %( %( arch == \"nope\" %? @two(1) %: 2 %) %)\n"
                  "probe begin { x = @m }",
                  "(x = 2)"));
  EXPECT_TRUE(Has("@define m(a) %( %( arch == \"nope\" %? @a %: 2 %) %)\nprobe begin { x = @m(%( 1 %)) }", "(x = 2)"));
  EXPECT_TRUE(Has("@define m(a) %( %( arch == \"nope\" %? @a %: 2 %) %)\nprobe begin { x = @m(@nosuch) }", "(x = 2)"));
  // A kept call is expanded and checked.
  EXPECT_TRUE(Has("@define two(a, b) %( 1 %)\nprobe begin { x = %( arch == \"x86_64\" %? @two(1) %: 2 %) }",
                  "too few parameters for macro '@two'"));
}

TEST(Preprocess, AMacroBodysConditionalsChooseAsAtEachCall) {
  // Chosen once, at the definition: parameters in both branches, nested calls.
  std::string nested = pre("@define pick(a) %( %( arch == \"x86_64\" %? @a + 1 %: @a + 2 %) %)\n"
                           "probe begin { x = @pick(5) y = @pick(@pick(7)) }");
  EXPECT_NE(nested.find("(x = (5 + 1))"), std::string::npos) << nested;
  EXPECT_NE(nested.find("(y = ((7 + 1) + 1))"), std::string::npos) << nested;
  // A condition on a parameter is chosen at each call.
  std::string per_call = pre("@define m(a) %( %( @a == 1 %? 10 %: 20 %) %)\nprobe begin { x = @m(1) y = @m(2) }");
  EXPECT_NE(per_call.find("(x = 10)"), std::string::npos) << per_call;
  EXPECT_NE(per_call.find("(y = 20)"), std::string::npos) << per_call;
  // An erroneous condition is reported where the macro is expanded, with
  // the expansion chain, and not at all if it never is.
  EXPECT_TRUE(Has("@define bad %( %( nonsense %? 1 %: 2 %) %)\nprobe begin { x = 1 }", "(x = 1)"));
  EXPECT_TRUE(Has("@define bad %( %( nonsense %? 1 %: 2 %) %)\nprobe begin { x = @bad }",
                  "at: identifier 'nonsense' at <input>:1:19"));
  EXPECT_TRUE(Has("@define bad %( %( nonsense %? 1 %: 2 %) %)\nprobe begin { x = @bad }",
                  "in expansion of macro: operator '@bad' at <input>:2:19"));
  EXPECT_TRUE(Has("@define m(a) %( @a %)\nprobe begin { x = @m(@nosuch) }",
                  "in expansion of macro: operator '@a' at <input>:1:17"));
  // A call read as part of a condition brings the body's conditional into
  // it: an error, as in stap.
  EXPECT_TRUE(Has("@define m %( %( arch == \"x86_64\" %? 1 %: 2 %) %)\nprobe begin { x = %( @m == 1 %? 3 %: 4 %) }",
                  "parse error"));
}

TEST(Preprocess, LaterLibraryFileReplacesAnEarlierOnesMacro) {
  SourceManager sm;
  std::ostringstream diag_text;
  DiagSink diags(sm, diag_text);
  MacroTable macros;
  // stapx's own tapsets first, then an -I directory's file of the same macro.
  preprocess(sm, sm.add("ours.stpm", "@define pick(a, b) %( @a %)"), {}, macros, diags, true);
  preprocess(sm, sm.add("theirs.stpm", "@define pick(a, b) %( @b %)"), {}, macros, diags, true);
  EXPECT_EQ(diags.errors(), 0u) << diag_text.str();
  uint32_t f = preprocess(sm, sm.add("<input>", "probe begin { x = @pick(1, 2) }"), {}, macros, diags);
  ast::Arena arena;
  ast::Script* script = parse_file(sm, f, arena, diags, ParseOptions{});
  ASSERT_EQ(diags.errors(), 0u) << diag_text.str();
  std::ostringstream out;
  print_script(out, *script);
  EXPECT_NE(out.str().find("(x = 2)"), std::string::npos) << out.str();
  // Within one file, a second definition is still an error.
  preprocess(sm, sm.add("dup.stpm", "@define twice %( 1 %)\n@define twice %( 2 %)"), {}, macros, diags, true);
  EXPECT_NE(diag_text.str().find("attempt to redefine macro '@twice' in the same file"), std::string::npos) << diag_text.str();
}

TEST(Preprocess, MacroTableScopesAndGrowth) {
  // Names alike at both ends and of one length, a table's worth several
  // times over (it grows), each found as its own.
  MacroTable t;
  auto name = [](int i) { return fmt::format("_SYSCALL_{:05d}_REGARGS", i); };
  for (int i = 0; i < 2000; ++i) {
    MacroTable::Macro m;
    m.file = 1;
    m.params = {std::to_string(i)};
    ASSERT_TRUE(t.define(1, name(i), m, /*library=*/true));
  }
  for (int i = 0; i < 2000; ++i) {
    const MacroTable::Macro* m = t.find(7, name(i));
    ASSERT_TRUE(m);
    EXPECT_EQ(m->params, std::vector<std::string>{std::to_string(i)});
  }
  EXPECT_FALSE(t.find(7, "_SYSCALL_02000_REGARGS"));
  // A file's own definition hides the library's there only; a second in
  // the same file is refused; another file may have its own.
  MacroTable::Macro own;
  own.file = 3;
  own.params = {"own"};
  EXPECT_TRUE(t.define(3, name(5), own, false));
  EXPECT_FALSE(t.define(3, name(5), own, false));
  own.file = 4;
  own.params = {"four"};
  EXPECT_TRUE(t.define(4, name(5), own, false));
  EXPECT_EQ(t.find(3, name(5))->params, std::vector<std::string>{"own"});
  EXPECT_EQ(t.find(4, name(5))->params, std::vector<std::string>{"four"});
  EXPECT_EQ(t.find(5, name(5))->params, std::vector<std::string>{"5"});
  // A file's own macro of a name no library file has.
  EXPECT_TRUE(t.define(3, "mine", own, false));
  EXPECT_TRUE(t.find(3, "mine"));
  EXPECT_FALSE(t.find(5, "mine"));
}

TEST(Preprocess, KernelConfigGrowsPastItsFirstGuess) {
  // set() one by one, far past the first table, with names alike at both ends.
  KernelConfig c;
  for (int i = 0; i < 5000; ++i) c.set(fmt::format("CONFIG_X{:05d}_Y", i), std::to_string(i));
  EXPECT_EQ(c.size(), 5000u);
  for (int i = 0; i < 5000; i += 7) EXPECT_EQ(c.find(fmt::format("CONFIG_X{:05d}_Y", i)), std::to_string(i));
  EXPECT_FALSE(c.find("CONFIG_X05000_Y"));
}

TEST(Preprocess, ArgumentsAreTokens) {
  PreprocessFacts facts;
  facts.args = {"kernel.function(\"vfs_read\")", "gettimeofday_us()", "text"};
  std::string out = pre("probe $1 { x = $2; s = @3; n = $# }", facts);
  EXPECT_NE(out.find("probe kernel.function(\"vfs_read\")"), std::string::npos) << out;
  EXPECT_NE(out.find("(x = gettimeofday_us())"), std::string::npos) << out;
  EXPECT_NE(out.find("(s = \"text\")"), std::string::npos) << out;
  EXPECT_NE(out.find("(n = 3)"), std::string::npos) << out;
  // A missing argument is an error only where a conditional keeps it.
  EXPECT_NE(pre("probe begin { x = %( $# > 4 %? $5 %: 0 %) }", facts).find("(x = 0)"), std::string::npos);
  EXPECT_NE(pre("probe begin { x = $5 }", facts).find("out of range [1-3]"), std::string::npos);
}

TEST(Preprocess, HugeArgumentIndexesAreErrorsNotExceptions) {
  PreprocessFacts facts;
  facts.args = {"1"};
  std::string huge(80, '1');
  EXPECT_NE(pre("%( @" + huge + " == \"foo\" %? probe begin { } %: probe end { } %)", facts).find("parse error"),
            std::string::npos);
  EXPECT_NE(pre("probe begin { x = $" + huge + " }", facts).find("out of range"), std::string::npos);
}

TEST(Preprocess, RunawayMacrosStopQuickly) {
  std::string chain = "@define m0 %( 1 %)\n";
  for (int i = 1; i < 40; ++i)
    chain += "@define m" + std::to_string(i) + " %( @m" + std::to_string(i - 1) + " @m" +
             std::to_string(i - 1) + " %)\n";
  chain += "probe begin { @m39 }\n";
  EXPECT_NE(pre(chain).find("is too large"), std::string::npos);
  EXPECT_NE(pre("@define m %( @m @m %)\nprobe begin { @m }").find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace stapx::test
