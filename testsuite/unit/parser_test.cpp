// Pass 1: grammar, precedence, literals, diagnostics and the -p1 round trip.
#include <gtest/gtest.h>

#include "test_util.h"

namespace stapx::test {
namespace {

std::string expr_of(const std::string& e) {
  Parsed p("probe begin { x = " + e + " }");
  EXPECT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  auto* st = static_cast<ast::ExprStmt*>(p.script->probes.at(0)->body->stmts.at(0));
  auto* a = static_cast<ast::AssignExpr*>(st->expr);
  std::ostringstream out;
  print_expr(out, a->rhs);
  return out.str();
}

TEST(Parser, BinaryPrecedenceFollowsStap) {
  EXPECT_EQ(expr_of("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(expr_of("1 - 2 - 3"), "((1 - 2) - 3)");
  EXPECT_EQ(expr_of("a . b + c"), "(a . (b + c))");
  EXPECT_EQ(expr_of("a || b && c | d ^ e & f"), "(a || (b && (c | (d ^ (e & f)))))");
  EXPECT_EQ(expr_of("a < b == c"), "((a < b) == c)");
  EXPECT_EQ(expr_of("1 << 2 + 3"), "(1 << (2 + 3))");
  EXPECT_EQ(expr_of("a == b ? c : d ? e : f"), "((a == b) ? c : (d ? e : f))");
  EXPECT_EQ(expr_of("-a * !b"), "((-a) * (!b))");
  EXPECT_EQ(expr_of("k in arr && 1"), "(([k] in arr) && 1)");
  EXPECT_EQ(expr_of("[1, \"s\"] in arr"), "([1, \"s\"] in arr)");
}

TEST(Parser, AssignmentIsRightAssociative) {
  Parsed p("probe begin { a = b += c }");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  EXPECT_NE(p.printed().find("(a = (b += c))"), std::string::npos) << p.printed();
}

TEST(Parser, CompoundOperatorsAreNotSplit) {
  Parsed p("probe begin { a <<= 2; b .= \"x\"; c >>>= 1; d <<< 3; e = f < -1 }");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  std::string s = p.printed();
  for (const char* want : {"(a <<= 2)", "(b .= \"x\")", "(c >>>= 1)", "(d <<< 3)", "(e = (f < (-1)))"})
    EXPECT_NE(s.find(want), std::string::npos) << want << " in\n" << s;
}

TEST(Parser, NumberLiterals) {
  EXPECT_EQ(expr_of("0x10 + 010 + 10"), "((16 + 8) + 10)");
  EXPECT_EQ(expr_of("0xffffffffffffffff"), "0xffffffffffffffff");
  Parsed bad("probe begin { x = 09 }");
  EXPECT_EQ(bad.diags.parse_errors(), 1u);
  EXPECT_NE(bad.diag_text.str().find("number invalid or out of range"), std::string::npos);
}

TEST(Parser, StringEscapes) {
  Parsed p(R"(probe begin { x = "a\tb\n\"q\"\\\101\x42" })");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  auto* st = static_cast<ast::ExprStmt*>(p.script->probes[0]->body->stmts[0]);
  auto* lit = static_cast<ast::StringLit*>(static_cast<ast::AssignExpr*>(st->expr)->rhs);
  EXPECT_EQ(lit->value, "a\tb\n\"q\"\\AB");
}

TEST(Parser, ErrorHasStapLayoutWithCaret) {
  Parsed p("probe begin { x = 1 + }");
  EXPECT_EQ(p.diags.parse_errors(), 1u);
  EXPECT_EQ(p.diag_text.str(),
            "parse error: expected literal string or number\n"
            "        saw: operator '}' at <input>:1:23\n"
            "     source: probe begin { x = 1 + }\n"
            "                                   ^\n\n");
}

TEST(Parser, RecoversAtNextDeclaration) {
  Parsed p("probe begin { x = }\nprobe end { y = ( }\nprobe timer.ms(1) { z = 1 }\n");
  EXPECT_EQ(p.diags.parse_errors(), 2u) << p.diag_text.str();
  EXPECT_EQ(p.script->probes.size(), 1u);
}

TEST(Parser, BytesOutsideAsciiOnlyInStringsAndComments) {
  Parsed ok("probe begin { print(\"h\xc3\xa9\") } # caf\xc3\xa9\n");
  EXPECT_EQ(ok.diags.errors(), 0u) << ok.diag_text.str();
  Parsed bad("probe begin { print(\xe2\x80\x9chello\xe2\x80\x9d) }");
  EXPECT_EQ(bad.diags.parse_errors(), 1u);
  // As stap: junk the parser met where it expected an argument.
  EXPECT_NE(bad.diag_text.str().find("saw: junk '\\xe2' at"), std::string::npos) << bad.diag_text.str();
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '(');
  Parsed p("probe begin { x = " + deep + " }");
  EXPECT_EQ(p.diags.parse_errors(), 1u);
  EXPECT_NE(p.diag_text.str().find("nested too deeply"), std::string::npos);
}

TEST(Parser, ProbePointsAndDeclarations) {
  Parsed q(
      "global a, b[100], c = 5, d = \"s\"\n"
      "function f:long (x:long, y) { return x }\n"
      "probe kprobe.function(\"ksys_read\").return, timer.ms(100)?, begin(-1)! { next }\n");
  ASSERT_EQ(q.diags.errors(), 0u) << q.diag_text.str();
  ASSERT_EQ(q.script->globals.size(), 4u);
  EXPECT_TRUE(q.script->globals[1]->sized);
  EXPECT_EQ(q.script->globals[1]->max_entries, 100);
  ASSERT_EQ(q.script->functions.size(), 1u);
  EXPECT_EQ(q.script->functions[0]->declared, ast::Type::Long);
  ASSERT_EQ(q.script->probes[0]->points.size(), 3u);
  EXPECT_EQ(q.script->probes[0]->points[0]->to_string(), "kprobe.function(\"ksys_read\").return");
  EXPECT_TRUE(q.script->probes[0]->points[1]->optional);
  EXPECT_TRUE(q.script->probes[0]->points[2]->sufficient);
  EXPECT_EQ(q.script->probes[0]->points[2]->to_string(), "begin(-1)!");
}

TEST(Parser, BraceGroupsMultiplyOut) {
  Parsed p("probe kernel.{function(\"a\"), function(\"b\")}.return, {x, y}.z { }");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  std::vector<std::string> pts;
  for (auto* pt : p.script->probes[0]->points) pts.push_back(pt->to_string());
  EXPECT_EQ(pts, (std::vector<std::string>{"kernel.function(\"a\").return", "kernel.function(\"b\").return",
                                           "x.z", "y.z"}));
}

TEST(Parser, CommentsOfAllThreeKinds) {
  Parsed p("# hash\nprobe begin { // line\n x = 1 /* block\n */ + 2 }\n");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
}

TEST(Parser, PrintedScriptParsesToTheSameText) {
  const char* src =
      "global n, s\n"
      "function f(a, b) { if (a > b) return a; else return b }\n"
      "probe begin { for (i = 0; i < 10; i++) { n += f(i, 3) * -2; if (i == 5) break; }\n"
      "  while (n) { n--; continue } s = \"x\\ty\" . sprintf(\"%d\", n); delete s\n"
      "  foreach ([k, v-] in arr limit 3) next; x = a ? b : c; y = !z }\n";
  Parsed p(src);
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  std::string once = p.printed();
  Parsed again(once);
  ASSERT_EQ(again.diags.errors(), 0u) << again.diag_text.str() << once;
  EXPECT_EQ(again.printed(), once);
}

}  // namespace
}  // namespace stapx::test
