// Kernel symbol tables and kprobe.function patterns, against a fixture
// table (no kernel needed), plus the kallsyms/System.map reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "support/glob.h"
#include "test_util.h"
#include "translator/debuginfo/kernel_symbols.h"
#include "translator/probes/kprobe_table.h"

#include <fmt/format.h>

namespace stapx::test {
namespace {

std::unique_ptr<KernelSymbols> fixture() {
  return fixture_symbols({{"vfs_read", ""},
                          {"vfs_readv", ""},
                          {"vfs_write", ""},
                          {"vfs_readlink", ""},
                          {"do_int3", "in the kernel's kprobe blacklist"},
                          {"exc_page_fault", "in .noinstr.text"},
                          {"vfs_read", ""},  // duplicate names collapse
                          {"ksys_read", ""}});
}

std::vector<std::string> names(const std::vector<const KernelFunction*>& fs) {
  std::vector<std::string> out;
  for (auto* f : fs) out.push_back(f->name);
  return out;
}

TEST(KernelSymbols, GlobsMatchInNameOrderAndLeaveOutUnprobeable) {
  auto syms = fixture();
  EXPECT_EQ(syms->functions().size(), 7u);
  std::vector<const KernelFunction*> excluded;
  EXPECT_EQ(names(match_kernel_functions(*syms, "vfs_rea*", &excluded)),
            (std::vector<std::string>{"vfs_read", "vfs_readlink", "vfs_readv"}));
  EXPECT_TRUE(excluded.empty());
  EXPECT_EQ(names(match_kernel_functions(*syms, "?fs_[rw]*e", &excluded)),
            (std::vector<std::string>{"vfs_write"}));
  EXPECT_EQ(names(match_kernel_functions(*syms, "*", &excluded)).size(), 5u);
  EXPECT_EQ(names(excluded), (std::vector<std::string>{"do_int3", "exc_page_fault"}));
}

TEST(KernelSymbols, ExactNamesAndMissingOnes) {
  auto syms = fixture();
  EXPECT_EQ(names(match_kernel_functions(*syms, "ksys_read", nullptr)), (std::vector<std::string>{"ksys_read"}));
  EXPECT_TRUE(match_kernel_functions(*syms, "nosuch", nullptr).empty());
  std::vector<const KernelFunction*> excluded;
  EXPECT_TRUE(match_kernel_functions(*syms, "do_int3", &excluded).empty());
  EXPECT_EQ(names(excluded), (std::vector<std::string>{"do_int3"}));
  EXPECT_TRUE(support::is_glob("a*"));
  EXPECT_TRUE(support::is_glob("a[bc]"));
  EXPECT_FALSE(support::is_glob("vfs_read"));
}

TEST(KernelSymbols, ReadsKallsymsFormat) {
  std::string path = ::testing::TempDir() + "/kallsyms_fixture_" + std::to_string(::getpid());
  {
    std::ofstream f(path);
    f << "ffffffff81000000 T _stext\n"
         "ffffffff81001000 t local_fn\n"
         "ffffffff81002000 D some_data\n"
         "ffffffff81003000 T __x86_indirect_thunk_rax\n"
         "ffffffffc0000000 t mod_fn\t[ext4]\n";
  }
  std::string err;
  auto syms = kallsyms_symbols(path, &err);
  ASSERT_TRUE(syms) << err;
  EXPECT_EQ(names(match_kernel_functions(*syms, "*", nullptr)), (std::vector<std::string>{"_stext", "local_fn"}));
  ASSERT_TRUE(syms->find("__x86_indirect_thunk_rax"));
  EXPECT_FALSE(syms->find("__x86_indirect_thunk_rax")->unprobeable.empty());
  EXPECT_FALSE(syms->find("some_data"));
  EXPECT_FALSE(syms->find("mod_fn"));
  std::remove(path.c_str());
  EXPECT_FALSE(kallsyms_symbols(path, &err));
}

TEST(KernelSymbols, KallsymsAddressesAndAliases) {
  std::string path = ::testing::TempDir() + "/kallsyms_addr_" + std::to_string(::getpid());
  {
    std::ofstream f(path);
    f << "ffffffff81000100 T register_kprobe\n"
         "ffffffff81000200 T __do_sys_getpid\n"
         "ffffffff81000200 T __x64_sys_getpid\n"
         "ffffffff81000300 t vfs_read\n"
         "ffffffff81000400 t dup\n"
         "ffffffff81000500 t dup\n"
         "ffffffff81000600 T __x86_indirect_thunk_rax\n";
  }
  std::string err;
  auto syms = kallsyms_symbols(path, &err);
  std::remove(path.c_str());
  ASSERT_TRUE(syms) << err;
  EXPECT_EQ(syms->find("vfs_read")->addr, 0xffffffff81000300u);
  EXPECT_FALSE(syms->find("vfs_read")->aliased);
  EXPECT_TRUE(syms->find("__x64_sys_getpid")->aliased);
  EXPECT_EQ(syms->find("dup")->addr, 0u);  // two functions: no one address
  auto fa = table_ftrace_addresses(*syms);
  EXPECT_EQ(fa->reference(), 0xffffffff81000100u);
  EXPECT_EQ(fa->entry("vfs_read").addr, 0xffffffff81000300u);
  EXPECT_TRUE(fa->entry("__do_sys_getpid").aliased);
  EXPECT_EQ(fa->entry("dup").addr, 0u);
  EXPECT_EQ(fa->entry("__x86_indirect_thunk_rax").addr, 0u);  // not probeable
  EXPECT_EQ(fa->entry("nosuch").addr, 0u);
}

// The cached index is bisected in place: every name, those before the
// first and after the last, and the flags survive the round trip.
TEST(KernelSymbols, IndexLookupsAgreeWithTheTable) {
  std::vector<KernelFunction> fs;
  for (int i = 0; i < 300; ++i) {
    KernelFunction f{"fn_" + std::to_string(i * 7919 % 1000), "", 0xffffffff81000000u + 16u * i, 10u + i % 5,
                     i % 3 != 0, i % 11 == 0};
    if (i % 17 == 0) f.unprobeable = "in .noinstr.text";
    fs.push_back(f);
  }
  fs.push_back({"register_kprobe", "", 0xffffffff80fff000u, 64, false, false});
  auto syms = fixture_symbols(fs);
  auto table = table_ftrace_addresses(*syms);
  auto index = index_ftrace_addresses(ksyms_index_text(*syms));
  ASSERT_TRUE(index);
  EXPECT_EQ(index->reference(), 0xffffffff80fff000u);
  EXPECT_EQ(index->reference(), table->reference());
  int taken = 0;
  for (const KernelFunction& f : syms->functions()) {
    FtraceAddresses::Entry a = table->entry(f.name), b = index->entry(f.name);
    EXPECT_EQ(a.addr, b.addr) << f.name;
    EXPECT_EQ(a.size, b.size) << f.name;
    EXPECT_EQ(a.aliased, b.aliased) << f.name;
    EXPECT_EQ(b.addr != 0, f.traceable && f.unprobeable.empty()) << f.name;
    taken += b.addr != 0;
  }
  EXPECT_GT(taken, 150);
  for (const char* missing : {"", "a", "fn_", "fn_5000", "zzz"}) EXPECT_EQ(index->entry(missing).addr, 0u) << missing;
  EXPECT_FALSE(index_ftrace_addresses("stapx-ksyms 2\nvfs_read\t\n"));
}

struct Expanded : Parsed {
  Program prog;
  std::unique_ptr<KernelSymbols> syms;
  std::unique_ptr<FtraceAddresses> ftrace;
  explicit Expanded(const std::string& text, bool with_symbols = true,
                    std::unique_ptr<KernelSymbols> table = fixture())
      : Parsed(text), syms(std::move(table)), ftrace(table_ftrace_addresses(*syms)) {
    ElaborateOptions o;
    o.keep_empty_probes = true;  // (the cases are empty probes)
    if (with_symbols) o.probes.kernel_symbols = [this] { return syms.get(); };
    if (with_symbols) o.probes.ftrace_addresses = [this] { return ftrace.get(); };
    prog = elaborate({script}, o, arena, diags);
  }
  std::vector<std::string> pps() const {
    std::vector<std::string> out;
    for (const ProbeSpec& p : prog.probes) out.push_back(p.pp + (p.is_return ? " ret " : " ") + p.probefunc);
    return out;
  }
};

TEST(KprobePatterns, ExpandToOneProbePerFunction) {
  Expanded e("probe kprobe.function(\"vfs_rea*\").return { println(1) }");
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  EXPECT_EQ(e.pps(), (std::vector<std::string>{"kprobe.function(\"vfs_read\").return ret vfs_read",
                                               "kprobe.function(\"vfs_readlink\").return ret vfs_readlink",
                                               "kprobe.function(\"vfs_readv\").return ret vfs_readv"}));
}

TEST(KprobePatterns, UnprobeableMatchesAreLeftOutWithAWarning) {
  Expanded e("probe kprobe.function(\"*\") { }");
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  EXPECT_EQ(e.prog.probes.size(), 5u);
  EXPECT_NE(e.diag_text.str().find("WARNING: 2 function(s) matching '*' cannot be probed and are left out: "
                                   "do_int3 (in the kernel's kprobe blacklist), exc_page_fault (in .noinstr.text)"),
            std::string::npos)
      << e.diag_text.str();
}

TEST(KprobePatterns, MissingFunctionIsAnErrorUnlessOptional) {
  Expanded missing("probe kprobe.function(\"nosuch\") { }");
  EXPECT_NE(missing.diag_text.str().find("semantic error: while resolving probe point: identifier 'kprobe'"),
            std::string::npos);
  EXPECT_NE(missing.diag_text.str().find("semantic error: no match: string 'nosuch'"), std::string::npos)
      << missing.diag_text.str();
  Expanded none("probe kprobe.function(\"zz*\") { }");
  EXPECT_NE(none.diag_text.str().find("no match"), std::string::npos);
  Expanded optional("probe kprobe.function(\"nosuch\")?, kprobe.function(\"zz*\")?, begin { }");
  EXPECT_EQ(optional.diags.errors(), 0u) << optional.diag_text.str();
  EXPECT_EQ(optional.prog.probes.size(), 1u);
  Expanded blacklisted("probe kprobe.function(\"do_int3\") { }");
  EXPECT_NE(blacklisted.diag_text.str().find("'do_int3' is in the kernel's kprobe blacklist"), std::string::npos)
      << blacklisted.diag_text.str();
}

// Entry probes on functions the symbol table places (relative to
// register_kprobe) are marked for the runtime's ftrace batch (a .return
// probe too: the table gives only entries to the batch); module functions
// and functions ftrace cannot trace are not.
TEST(KprobePatterns, EntriesJoinTheFtraceBatch) {
  Expanded e("probe kprobe.function(\"vfs_*\"), kprobe.function(\"notrace_fn\"), "
             "kprobe.function(\"vfs_read\").return, kprobe.module(\"ext4\").function(\"vfs_read\") { }",
             true,
             fixture_symbols({{"register_kprobe", "", 0xffffffff81100000u, 100, true, false},
                              {"vfs_read", "", 0xffffffff81000010u, 300, true, false},
                              {"vfs_write", "", 0xffffffff81200000u, 200, true, true},
                              {"notrace_fn", "", 0xffffffff81300000u, 20, false, false}}));
  ASSERT_EQ(e.diags.errors(), 0u) << e.diag_text.str();
  std::vector<std::string> got;
  for (const ProbeSpec& p : e.prog.probes) {
    const auto& at = p.data_as<KprobeAddress>();
    got.push_back(fmt::format("{} {} {} {} {}", at.symbol, at.ftrace, at.ftrace_rel, at.ftrace_size,
                              at.ftrace_aliased));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"vfs_read true -1048560 300 false", "vfs_write true 1048576 200 true",
                                           "notrace_fn false 0 0 false", "vfs_read true -1048560 300 false",
                                           "ext4:vfs_read false 0 0 false"}));
}

TEST(KprobePatterns, PatternsNeedASymbolTable) {
  Expanded e("probe kprobe.function(\"vfs_*\") { }", false);
  EXPECT_NE(e.diag_text.str().find("no kernel symbol table to match 'vfs_*' against"), std::string::npos)
      << e.diag_text.str();
  Expanded exact("probe kprobe.function(\"vfs_read\") { }", false);
  EXPECT_EQ(exact.diags.errors(), 0u) << exact.diag_text.str();
}

}  // namespace
}  // namespace stapx::test
