// Pass 3: meaningful lines of the generated C (never whole files).
#include <gtest/gtest.h>

#include "test_util.h"
#include "translator/codegen/codegen.h"

namespace stapx::test {
namespace {

std::string c_for(const std::string& text) {
  Parsed p(text);
  Program prog = elaborate({p.script}, ElaborateOptions{.keep_empty_probes = true}, p.arena, p.diags);
  EXPECT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  CodegenOptions opts;
  opts.module_name = "m";
  opts.defines = {{"MAXACTION", "5"}};
  return generate_c(prog, p.sm, opts);
}

// As c_for, for a script with embedded C (parsed as with -g).
std::string c_for_guru(const std::string& text) {
  SourceManager sm;
  ast::Arena arena;
  std::ostringstream diag_text;
  DiagSink diags{sm, diag_text};
  ParseOptions opts;
  opts.guru = true;
  ast::Script* script = parse_file(sm, sm.add("<input>", text), arena, diags, opts);
  Program prog = elaborate({script}, ElaborateOptions{.keep_empty_probes = true}, arena, diags);
  EXPECT_EQ(diags.errors(), 0u) << diag_text.str();
  CodegenOptions cg;
  cg.module_name = "m";
  return generate_c(prog, sm, cg);
}

TEST(Codegen, StableFunctionsAreComputedOncePerProbeHit) {
  std::string c = c_for_guru(
      "function stamp:long () %{ /* stable */ STAP_RETVALUE = 42; %}\n"
      "function twice:long () { return stamp() + stamp() }\n"
      "probe begin { a = stamp(); b = stamp() + twice(); println(a + b) }");
  EXPECT_NE(c.find("int64_t stable_stamp = 0; bool have_stable_stamp = 0;"), std::string::npos) << c;
  size_t cached = 0;
  for (size_t at = c.find("(have_stable_stamp ? stable_stamp : (have_stable_stamp = 1, stable_stamp = ");
       at != std::string::npos; at = c.find("(have_stable_stamp ? stable_stamp", at + 1))
    ++cached;
  EXPECT_EQ(cached, 2u) << "the probe body's two calls; twice() calls it plainly\n" << c;
}

// ppfunc() as stap parses it from pp(): the name in function("...") up to
// '@' or the quote; "" for points that name no function (stap 4.8's
// context tapset documents the rule). probefunc() is the bare symbol, as
// stap's symname(addr()), without a module's "m:".
TEST(Codegen, PpfuncIsTheNameInPp) {
  std::string c = c_for(
      "probe kprobe.function(\"vfs_read\"), kprobe.module(\"ext4\").function(\"ext4_sync_fs\"),"
      " timer.s(1) { }");
  EXPECT_NE(c.find(".pp = \"kprobe.function(\\\"vfs_read\\\")\", .pn = "), std::string::npos) << c;
  EXPECT_NE(c.find(".ppfunc = \"vfs_read\", .func = \"vfs_read\""), std::string::npos);
  EXPECT_NE(c.find(".ppfunc = \"ext4_sync_fs\", .func = \"ext4_sync_fs\""), std::string::npos);
  EXPECT_NE(c.find(".pp = \"timer.s(1)\", .pn = \"timer.s(1)\", .ppfunc = \"\","), std::string::npos);
}

// A number or string global is a module parameter of its name (stapx-run
// MOD.ko NAME=VALUE); its initializer gives way to a value set so. Arrays
// and statistics are not parameters.
TEST(Codegen, ScalarGlobalsAreModuleParameters) {
  std::string c = c_for("global n = 3, s, a, st probe begin { s = \"x\"; a[1] = n; st <<< 1; println(s, @count(st)) }");
  EXPECT_NE(c.find("#define STPX_GLOBAL_PARAMS 1"), std::string::npos) << c;
  EXPECT_NE(c.find(".name = \"n\", .mod = THIS_MODULE, .ops = &_stpx_gparam_long_ops,"), std::string::npos);
  EXPECT_NE(c.find(".name = \"s\", .mod = THIS_MODULE, .ops = &_stpx_gparam_string_ops,"), std::string::npos);
  EXPECT_EQ(c.find(".name = \"a\""), std::string::npos);
  EXPECT_EQ(c.find(".name = \"st\""), std::string::npos);
  EXPECT_NE(c.find("if (!_stpx_gp_n.set)\n\t\t_stpx_g_n = "), std::string::npos);
}

TEST(Codegen, UnmodifiedFnargsPassStringsByPointer) {
  std::string c = c_for_guru(
      "function len2:long (s:string) %{ /* unmodified-fnargs */ STAP_RETVALUE = 2 * strlen(STAP_ARG_s); %}\n"
      "function len3:long (s:string) %{ STAP_RETVALUE = 3 * strlen(STAP_ARG_s); %}\n"
      "probe begin { x = \"ab\"; println(len2(x) + len3(x)) }");
  EXPECT_NE(c.find("const char *v_s;"), std::string::npos) << c;
  EXPECT_EQ(c.find("_stpx_strcpy(c->frames[c->nesting + 1].f_len2.v_s"), std::string::npos) << c;
  EXPECT_NE(c.find("_stpx_strcpy(c->frames[c->nesting + 1].f_len3.v_s"), std::string::npos) << c;
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

TEST(Codegen, EachFamilysRuntimeFollowsRuntimeH) {
  std::string c = c_for("probe begin { }");
  size_t at = c.find("#include \"runtime.h\"\n");
  ASSERT_NE(at, std::string::npos) << c;
  EXPECT_NE(c.find("#include \"probes/timers.c\"\n#include \"probes/kprobes.c\"\n"
                   "#include \"probes/entry_values.c\"\n#include \"probes/tracepoints.c\"\n", at),
            std::string::npos) << c;
  // Two families share timers.c: it is included once.
  EXPECT_EQ(c.find("probes/timers.c"), c.rfind("probes/timers.c"));
}

TEST(Codegen, KprobeTableAndArming) {
  std::string c = c_for("probe kprobe.function(\"vfs_read\").return { }");
  EXPECT_NE(c.find(".symbol = \"vfs_read\", .is_return = 1"), std::string::npos) << c;
  EXPECT_NE(c.find("rc = _stpx_kprobes_arm(_stpx_kprobes, ARRAY_SIZE(_stpx_kprobes));"), std::string::npos);
  EXPECT_NE(c.find("_stpx_kprobes_disarm(_stpx_kprobes, ARRAY_SIZE(_stpx_kprobes));"), std::string::npos);
}

TEST(Codegen, PrintfFormatIsRewrittenAtCompileTime) {
  // Plain conversions and the text between them: no vsnprintf.
  std::string c = c_for("probe begin { printf(\"%d %s\\n\", 1, \"a\") }");
  EXPECT_NE(c.find("_stpx_print_dec(c, a1_"), std::string::npos) << c;
  EXPECT_NE(c.find("_stpx_print_mem(c, \" \", 1); _stpx_print_str(c, a2_"), std::string::npos) << c;
  EXPECT_EQ(c.find("_stpx_printf(c, "), std::string::npos) << c;
  // The others through vsnprintf, the format rewritten for 64-bit values.
  c = c_for("probe begin { printf(\"%5d %-3s %x\\n\", 1, \"a\", 2) }");
  EXPECT_NE(c.find("_stpx_printf(c, \"%5lld %-3s \", (long long)a1_"), std::string::npos) << c;
  EXPECT_NE(c.find("_stpx_print_unsigned(c, (u64)a3_"), std::string::npos) << c;
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

// A script that reads sub-matches (a used function says pragma:submatch,
// as tapsets/regex.stp's do) gets sub-match programs, the context's room
// for them, and matches that record their groups; others get none.
TEST(Codegen, SubmatchProgramsOnlyForScriptsThatReadThem) {
  std::string plain = c_for("probe begin { print(\"ab\" =~ \"(a)b\") }");
  EXPECT_EQ(plain.find("STPX_RE_SUBMATCH"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("_stpx_rp_0"), std::string::npos) << plain;
  std::string c = c_for_guru(
      "function g:long () %{ /* pragma:submatch */ STAP_RETVALUE = CONTEXT->re_last.nslots; %} "
      "probe begin { if (\"ab\" =~ \"(a)b\") print(g()) }");
  EXPECT_LT(c.find("#define STPX_RE_SUBMATCH 1"), c.find("#include \"runtime_defs.h\"")) << c;
  EXPECT_NE(c.find("#define STPX_RE_MAX_SLOTS 4\n"), std::string::npos) << c;
  EXPECT_NE(c.find("static const struct _stpx_re_prog _stpx_rp_0 = { .insts = _stpx_rp_0_insts, .sets = "
                   "_stpx_rp_0_sets, .ninsts = "),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("_stpx_regex_match_sub(&_stpx_re_0, &_stpx_rp_0, "), std::string::npos) << c;
}

// An array of one string key indexed by execname() (embedded C that only
// copies the comm) reads the comm's words in place, for every element
// operation; another string function keeps the general path.
TEST(Codegen, ExecnameKeysReadTheCommWords) {
  const std::string fn = "function execname:string () %{ /* pure */ _stpx_copy_comm(STAP_RETVALUE, current); %} ";
  std::string c = c_for_guru(fn +
                        "global a, s probe begin { a[execname()]++; s[execname()] <<< 1; "
                        "print(a[execname()], execname() in a) }");
  EXPECT_NE(c.find("_stpx_map_ref_comm(_stpx_g_a, "), std::string::npos) << c;
  EXPECT_NE(c.find("_stpx_map_get_comm(_stpx_g_a, "), std::string::npos) << c;
  EXPECT_NE(c.find("_stpx_pmap_add_comm(this_cpu_read(_stpx_gm_s), "), std::string::npos) << c;
  std::string other = c_for_guru(
      "function name:string () %{ /* pure */ _stpx_copy_comm(STAP_RETVALUE, current); STAP_RETVALUE[0] = 'x'; %} "
      "global a probe begin { a[name()]++ }");
  EXPECT_EQ(other.find("_comm(_stpx_g_a"), std::string::npos) << other;
  EXPECT_NE(other.find("_stpx_map_ref_s1(_stpx_g_a, "), std::string::npos) << other;
}

}  // namespace
}  // namespace stapx::test
