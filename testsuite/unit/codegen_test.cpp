// Pass 3: meaningful lines of the generated C (never whole files).
#include <gtest/gtest.h>

#include "test_util.h"
#include "translator/codegen/codegen.h"

namespace stapx::test {
namespace {

std::string c_for(const std::string& text) {
  Parsed p(text);
  Program prog = elaborate({p.script}, ElaborateOptions{}, p.arena, p.diags);
  EXPECT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  return generate_c(prog, p.sm, CodegenOptions{"m", {{"MAXACTION", "5"}}});
}

TEST(Codegen, TunablesComeFirst) {
  std::string c = c_for("probe begin { }");
  EXPECT_LT(c.find("#define MAXACTION 5"), c.find("#include \"runtime_defs.h\""));
}

TEST(Codegen, DivisionChecksForZeroWithTheScriptLocation) {
  std::string c = c_for("probe begin { x = 1; y = 10 / x }");
  EXPECT_NE(c.find("STPX_ERROR(\"division by zero\", \"operator '/' at <input>:1:29\")"), std::string::npos)
      << c;
}

TEST(Codegen, ProbesLockOnlyTheGlobalsTheyTouch) {
  std::string c = c_for("global a, b probe begin { a = 1 } probe end { x = b + 1 }");
  EXPECT_NE(c.find("static const struct _stpx_lock_req _stpx_locks_p0[] = {\n\t{ &_stpx_locks[0], 1 },\n};"),
            std::string::npos) << c;
  EXPECT_NE(c.find("static const struct _stpx_lock_req _stpx_locks_p1[] = {\n\t{ &_stpx_locks[1], 0 },\n};"),
            std::string::npos) << c;
  std::string local = c_for("probe begin { x = 1 }");
  EXPECT_NE(local.find(".locks = NULL, .nlocks = 0"), std::string::npos);
}

TEST(Codegen, KprobeTableAndArming) {
  std::string c = c_for("probe kprobe.function(\"vfs_read\").return { }");
  EXPECT_NE(c.find(".symbol = \"vfs_read\", .is_return = 1"), std::string::npos) << c;
  EXPECT_NE(c.find("rc = _stpx_kprobes_arm(_stpx_kprobes, ARRAY_SIZE(_stpx_kprobes));"), std::string::npos);
  EXPECT_NE(c.find("_stpx_kprobes_disarm(_stpx_kprobes, ARRAY_SIZE(_stpx_kprobes));"), std::string::npos);
}

TEST(Codegen, PrintfFormatIsRewrittenAtCompileTime) {
  std::string c = c_for("probe begin { printf(\"%d %s\\n\", 1, \"a\") }");
  EXPECT_NE(c.find("_stpx_printf(c, \"%lld %s\\n\", (long long)a1_"), std::string::npos) << c;
}

TEST(Codegen, StringLocalsLiveInTheFrame) {
  std::string c = c_for("probe begin { s = \"a\" . \"b\"; println(s) }");
  EXPECT_NE(c.find("char v_s[MAXSTRINGLEN];"), std::string::npos) << c;
  EXPECT_NE(c.find("char t0[MAXSTRINGLEN];"), std::string::npos) << c;
}

TEST(Codegen, EachRegexIsEmittedOnceAsTables) {
  std::string c = c_for(
      "function f(s) { return s =~ \"^ab+$\" } "
      "probe begin { x = f(\"abb\"); y = \"b\" !~ \"^ab+$\"; z = \"c\" =~ \"c\"; print(x, y, z) }");
  EXPECT_NE(c.find("static const u8 _stpx_re_0_classes[256] = {"), std::string::npos) << c;
  EXPECT_NE(c.find("static const struct _stpx_dfa _stpx_re_1 = {"), std::string::npos) << c;
  EXPECT_EQ(c.find("_stpx_re_2"), std::string::npos) << "a pattern used twice has one table";
  EXPECT_NE(c.find("((int64_t)_stpx_regex_match(&_stpx_re_0, "), std::string::npos) << c;
  EXPECT_NE(c.find("((int64_t)!_stpx_regex_match(&_stpx_re_0, "), std::string::npos) << c;
  EXPECT_LT(c.find("_stpx_re_0 = {"), c.find("_stpx_regex_match(&_stpx_re_0")) << "tables precede their uses";
}

}  // namespace
}  // namespace stapx::test
