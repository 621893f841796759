// Target-variable reads end to end, outside the kernel: each expression is
// resolved on the DWARF fixture (resolve_target), turned into C
// (target_c), compiled by the host C compiler together with the real
// runtime-c/target.h (kernel primitives replaced by user-space stand-ins),
// loaded, and run over objects this test's compiler laid out from the same
// header. Skipped when there is no C compiler.
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "test_util.h"
#include "testsuite/fixtures/dwarf_fixture.h"
#include "translator/codegen/target_c.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/elaborate/target_access.h"

namespace stapx::test {
namespace {

const debug::ProbeSite& site(const std::string& fn) {
  static std::unique_ptr<debug::DebugInfo> di;
  static std::map<std::string, debug::ProbeSite> cache;
  if (!di) {
    std::string error;
    di = debug::open_dwarf(STAPX_DWARF_FIXTURE, error);
    if (!di) ADD_FAILURE() << error;
  }
  auto it = cache.find(fn);
  if (it == cache.end()) {
    std::vector<debug::ProbeSite> sites = di->function_sites(fn, false);
    EXPECT_EQ(sites.size(), 1u) << fn;
    it = cache.emplace(fn, sites.empty() ? debug::ProbeSite{} : sites[0]).first;
  }
  return it->second;
}

std::optional<TargetAccess> resolve(const std::string& fn, const std::string& expr) {
  Parsed p("probe begin { " + expr + " }");
  auto* stmt = static_cast<ast::ExprStmt*>(p.script->probes[0]->body->stmts[0]);
  auto a = resolve_target(*static_cast<ast::TargetExpr*>(stmt->expr), site(fn), false, nullptr, p.diags);
  EXPECT_TRUE(a) << fn << " " << expr << ": " << p.diag_text.str();
  return a;
}

// What target.h needs from the kernel, for user space. A read below 4096
// faults (-EFAULT), as a NULL dereference would.
const char* const kPrelude = R"(
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define notrace
#define __maybe_unused __attribute__((unused))
#define NOKPROBE_SYMBOL(f)
#define unlikely(x) (x)
#define MAXSTRINGLEN 64
#define min_t(T, a, b) ((T)(a) < (T)(b) ? (T)(a) : (T)(b))
struct pt_regs {
  unsigned long ax, dx, cx, bx, si, di, bp, sp, r8, r9, r10, r11, r12, r13, r14, r15, ip;
};
struct _stpx_context {
  struct pt_regs *regs;
  char error_buf[MAXSTRINGLEN];
  const char *error_loc;
};
static int copy_from_kernel_nofault(void *dst, const void *src, size_t n) {
  if ((uintptr_t)src < 4096) return -EFAULT;
  memcpy(dst, src, n);
  return 0;
}
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define TASK_SIZE_MAX 4096UL
#define pagefault_disable()
#define pagefault_enable()
#define __put_kernel_nofault(dst, src, type, label) do { *(type *)(dst) = *(const type *)(src); } while (0)
#define STPX_ERROR(msg, loc) do { c->error_loc = (loc); return 0; } while (0)
#include "runtime-c/target.h"
)";

struct Context {
  const void* regs;
  char error_buf[64];
  const char* error_loc;
};
struct Regs {
  unsigned long ax, dx, cx, bx, si, di, bp, sp, r8, r9, r10, r11, r12, r13, r14, r15, ip;
};

class Compiled {
 public:
  // exprs: {function, expression}; each becomes stpx_N(c) (or, for a
  // string, stpx_N(c, buf)).
  explicit Compiled(const std::vector<std::pair<std::string, std::string>>& exprs) : Compiled(exprs, ExtraC{}) {}
  // `extra`: more C after the prelude.
  struct ExtraC {
    std::string text;
  };
  Compiled(const std::vector<std::pair<std::string, std::string>>& exprs, const ExtraC& extra) {
    // Unique per process and object: ctest runs tests in parallel.
    static int serial = 0;
    std::string base = fmt::format("{}stapx_target_c_test_{}_{}", ::testing::TempDir(), getpid(), serial++);
    std::string c_file = base + ".c";
    so_ = base + ".so";
    std::ofstream out(c_file);
    out << kPrelude << extra.text;
    for (size_t i = 0; i < exprs.size(); ++i) {
      auto a = resolve(exprs[i].first, exprs[i].second);
      if (!a) continue;
      std::string where = "\"" + exprs[i].second + "\"";
      if (a->is_string)
        out << fmt::format("const char *stpx_{}(struct _stpx_context *c, char *buf) {{ return {}; }}\n", i,
                           target_c(*a, where, [] { return std::string("buf"); }));
      else
        out << fmt::format("int64_t stpx_{}(struct _stpx_context *c) {{ return {}; }}\n", i,
                           target_c(*a, where, [] { return std::string(); }));
    }
    out.close();
    std::string cmd = fmt::format("cc -std=gnu11 -O2 -fPIC -shared -Wall -Werror -Wno-unused-function -I{} -o {} {} 2>{}.err",
                                  STAPX_SOURCE_DIR, so_, c_file, so_);
    if (std::system(cmd.c_str()) != 0) {
      std::ifstream err(so_ + ".err");
      error_.assign(std::istreambuf_iterator<char>(err), {});
      error_ = "cc failed:\n" + error_ + "\n(source: " + c_file + ")";
      return;
    }
    handle_ = dlopen(so_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) error_ = dlerror();
  }
  ~Compiled() {
    if (handle_) dlclose(handle_);
    if (error_.empty())
      for (const char* ext : {".c", ".so", ".so.err"}) std::remove((so_.substr(0, so_.size() - 3) + ext).c_str());
  }
  const std::string& error() const { return error_; }
  int64_t value(size_t i, Context& c) {
    auto f = reinterpret_cast<int64_t (*)(Context*)>(dlsym(handle_, fmt::format("stpx_{}", i).c_str()));
    if (!f) {
      ADD_FAILURE() << "no function for expression " << i;
      return 0;
    }
    return f(&c);
  }
  void* symbol(const std::string& name) { return handle_ ? dlsym(handle_, name.c_str()) : nullptr; }
  std::string string(size_t i, Context& c) {
    auto f = reinterpret_cast<const char* (*)(Context*, char*)>(dlsym(handle_, fmt::format("stpx_{}", i).c_str()));
    if (!f) {
      ADD_FAILURE() << "no function for expression " << i;
      return "";
    }
    char buf[64];
    const char* s = f(&c, buf);
    return s ? s : "(null)";
  }

 private:
  std::string so_, error_;
  void* handle_ = nullptr;
};

bool have_cc() { return std::system("cc --version >/dev/null 2>&1") == 0; }

TEST(TargetC, GeneratedCReadsTheRightValues) {
  if (!have_cc()) GTEST_SKIP() << "no C compiler (cc)";
  alignas(fx_outer) unsigned char storage[sizeof(fx_outer)] = {};
  auto* o = reinterpret_cast<fx_outer*>(storage);
  fx_inner second{};
  second.a = -77;
  const char* argv[] = {"zero", "one"};
  fx_row_t row = {10, 11, 12, 13};
  o->tag = -5;
  o->in.a = 123456;
  o->in.b[2] = -300;
  o->in.next = &second;
  o->pin = &o->in;
  o->grid[1][2] = 42;
  std::strcpy(o->name, "fixture");
  *const_cast<int*>(&o->cv) = -9;
  o->handle = 0xfffffff0u;
  o->color = FX_BLUE;
  o->u.ll = -1234567890123ll;
  o->ax = 31;
  o->argv = const_cast<char**>(argv);
  o->rowp = &row;
  o->longs[3] = -4000000000ll;
  fx_bits b{};
  b.lo = 5;
  b.s = -11;
  b.mid = 0xabcde;
  b.neg = -8;
  b.flag = 1;
  b.wide = 0xfedcba987654321ull;
  b.ecolor = FX_BLUE;
  fx_packed pk{};
  pk.c = 9;
  pk.x = 0x2aaaaaaa;
  pk.pad = 3;
  // fx_many's stack: the return address, then a7, a8, a9.
  fx_inner ninth{};
  ninth.a = 99;
  unsigned long stack[4] = {0, static_cast<unsigned long>(-7000000000ll), 0xffffffff80000001ul,
                            reinterpret_cast<unsigned long>(&ninth)};

  struct Case {
    const char* fn;
    const char* expr;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"fx_take_outer", "$p", reinterpret_cast<int64_t>(o)},
      {"fx_take_outer", "$idx", -3},
      {"fx_take_outer", "$p->tag", -5},
      {"fx_take_outer", "$p->in->a", 123456},
      {"fx_take_outer", "$p->in->b[2]", -300},
      {"fx_take_outer", "$p->pin->next->a", -77},
      {"fx_take_outer", "$p->grid[1][2]", 42},
      {"fx_take_outer", "$p->name[3]", 't'},
      {"fx_take_outer", "$p->cv", -9},
      {"fx_take_outer", "$p->handle", 0xfffffff0ll},
      {"fx_take_outer", "$p->color", FX_BLUE},
      {"fx_take_outer", "$p->u->ll", -1234567890123ll},
      {"fx_take_outer", "$p->ax", 31},
      {"fx_take_outer", "$p->argv[1][2]", 'e'},
      {"fx_take_outer", "$p->rowp[0][3]", 13},
      {"fx_take_outer", "$p->longs[3]", -4000000000ll},
      {"fx_take_bits", "$b->lo", 5},
      {"fx_take_bits", "$b->s", -11},
      {"fx_take_bits", "$b->mid", 0xabcde},
      {"fx_take_bits", "$b->neg", -8},
      {"fx_take_bits", "$b->flag", 1},
      {"fx_take_bits", "$b->wide", 0xfedcba987654321ll},
      {"fx_take_bits", "$b->ecolor", FX_BLUE},
      {"fx_take_bits", "$pk->c", 9},
      {"fx_take_bits", "$pk->x", 0x2aaaaaaa},
      {"fx_take_bits", "$pk->pad", 3},
      {"fx_many", "$a7", -7000000000ll},
      {"fx_many", "$a8", static_cast<int32_t>(0x80000001u)},  // an int: the low 4 bytes, signed
      {"fx_many", "$a9->a", 99},
      {"fx_many", "$a3", -2},
      {"fx_many", "$a4", -1},
  };
  std::vector<std::pair<std::string, std::string>> exprs;
  for (const Case& k : cases) exprs.emplace_back(k.fn, k.expr);
  exprs.emplace_back("fx_take_outer", "$p->name");  // an address, last
  Compiled lib(exprs);
  ASSERT_EQ(lib.error(), "");

  for (size_t i = 0; i < cases.size(); ++i) {
    Regs regs{};
    std::string fn = cases[i].fn;
    if (fn == "fx_take_outer") {
      regs.di = reinterpret_cast<unsigned long>(o);
      regs.si = 0xffffffff00000000ul | static_cast<uint32_t>(-3);  // upper half is junk for an int
    } else if (fn == "fx_take_bits") {
      regs.di = reinterpret_cast<unsigned long>(&b);
      regs.si = reinterpret_cast<unsigned long>(&pk);
    } else {
      regs.dx = 0x12345678fffffffeul;  // a3 (short): -2 in the low 16 bits
      regs.cx = 0xffffffffffffffff;    // a4 (char)
      regs.sp = reinterpret_cast<unsigned long>(stack);
    }
    Context c{&regs, {}, nullptr};
    EXPECT_EQ(lib.value(i, c), cases[i].want) << fn << " " << cases[i].expr;
    EXPECT_EQ(c.error_loc, nullptr) << cases[i].expr;
  }
  Regs regs{};
  regs.di = reinterpret_cast<unsigned long>(o);
  Context c{&regs, {}, nullptr};
  EXPECT_EQ(lib.value(cases.size(), c), reinterpret_cast<long>(o->name));
  EXPECT_STREQ(reinterpret_cast<const char*>(lib.value(cases.size(), c)), "fixture");
}

TEST(TargetC, BadPointerIsAScriptErrorNamingTheLocation) {
  if (!have_cc()) GTEST_SKIP() << "no C compiler (cc)";
  Compiled lib({{"fx_take_outer", "$p->pin->a"}, {"fx_take_outer", "$p->name"}});
  ASSERT_EQ(lib.error(), "");
  Regs regs{};
  regs.di = 16;  // a NULL-ish struct pointer
  Context c{&regs, {}, nullptr};
  EXPECT_EQ(lib.value(0, c), 0);
  ASSERT_NE(c.error_loc, nullptr);
  EXPECT_STREQ(c.error_loc, "$p->pin->a");
  EXPECT_EQ(std::string(c.error_buf), fmt::format("kernel read fault at 0x{:016x}", 16 + offsetof(fx_outer, pin)));
  // An array member is an address: nothing is read, nothing faults.
  Context s{&regs, {}, nullptr};
  EXPECT_EQ(lib.value(1, s), static_cast<long>(16 + offsetof(fx_outer, name)));
  EXPECT_EQ(s.error_loc, nullptr);
}

// Strings in $var$ and $var$$ are escaped as stap's string_quoted does,
// within MAXSTRINGLEN (64 here), never cutting an escape.
TEST(TargetC, EscapedStrings) {
  if (!have_cc()) GTEST_SKIP() << "no C compiler (cc)";
  Compiled so({}, Compiled::ExtraC{"const char *esc(char *dst, const char *s) { return _stpx_escape(dst, s); }\n"});
  ASSERT_EQ(so.error(), "");
  auto esc = reinterpret_cast<const char* (*)(char*, const char*)>(so.symbol("esc"));
  ASSERT_NE(esc, nullptr);
  char buf[64];
  EXPECT_STREQ(esc(buf, "rec-a-5"), "rec-a-5");
  EXPECT_STREQ(esc(buf, ""), "");
  EXPECT_STREQ(esc(buf, "I3\"\x11"), "I3\\\"\\021");
  EXPECT_STREQ(esc(buf, "a\nb\tc\\d'e\x7f\xff"), "a\\nb\\tc\\\\d\\'e\\177\\377");
  // 62 characters, then an escape that would end past byte 63: left out.
  std::string long_in(62, 'x');
  EXPECT_STREQ(esc(buf, (long_in + "\x01").c_str()), long_in.c_str());
  EXPECT_STREQ(esc(buf, (long_in + "yz").c_str()), (long_in + "y").c_str());
}

// Buffers (kernel_buffer_quoted and friends): NUL bytes escaped, at most
// len characters of escapes, and "..." when cut here or by the caller.
TEST(TargetC, QuotedBuffers) {
  if (!have_cc()) GTEST_SKIP() << "no C compiler (cc)";
  Compiled so({}, Compiled::ExtraC{"const char *q(char *r, const char *s, unsigned long n, long len, int more)\n"
                                   "{ _stpx_text_mem(r, s, n, len, 1, more); return r; }\n"});
  ASSERT_EQ(so.error(), "");
  auto q = reinterpret_cast<const char* (*)(char*, const char*, unsigned long, long, int)>(so.symbol("q"));
  ASSERT_NE(q, nullptr);
  char buf[64];
  EXPECT_STREQ(q(buf, "a\0b\ncd", 6, 0, 0), "\"a\\000b\\ncd\"");
  // len bounds the whole result, quotes and "..." included, as in stap.
  EXPECT_STREQ(q(buf, "a\0b\ncd", 6, 8, 0), "\"a\"...");
  EXPECT_STREQ(q(buf, "a\0b\ncd", 6, 4, 0), "\"\"...");
  EXPECT_STREQ(q(buf, "12345678901234567890", 20, 10, 0), "\"12345\"...");
  EXPECT_STREQ(q(buf, "12345678", 8, 10, 0), "\"12345678\"");
  EXPECT_STREQ(q(buf, "a\0b", 2, 0, 0), "\"a\\000\"");
  EXPECT_STREQ(q(buf, "abc", 3, 0, 1), "\"abc\"...");
  EXPECT_STREQ(q(buf, "", 0, 0, 0), "\"\"");
  // Room for 63 bytes: the quotes and "..." leave 58 characters; 61 fit
  // whole in their quotes.
  std::string long_in(70, 'x');
  EXPECT_STREQ(q(buf, long_in.c_str(), long_in.size(), 0, 0), ("\"" + std::string(58, 'x') + "\"...").c_str());
  EXPECT_STREQ(q(buf, long_in.c_str(), 61, 0, 0), ("\"" + std::string(61, 'x') + "\"").c_str());
}

}  // namespace
}  // namespace stapx::test
