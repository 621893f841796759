// The DWARF resolver against the guest kernel's own vmlinux (fetched by
// `make deps` into build/kernel/R/debug/vmlinux-R); skipped without it.
// Expected member offsets are what installed stap 4.8 computes for the same
// expressions on the same vmlinux (its pass-3 C):
//   SYSTEMTAP_DEBUGINFO_PATH=/tmp/stapdbg stap -r 6.1.0-56-amd64 -p3 -e
//     'probe kernel.function("vfs_read") { println($file->f_pos) }'
//   -> kderef(8, k_fetch_register(5) + 104)
//   ... $file->f_path->dentry->d_name->name
//   -> kderef(8, kderef(8, k_fetch_register(5) + 16 + 8) + 32 + 8)
//   ... $file->f_flags -> kderef(4, k_fetch_register(5) + 64)
//   ... $pos[0] -> kderef(8, k_fetch_register(2))
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

#include "test_util.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/debuginfo/kernel_symbols.h"
#include "translator/elaborate/target_access.h"

namespace stapx::test {
namespace {

std::string vmlinux_path() {
  std::string dir = STAPX_KERNEL_DIR;
  std::ifstream rel(dir + "/release");
  std::string release;
  if (!std::getline(rel, release) || release.empty()) return "";
  std::string path = dir + "/" + release + "/debug/vmlinux-" + release;
  return std::filesystem::is_regular_file(path) ? path : "";
}

std::string resolve(const debug::ProbeSite& site, const std::string& expr, std::string& diag) {
  Parsed p("probe begin { " + expr + " }");
  auto* stmt = static_cast<ast::ExprStmt*>(p.script->probes[0]->body->stmts[0]);
  std::optional<TargetAccess> a =
      resolve_target(*static_cast<ast::TargetExpr*>(stmt->expr), site, false, nullptr, p.diags);
  diag = p.diag_text.str();
  return a ? debug::to_string(a->value) : "(error)";
}

TEST(KernelDwarf, VfsRead) {
  std::string path = vmlinux_path();
  if (path.empty()) GTEST_SKIP() << "no kernel vmlinux with DWARF under " << STAPX_KERNEL_DIR << " (make deps)";
  auto start = std::chrono::steady_clock::now();
  std::string error;
  std::unique_ptr<debug::DebugInfo> di = debug::open_dwarf(path, error);
  ASSERT_NE(di, nullptr) << error;
  std::vector<debug::ProbeSite> sites = di->function_sites("vfs_read", false);
  ASSERT_EQ(sites.size(), 1u);
  const debug::ProbeSite& s = sites[0];
  EXPECT_EQ(s.function, "vfs_read");
  EXPECT_EQ(s.decl_file.size() >= 15 ? s.decl_file.substr(s.decl_file.size() - 15) : s.decl_file,
            "fs/read_write.c");
  EXPECT_EQ(di->symbol_address("vfs_read"), std::optional<uint64_t>(s.addr));
  std::vector<std::string> got;
  for (const debug::Variable& v : s.params)
    got.push_back(v.name + ":" + v.type->to_string() + "@" + debug::to_string(v.loc));
  EXPECT_EQ(got, (std::vector<std::string>{"file:struct file*@reg5", "buf:char*@reg4", "count:size_t@reg1",
                                           "pos:loff_t*@reg2"}));
  ASSERT_NE(s.return_type, nullptr);
  EXPECT_EQ(s.return_type->to_string(), "ssize_t");

  std::string diag;
  EXPECT_EQ(resolve(s, "$file->f_pos", diag), "derefs8(reg5+104)") << diag;
  EXPECT_EQ(resolve(s, "$file->f_path->dentry->d_name->name", diag), "deref8((deref8(reg5+24))+40)") << diag;
  EXPECT_EQ(resolve(s, "$file->f_flags", diag), "deref4(reg5+64)") << diag;
  EXPECT_EQ(resolve(s, "$pos[0]", diag), "derefs8(reg2)") << diag;
  EXPECT_EQ(resolve(s, "$count", diag), "reg1") << diag;

  const debug::DType* file = di->find_type("struct file");
  ASSERT_NE(file, nullptr);
  uint64_t off = 0;
  ASSERT_NE(file->find_member("f_pos", off), nullptr);
  EXPECT_EQ(off, 104u* 8);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 2.0) << "opening the vmlinux and resolving vfs_read";
  RecordProperty("seconds", std::to_string(seconds));
}


// kernel.statement's lines: each line of vfs_read's own body once, at its
// lowest address inside the function, with the variables live there (the
// same lines installed stap 4.8 lists for "vfs_read@fs/read_write.c:*").
TEST(KernelDwarf, VfsReadStatements) {
  std::string path = vmlinux_path();
  if (path.empty()) GTEST_SKIP() << "no kernel vmlinux with DWARF under " << STAPX_KERNEL_DIR << " (make deps)";
  std::string error;
  std::unique_ptr<debug::DebugInfo> di = debug::open_dwarf(path, error);
  ASSERT_NE(di, nullptr) << error;
  ASSERT_TRUE(di->has_lines());
  std::vector<debug::ProbeSite> entry = di->function_sites("vfs_read", false);
  ASSERT_EQ(entry.size(), 1u);
  debug::SiteFilter all;
  all.line = [](const std::string&, int, int) { return true; };
  std::vector<debug::ProbeSite> sites = di->statement_sites("vfs_read", all);
  ASSERT_GT(sites.size(), 10u);
  std::set<int> lines;
  for (const debug::ProbeSite& s : sites) {
    EXPECT_EQ(s.symbol, "vfs_read");
    EXPECT_EQ(s.addr, entry[0].addr + s.symbol_offset);
    EXPECT_GT(s.decl_line, entry[0].decl_line) << "a line before the function's declaration";
    EXPECT_TRUE(lines.insert(s.decl_line).second) << "line " << s.decl_line << " twice";
    EXPECT_EQ(s.decl_file, entry[0].decl_file);
  }
  // One line by number: the +N form counts from the declaration.
  debug::SiteFilter one;
  int want = *std::next(lines.begin(), 3);
  one.line = [&](const std::string&, int line, int decl) { return line == decl + (want - entry[0].decl_line); };
  std::vector<debug::ProbeSite> at = di->statement_sites("vfs_read", one);
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].decl_line, want);
  EXPECT_FALSE(at[0].at_entry);
  // An address inside the function maps back to it and its line.
  std::optional<debug::ProbeSite> a = di->address_site(at[0].addr);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->function, "vfs_read");
  EXPECT_EQ(a->symbol_offset, at[0].symbol_offset);
  EXPECT_EQ(a->decl_line, want);
  EXPECT_FALSE(di->address_site(1).has_value());
}


// Inlined instances, through the cached index: rw_verify_area is out of
// line and inlined once, into kernel_read at +5; its line 360 is in both
// copies. Installed stap 4.8 lists the same addresses:
//   stap -p2 -e 'probe kernel.function("rw_verify_area") {...}'
//   -> pc=_stext+0x364eb0 and pc=_stext+0x366945 (kernel_read+5)
//   ... kernel.statement("rw_verify_area@fs/read_write.c:360")
//   -> pc=_stext+0x364ebf and pc=_stext+0x36695c
// And vfs_read's count after its last use is its entry value there, which
// is refused, naming the register (stap: "unhandled DW_OP operation").
TEST(KernelDwarf, InlinedCopiesAndEntryValues) {
  std::string path = vmlinux_path();
  if (path.empty()) GTEST_SKIP() << "no kernel vmlinux with DWARF under " << STAPX_KERNEL_DIR << " (make deps)";
  std::string error;
  std::unique_ptr<debug::DebugInfo> di = debug::open_dwarf(path, error);
  ASSERT_NE(di, nullptr) << error;
  std::vector<debug::ProbeSite> sites = di->function_sites("rw_verify_area", true);
  ASSERT_EQ(sites.size(), 2u);
  std::optional<uint64_t> stext = di->symbol_address("_stext");
  ASSERT_TRUE(stext.has_value());
  EXPECT_FALSE(sites[0].inlined);
  EXPECT_EQ(sites[0].addr - *stext, 0x364eb0u);
  EXPECT_TRUE(sites[1].inlined);
  EXPECT_EQ(sites[1].symbol, "kernel_read");
  EXPECT_EQ(sites[1].symbol_offset, 5u);
  std::vector<std::string> params;
  for (const debug::Variable& v : sites[1].params) params.push_back(v.name + "@" + debug::to_string(v.loc));
  EXPECT_EQ(params.size(), 4u);
  debug::SiteFilter line;
  line.line = [](const std::string&, int l, int) { return l == 360; };
  std::vector<debug::ProbeSite> at = di->statement_sites("rw_verify_area", line);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[0].addr - *stext, 0x364ebfu);
  EXPECT_EQ(at[1].addr - *stext, 0x36695cu);

  debug::SiteFilter after;
  after.line = [](const std::string&, int l, int) { return l == 478; };
  std::vector<debug::ProbeSite> read = di->statement_sites("vfs_read", after);
  ASSERT_EQ(read.size(), 1u);
  const debug::Variable* count = nullptr;
  for (const debug::Variable& v : read[0].params)
    if (v.name == "count") count = &v;
  ASSERT_NE(count, nullptr);
  // min(count, MAX_RW_COUNT) of the count vfs_read was called with.
  EXPECT_EQ(debug::to_string(count->loc),
            "value((entry(reg1)-9223372036854775808)<=-9223372034707296256 ? entry(reg1) : 2147479552)");
}

// What inlined sites are checked against: exactly the functions the full
// symbol table says the kernel will not kprobe, with the same reasons.
TEST(KernelDwarf, UnprobeableFunctionsAreTheFullTablesOnes) {
  std::string path = vmlinux_path();
  if (path.empty()) GTEST_SKIP() << "no kernel vmlinux with DWARF under " << STAPX_KERNEL_DIR << " (make deps)";
  std::string error;
  std::unique_ptr<KernelSymbols> all = vmlinux_symbols(path, &error);
  ASSERT_NE(all, nullptr) << error;
  std::unique_ptr<KernelSymbols> refused = vmlinux_unprobeable(path, &error);
  ASSERT_NE(refused, nullptr) << error;
  size_t n = 0;
  for (const KernelFunction& f : all->functions()) {
    const KernelFunction* r = refused->find(f.name);
    if (f.unprobeable.empty()) {
      EXPECT_EQ(r, nullptr) << f.name;
      continue;
    }
    ++n;
    ASSERT_NE(r, nullptr) << f.name;
    EXPECT_EQ(r->unprobeable, f.unprobeable) << f.name;
  }
  EXPECT_EQ(refused->functions().size(), n);
  ASSERT_NE(refused->find("sysvec_reschedule_ipi"), nullptr);
  EXPECT_EQ(refused->find("sysvec_reschedule_ipi")->unprobeable, "in .noinstr.text");
  EXPECT_EQ(refused->find("vfs_read"), nullptr);
}

// @var: a file-scope variable by name and source file, at its link-time
// address (DW_OP_addr), which matches the symbol table's.
TEST(KernelDwarf, GlobalVariable) {
  std::string path = vmlinux_path();
  if (path.empty()) GTEST_SKIP() << "no kernel vmlinux with DWARF under " << STAPX_KERNEL_DIR << " (make deps)";
  std::string error;
  std::unique_ptr<debug::DebugInfo> di = debug::open_dwarf(path, error);
  ASSERT_NE(di, nullptr) << error;
  auto in = [](const char* file) {
    return std::function<bool(const std::string&)>([file](const std::string& p) {
      return p.size() >= std::strlen(file) && p.compare(p.size() - std::strlen(file), std::string::npos, file) == 0;
    });
  };
  std::optional<debug::Variable> v = di->global_variable("max_threads", in("kernel/fork.c"));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->type->to_string(), "int");
  std::optional<uint64_t> sym = di->symbol_address("max_threads");
  ASSERT_TRUE(sym.has_value());
  EXPECT_EQ(debug::to_string(v->loc), fmt::format("mem(addr(0x{:x}))", *sym));
  EXPECT_FALSE(di->global_variable("max_threads", in("mm/mmap.c")).has_value());
  EXPECT_TRUE(di->global_variable("init_task", {}).has_value());
}

}  // namespace
}  // namespace stapx::test

namespace stapx::test {
namespace {

// A name no unit defines makes find_type look through every unit's
// top-level entries once; this bounds what that costs on a real kernel.
TEST(KernelDwarf, FindTypeOfAMissingStruct) {
  std::string path = vmlinux_path();
  if (path.empty()) GTEST_SKIP() << "no kernel vmlinux with DWARF under " << STAPX_KERNEL_DIR << " (make deps)";
  std::string error;
  std::unique_ptr<debug::DebugInfo> di = debug::open_dwarf(path, error);
  ASSERT_NE(di, nullptr) << error;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(di->find_type("struct stapx_no_such_struct"), nullptr);
  double missing = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();
  const debug::DType* ts = di->find_type("struct task_struct");
  ASSERT_NE(ts, nullptr);
  EXPECT_GT(ts->size(), 1000u);
  uint64_t off = 0;
  EXPECT_NE(ts->find_member("pid", off), nullptr);
  double found = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("missing_seconds", std::to_string(missing));
  RecordProperty("task_struct_seconds", std::to_string(found));
  std::cout << "find_type: missing struct " << missing << " s, struct task_struct " << found << " s\n";
  EXPECT_LT(missing, 5.0);
}

}  // namespace
}  // namespace stapx::test
