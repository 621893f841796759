// Pass 2: name resolution, type inference, probe point checks and the
// diagnostics they produce.
#include <gtest/gtest.h>

#include "test_util.h"

namespace stapx::test {
namespace {

struct Elaborated : Parsed {
  Program prog;
  explicit Elaborated(const std::string& text) : Parsed(text) {
    EXPECT_EQ(diags.parse_errors(), 0u) << diag_text.str();
    prog = elaborate({script}, ElaborateOptions{.keep_empty_probes = true}, arena, diags);
  }
  const ast::Symbol* global(const std::string& name) const {
    for (const ast::Symbol* s : prog.globals)
      if (s->name == name) return s;
    return nullptr;
  }
};

TEST(Elaborate, InfersTypesAcrossGlobalsFunctionsAndLocals) {
  Elaborated e(
      "global count, names\n"
      "function label(n) { return \"n=\" . sprintf(\"%d\", n) }\n"
      "probe begin { count++; names[count] = label(count); x = names[1]; println(x) }\n");
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  EXPECT_EQ(e.global("count")->type, ast::Type::Long);
  const ast::Symbol* names = e.global("names");
  EXPECT_EQ(names->type, ast::Type::String);
  ASSERT_EQ(names->arity, 1);
  EXPECT_EQ(names->key_types[0], ast::Type::Long);
  ASSERT_EQ(e.prog.functions.size(), 1u);
  EXPECT_EQ(e.prog.functions[0]->type, ast::Type::String);
  EXPECT_EQ(e.prog.functions[0]->param_syms[0]->type, ast::Type::Long);
  ASSERT_EQ(e.script->probes[0]->locals.size(), 1u);
  EXPECT_EQ(e.script->probes[0]->locals[0]->type, ast::Type::String);
}

TEST(Elaborate, ParameterTypeComesFromCallSite) {
  Elaborated e("function id(v) { return v } probe begin { s = id(\"x\") . \"y\" }");
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  EXPECT_EQ(e.prog.functions[0]->param_syms[0]->type, ast::Type::String);
}

TEST(Elaborate, TypeMismatchNamesBothSites) {
  Elaborated e("probe begin { x = 1; x = \"a\" }");
  EXPECT_EQ(e.diags.semantic_errors(), 2u) << e.diag_text.str();
  std::string d = e.diag_text.str();
  // As stap: the use that wants another type, then where the type came from.
  EXPECT_NE(d.find("semantic error: type mismatch (string): identifier 'x' at <input>:1:22"),
            std::string::npos) << d;
  EXPECT_NE(d.find("type was first inferred here (long): identifier 'x' at <input>:1:15"),
            std::string::npos) << d;
}

TEST(Elaborate, UnresolvedTypeAndNeverAssignedWarning) {
  Elaborated e("probe begin { print(y) }");
  std::string d = e.diag_text.str();
  EXPECT_EQ(e.diags.semantic_errors(), 1u) << d;
  EXPECT_NE(d.find("WARNING: never-assigned local variable 'y': identifier 'y' at <input>:1:21"),
            std::string::npos) << d;
  EXPECT_NE(d.find("semantic error: unresolved type: identifier 'y' at <input>:1:21"), std::string::npos)
      << d;
}

TEST(Elaborate, ArraysMustBeGlobalAndKeepTheirArity) {
  Elaborated local("probe begin { a[1] = 2 }");
  EXPECT_NE(local.diag_text.str().find("unresolved arity-1 global array a, missing global declaration?"), std::string::npos);
  Elaborated arity("global a probe begin { a[1] = 2; a[1, 2] = 3 }");
  EXPECT_NE(arity.diag_text.str().find("inconsistent arity (1 vs 2)"), std::string::npos)
      << arity.diag_text.str();
  Elaborated scalar("global a probe begin { a = 1; a[1] = 2 }");
  EXPECT_NE(scalar.diag_text.str().find("inconsistent arity (0 vs 1)"), std::string::npos)
      << scalar.diag_text.str();
}

TEST(Elaborate, FunctionsAndCalls) {
  Elaborated unknown("probe begin { nosuch(1) }");
  EXPECT_NE(unknown.diag_text.str().find("semantic error: unresolved function nosuch: identifier 'nosuch'"),
            std::string::npos) << unknown.diag_text.str();
  Elaborated count("function f(a, b) { return a + b } probe begin { x = f(1) }");
  EXPECT_NE(count.diag_text.str().find("arity mismatch found (function 'f' takes 2 args)"),
            std::string::npos) << count.diag_text.str();
  Elaborated dup("function f() { return 1 } function f() { return 2 } probe begin { f() }");
  EXPECT_NE(dup.diag_text.str().find("duplicate function definition 'f'"), std::string::npos);
}

TEST(Elaborate, PrintfFormatIsChecked) {
  Elaborated few("probe begin { printf(\"%d %s\\n\", 1) }");
  EXPECT_NE(few.diag_text.str().find("Wrong number of args to formatted print operator"), std::string::npos)
      << few.diag_text.str();
  Elaborated type("probe begin { printf(\"%d\\n\", \"str\") }");
  EXPECT_NE(type.diag_text.str().find("type mismatch: expected long but found string: string 'str'"),
            std::string::npos)
      << type.diag_text.str();
  Elaborated bad("probe begin { printf(\"%q\\n\", 1) }");
  EXPECT_NE(bad.diag_text.str().find("invalid or unsupported conversion '%q'"), std::string::npos);
}

TEST(Elaborate, JumpsOnlyWhereTheyMeanSomething) {
  Elaborated brk("probe begin { break }");
  EXPECT_NE(brk.diag_text.str().find("'break' outside of a loop"), std::string::npos);
  Elaborated next("function f() { next } probe begin { f() }");
  EXPECT_NE(next.diag_text.str().find("'next' outside of a probe handler"), std::string::npos);
  Elaborated ret("probe begin { return 1 }");
  EXPECT_NE(ret.diag_text.str().find("'return' outside of a function"), std::string::npos);
}

TEST(Elaborate, ProbePointsAreResolvedByTheirFamily) {
  Elaborated ok(
      "probe begin, end(5), timer.ms(100), timer.s(2), kprobe.function(\"vfs_read\"),"
      " kprobe.function(\"vfs_read\").return { }");
  ASSERT_EQ(ok.diags.errors(), 0u) << ok.diag_text.str();
  ASSERT_EQ(ok.prog.probes.size(), 6u);
  EXPECT_STREQ(ok.prog.probes[1].family->name(), "end");
  EXPECT_STREQ(ok.prog.probes[2].family->name(), "timer");
  EXPECT_EQ(ok.prog.probes[3].pp, "timer.s(2)");
  EXPECT_EQ(ok.prog.probes[4].probefunc, "vfs_read");
  EXPECT_EQ(ok.prog.probes[4].entry_symbol, "vfs_read");
  EXPECT_TRUE(ok.prog.probes[0].probefunc.empty());
  EXPECT_FALSE(ok.prog.probes[4].is_return);
  EXPECT_TRUE(ok.prog.probes[5].is_return);

  Elaborated unknown("probe nosuch.point { }");
  EXPECT_NE(unknown.diag_text.str().find("probe point mismatch: unknown probe point 'nosuch.point'"),
            std::string::npos) << unknown.diag_text.str();
  // stap's messages, from the grammar of probe points.
  Elaborated unit("probe timer.fortnight(1) { }");
  EXPECT_NE(unit.diag_text.str().find("probe point mismatch (similar: "), std::string::npos)
      << unit.diag_text.str();
  Elaborated noarg("probe kprobe.function { }");
  EXPECT_NE(noarg.diag_text.str().find("probe point mismatch (similar: function, module, statement)"), std::string::npos)
      << noarg.diag_text.str();
  Elaborated suffix("probe timer.ms(5).every { }");
  EXPECT_NE(suffix.diag_text.str().find("invalid suffix for probe: identifier 'every'"), std::string::npos)
      << suffix.diag_text.str();
  Elaborated truncated("probe timer { }");
  EXPECT_NE(truncated.diag_text.str().find("probe point truncated (follow:  hz(number) jiffies(number) ms(number) "
                                           "msec(number) ns(number) nsec(number) profile s(number) sec(number) "
                                           "us(number) usec(number))"),
            std::string::npos)
      << truncated.diag_text.str();
  Elaborated optional("probe timer.fortnight(1)?, begin { }");
  EXPECT_EQ(optional.diags.errors(), 0u) << optional.diag_text.str();
  EXPECT_EQ(optional.prog.probes.size(), 1u);
  Elaborated root("probe begin(\"x\") { }");
  EXPECT_NE(root.diag_text.str().find("probe point mismatch (similar: begin, end"), std::string::npos)
      << root.diag_text.str();
}

TEST(Elaborate, LockSetsFollowCallsTransitively) {
  Elaborated e(
      "global a, b, c\n"
      "function bump() { b++ }\n"
      "function read_c() { return c }\n"
      "probe begin { a = read_c(); bump() }\n"
      "probe end { c = 1 }\n");
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  const ast::ProbeDecl* p = e.script->probes[0];
  EXPECT_EQ(p->global_writes, (std::vector<int>{0, 1}));
  EXPECT_EQ(p->global_reads, (std::vector<int>{1, 2}));  // b++ reads b
}

TEST(Elaborate, RecursionRaisesNesting) {
  Elaborated flat("function f() { return 1 } function g() { return f() } probe begin { x = g() }");
  EXPECT_FALSE(flat.prog.recursive);
  EXPECT_EQ(flat.prog.max_nesting, 2);
  Elaborated rec("function f(n) { return n ? f(n - 1) : 0 } probe begin { x = f(3) }");
  EXPECT_TRUE(rec.prog.recursive);
  EXPECT_EQ(rec.prog.max_nesting, 11);
}

}  // namespace
}  // namespace stapx::test

namespace stapx::test {
namespace {

TEST(Elaborate, AliasesExpandWithCopiedPrologueAndEpilogue) {
  Elaborated e(
      "probe a = begin { x = 1 }\n"
      "probe b += a { y = x }\n"
      "probe c = end { s = \"p\" }, { t = s }\n"
      "probe b { z = 2 } probe b { w = 3 } probe c { s = s . \"q\" }\n");
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  ASSERT_EQ(e.prog.probes.size(), 3u);
  // Each use of b gets its own copy of a's prologue and b's epilogue.
  EXPECT_NE(e.prog.probes[0].decl, e.prog.probes[1].decl);
  EXPECT_NE(e.prog.probes[0].decl->body->stmts[0], e.prog.probes[1].decl->body->stmts[0]);
  EXPECT_EQ(e.prog.probes[0].pp, "begin");
  EXPECT_EQ(e.prog.probes[2].pp, "end");
  EXPECT_EQ(e.prog.probes[2].decl->body->stmts.size(), 3u);  // prologue, body, epilogue
}

TEST(Elaborate, AliasCyclesAndOptionalPoints) {
  // stap's words: at the point that closes the cycle (b, in a's body).
  Elaborated cyc("probe a = b { } probe b = a { } probe a { }");
  EXPECT_NE(cyc.diag_text.str().find("recursive loop in alias expansion of b at"), std::string::npos)
      << cyc.diag_text.str();
  // A chain without a cycle is still bounded.
  std::string chain;
  for (int i = 0; i < 40; ++i) chain += "probe a" + std::to_string(i) + " = a" + std::to_string(i + 1) + " { }\n";
  chain += "probe a40 = begin { }\nprobe a0 { }\n";
  Elaborated deep(chain);
  EXPECT_NE(deep.diag_text.str().find("nested too deeply"), std::string::npos) << deep.diag_text.str();
  Elaborated opt("probe nosuch.point ?, begin { }");
  EXPECT_EQ(opt.diags.errors(), 0u) << opt.diag_text.str();
  EXPECT_EQ(opt.prog.probes.size(), 1u);
}

}  // namespace
}  // namespace stapx::test

namespace stapx::test {
namespace {

TEST(Elaborate, GlobalValuesFromTheCommandLine) {
  auto run = [](std::vector<std::pair<std::string, std::string>> g, Program& prog, Parsed& p) {
    ElaborateOptions o;
    o.keep_empty_probes = true;  // (the cases are empty probes)
    o.global_values = std::move(g);
    prog = elaborate({p.script}, o, p.arena, p.diags);
  };
  Parsed num("global n, s = \"x\" probe begin { println(n + 1, s) }");
  Program prog;
  run({{"n", "0x10"}, {"s", "abc"}, {"nosuch", "1"}}, prog, num);
  ASSERT_EQ(num.diags.errors(), 0u) << num.diag_text.str();
  ASSERT_EQ(prog.globals.size(), 2u);
  ASSERT_TRUE(prog.globals[0]->init);
  EXPECT_EQ(static_cast<ast::NumberLit*>(prog.globals[0]->init)->value, 16);
  EXPECT_EQ(static_cast<ast::StringLit*>(prog.globals[1]->init)->value, "abc");
  Parsed bad("global n probe begin { println(n + 1) }");
  run({{"n", "abc"}}, prog, bad);
  EXPECT_NE(bad.diag_text.str().find("invalid -G value for global 'n': 'abc' is not a number"), std::string::npos)
      << bad.diag_text.str();
}

}  // namespace
}  // namespace stapx::test

namespace stapx::test {
namespace {

TEST(Elaborate, StoresNobodyReadsAreElidedWithStapsWarnings) {
  const char* text =
      "function f() { println(\"side\"); return 1 }\n"
      "probe begin { y = 2; z = f(); w = 3; println(w) }\n";
  Parsed p(text);
  Program prog = elaborate({p.script}, ElaborateOptions{.keep_empty_probes = true}, p.arena, p.diags);
  std::string d = p.diag_text.str();
  EXPECT_EQ(p.diags.errors(), 0u) << d;
  EXPECT_NE(d.find("WARNING: Eliding assignment to 'y': operator '=' at <input>:2:17"), std::string::npos) << d;
  EXPECT_NE(d.find("WARNING: Eliding assignment to 'z': operator '=' at <input>:2:24"), std::string::npos) << d;
  EXPECT_NE(d.find("WARNING: Eliding side-effect-free expression : identifier 'y' at <input>:2:15"),
            std::string::npos) << d;
  // z's call stays (it prints); only w is left as a local.
  EXPECT_EQ(d.find("identifier 'z' at <input>:2:22"), std::string::npos) << d;
  ASSERT_EQ(p.script->probes[0]->locals.size(), 1u);
  EXPECT_EQ(p.script->probes[0]->locals[0]->name, "w");

  Parsed keep(text);
  ElaborateOptions o;
  o.keep_empty_probes = true;  // (the cases are empty probes)
  o.keep_unused = true;
  prog = elaborate({keep.script}, o, keep.arena, keep.diags);
  EXPECT_EQ(keep.diags.warnings(), 0u) << keep.diag_text.str();
  EXPECT_EQ(keep.script->probes[0]->locals.size(), 3u);
}

}  // namespace
}  // namespace stapx::test
