// $var->a->b[2] chains resolved against the DWARF fixture's sites
// (translator/elaborate/target_vars.cpp): the exact trees, the diagnostics,
// and, by running each tree over a real object laid out by this test's own
// compiler from the same header, the values they read.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>

#include "test_util.h"
#include "testsuite/fixtures/dwarf_fixture.h"
#include "testsuite/fixtures/dwarf_fixture_opaque.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/elaborate/target_access.h"

namespace stapx::test {
namespace {

using debug::LocExpr;
using debug::LocExprP;

debug::DebugInfo& fixture() {
  static std::unique_ptr<debug::DebugInfo> d;
  if (!d) {
    std::string error;
    d = debug::open_dwarf(STAPX_DWARF_FIXTURE, error);
    if (!d) ADD_FAILURE() << error;
  }
  return *d;
}

const debug::ProbeSite& site(const std::string& fn) {
  static std::map<std::string, debug::ProbeSite> cache;
  auto it = cache.find(fn);
  if (it == cache.end()) {
    std::vector<debug::ProbeSite> sites = fixture().function_sites(fn, false);
    EXPECT_EQ(sites.size(), 1u) << fn;
    it = cache.emplace(fn, sites.empty() ? debug::ProbeSite{} : sites[0]).first;
  }
  return it->second;
}

// `expr` parsed as a script statement and resolved at `fn`'s entry (or
// return): the result, and what was reported.
struct Resolved : Parsed {
  std::optional<TargetAccess> access;
  std::vector<TargetAccess> saved;  // what a .return probe saves at entry
  explicit Resolved(const std::string& fn, const std::string& expr, bool is_return = false)
      : Parsed("probe begin { " + expr + " }") {
    EXPECT_EQ(diags.parse_errors(), 0u) << diag_text.str();
    auto* stmt = static_cast<ast::ExprStmt*>(script->probes[0]->body->stmts[0]);
    EXPECT_EQ(stmt->expr->kind, ast::ExprKind::Target);
    access = resolve_target(*static_cast<ast::TargetExpr*>(stmt->expr), site(fn), is_return, &saved, diags);
    if (access) {
      EXPECT_EQ(diags.errors(), 0u) << diag_text.str();
    }
  }
  std::string tree() const { return access ? debug::to_string(access->value) : "(error) " + message(); }
  std::string message() const { return diags.all().empty() ? "" : diags.all().back().message; }
};

// The tree of a successful resolution, or the diagnostic.
std::string tree(const std::string& fn, const std::string& expr, bool is_return = false) {
  return Resolved(fn, expr, is_return).tree();
}
// The error of a failed resolution (one, exactly; a warning may come
// first: a parameter read in a .return probe).
std::string error(const std::string& fn, const std::string& expr, bool is_return = false) {
  Resolved r(fn, expr, is_return);
  EXPECT_FALSE(r.access) << expr << " -> " << r.tree();
  EXPECT_EQ(r.diags.errors(), 1u) << r.diag_text.str();
  return r.message();
}

std::string off(size_t bytes) { return "+" + std::to_string(bytes); }
std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

// Runs a tree as the generated C would (runtime-c/target.h), with
// registers set and memory being this process's.
struct Machine {
  uint64_t regs[32] = {};
  uint64_t eval(const LocExprP& e) const {
    using Op = LocExpr::Op;
    auto sext = [](uint64_t v, unsigned bits) {
      if (bits >= 64) return v;
      uint64_t sign = 1ull << (bits - 1);
      v &= (1ull << bits) - 1;
      return (v ^ sign) - sign;
    };
    switch (e->op) {
      case Op::Const: return static_cast<uint64_t>(e->value);
      case Op::Reg: return regs[e->value];
      case Op::Deref: {
        uint64_t v = 0;
        std::memcpy(&v, reinterpret_cast<const void*>(eval(e->a)), static_cast<size_t>(e->value));
        return e->is_signed ? sext(v, static_cast<unsigned>(e->value* 8)) : v;
      }
      case Op::Trunc: {
        uint64_t v = eval(e->a);
        unsigned bits = static_cast<unsigned>(e->value* 8);
        return e->is_signed ? sext(v, bits) : bits >= 64 ? v : v & ((1ull << bits) - 1);
      }
      case Op::Bits: {
        EXPECT_LE(e->value + e->width, 64) << "a bitfield read past its 8-byte word: " << debug::to_string(e);
        uint64_t v = eval(e->a) >> e->value;
        if (e->width < 64) v &= (1ull << e->width) - 1;
        return e->is_signed ? sext(v, e->width) : v;
      }
      case Op::Add: return eval(e->a) + eval(e->b);
      case Op::Sub: return eval(e->a) - eval(e->b);
      case Op::Mul: return eval(e->a) * eval(e->b);
      default: ADD_FAILURE() << "unexpected node in " << debug::to_string(e); return 0;
    }
  }
};

// ---- trees ----

TEST(TargetVars, Parameters) {
  EXPECT_EQ(tree("fx_take_outer", "$p"), "reg5");
  EXPECT_EQ(tree("fx_take_outer", "$idx"), "s32(reg4)");
  EXPECT_EQ(tree("fx_many", "$a3"), "s16(reg1)");
  EXPECT_EQ(tree("fx_many", "$a4"), "s8(reg2)");
  EXPECT_EQ(tree("fx_many", "$a5"), "reg8");
  EXPECT_EQ(tree("fx_many", "$a7"), "derefs8(reg7+8)");  // on the stack
  EXPECT_EQ(tree("fx_many", "$a8"), "derefs4(reg7+16)");
  EXPECT_EQ(tree("fx_kinds", "$h"), "u32(reg4)");           // a typedef chain to unsigned int
  EXPECT_EQ(tree("fx_kinds", "$c"), "s32(reg5)");           // enum with a negative enumerator
}

TEST(TargetVars, MemberChains) {
  EXPECT_EQ(tree("fx_take_outer", "$p->tag"), "derefs1(reg5)");
  EXPECT_EQ(tree("fx_take_outer", "$p->in->a"), "derefs4(reg5" + off(offsetof(fx_outer, in.a)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->in->b[2]"), "derefs2(reg5" + off(offsetof(fx_outer, in.b[2])) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->pin->next->a"),
            "derefs4(deref8((deref8(reg5" + off(offsetof(fx_outer, pin)) + "))" + off(offsetof(fx_inner, next)) +
                "))");
  EXPECT_EQ(tree("fx_take_outer", "$p->handle"), "deref4(reg5" + off(offsetof(fx_outer, handle)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->color"), "derefs4(reg5" + off(offsetof(fx_outer, color)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->cv"), "derefs4(reg5" + off(offsetof(fx_outer, cv)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->u->ll"), "derefs8(reg5" + off(offsetof(fx_outer, u)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->u->bytes[2]"), "deref1(reg5" + off(offsetof(fx_outer, u) + 2) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->ax"), "derefs4(reg5" + off(offsetof(fx_outer, ax)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->pp"), "deref8(reg5" + off(offsetof(fx_outer, pp)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->label"), "deref8(reg5" + off(offsetof(fx_outer, label)) + ")");
  EXPECT_EQ(tree("fx_use_opaque", "$o->value"), "derefs8(reg5" + off(offsetof(fx_opaque, value)) + ")");
  EXPECT_EQ(tree("fx_many", "$a9->next->a"),
            "derefs4(deref8((deref8(reg7+24))" + off(offsetof(fx_inner, next)) + "))");
}

TEST(TargetVars, Indexing) {
  EXPECT_EQ(tree("fx_take_outer", "$p->longs[3]"), "derefs8(reg5" + off(offsetof(fx_outer, longs[3])) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->longs[0]"), "derefs8(reg5" + off(offsetof(fx_outer, longs)) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->grid[1][2]"), "derefs4(reg5" + off(offsetof(fx_outer, grid[1][2])) + ")");
  EXPECT_EQ(tree("fx_take_outer", "$p->argv[1]"), "deref8((deref8(reg5" + off(offsetof(fx_outer, argv)) + "))+8)");
  EXPECT_EQ(tree("fx_take_outer", "$p->argv[1][0]"),
            "derefs1(deref8((deref8(reg5" + off(offsetof(fx_outer, argv)) + "))+8))");
  EXPECT_EQ(tree("fx_take_outer", "$p->rowp[0][1]"), "derefs4((deref8(reg5" + off(offsetof(fx_outer, rowp)) + "))+4)");
  // Indexing a pointer steps by the pointee's size.
  EXPECT_EQ(tree("fx_take_outer", "$p->pin[2]->a"),
            "derefs4((deref8(reg5" + off(offsetof(fx_outer, pin)) + "))" + off(2* sizeof(fx_inner)) + ")");
  EXPECT_EQ(tree("fx_kinds", "$s[-1]"), "derefs1(reg1-1)");
}

TEST(TargetVars, Bitfields) {
  EXPECT_EQ(tree("fx_take_bits", "$b->lo"), "bits(deref4(reg5), 0, 3)");
  EXPECT_EQ(tree("fx_take_bits", "$b->s"), "bitss(deref4(reg5), 3, 5)");
  EXPECT_EQ(tree("fx_take_bits", "$b->mid"), "bits(deref4(reg5), 8, 20)");
  EXPECT_EQ(tree("fx_take_bits", "$b->neg"), "bitss(deref4(reg5), 28, 4)");
  EXPECT_EQ(tree("fx_take_bits", "$b->flag"), "bits(deref1(reg5+4), 0, 1)");
  EXPECT_EQ(tree("fx_take_bits", "$b->wide"), "bits(deref8(reg5+8), 0, 60)");
  EXPECT_EQ(tree("fx_take_bits", "$b->ecolor"), "bitss(deref4(reg5+12), 28, 4)");
  // Crosses its 4-byte unit: 8 bytes read from its first byte.
  EXPECT_EQ(tree("fx_take_bits", "$pk->x"), "bits(deref8(reg4), 4, 30)");
}

// A char array member is its address, a number, as in stap (which types
// $p->name long; kernel_string($p->name) reads it); so is any array member.
TEST(TargetVars, ArrayMemberIsItsAddress) {
  Resolved r("fx_take_outer", "$p->name");
  ASSERT_TRUE(r.access) << r.diag_text.str();
  EXPECT_FALSE(r.access->is_string);
  EXPECT_TRUE(r.access->address);
  EXPECT_EQ(debug::to_string(r.access->value), "reg5" + off(offsetof(fx_outer, name)));
  Resolved longs("fx_take_outer", "$p->longs");
  ASSERT_TRUE(longs.access) << longs.diag_text.str();
  EXPECT_TRUE(longs.access->address);
  EXPECT_EQ(debug::to_string(longs.access->value), "reg5" + off(offsetof(fx_outer, longs)));
  Resolved row("fx_take_outer", "$p->grid[1]");  // a row of a 2-D array
  ASSERT_TRUE(row.access) << row.diag_text.str();
  EXPECT_TRUE(row.access->address);
  EXPECT_EQ(debug::to_string(row.access->value), "reg5" + off(offsetof(fx_outer, grid) + 12));
  Resolved ch("fx_take_outer", "$p->name[3]");
  ASSERT_TRUE(ch.access);
  EXPECT_FALSE(ch.access->is_string);
  EXPECT_EQ(ch.tree(), "derefs1(reg5" + off(offsetof(fx_outer, name) + 3) + ")");
  Resolved ptr("fx_take_outer", "$p->label");  // char *: the pointer, read as a number
  ASSERT_TRUE(ptr.access);
  EXPECT_FALSE(ptr.access->is_string);
}

TEST(TargetVars, ConstantLocals) {
  EXPECT_EQ(tree("fx_consts", "$k"), "s32(42)");
  EXPECT_EQ(tree("fx_consts", "$neg"), "-3");
  // gcc encodes the unsigned char 200 as DW_AT_const_value -56; the read
  // truncates it to the variable's type.
  Resolved uc("fx_consts", "$uc");
  ASSERT_TRUE(uc.access) << uc.diag_text.str();
  EXPECT_EQ(Machine{}.eval(uc.access->value), 200u) << uc.tree();
  const debug::ProbeSite& s = site("fx_consts");
  EXPECT_EQ(error("fx_consts", "$t"),
            "not accessible at this address (pc: " + hex(s.addr) + "): not available at this address [man error::dwarf]");
}

TEST(TargetVars, Return) {
  EXPECT_EQ(tree("fx_many", "$return", true), "reg0");
  EXPECT_EQ(tree("fx_kinds", "$return", true), "s32(reg0)");
}

// ---- values: each tree run over an object this test's compiler laid out ----

TEST(TargetVars, TreesReadTheRightValues) {
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
  Machine m;
  m.regs[5] = reinterpret_cast<uint64_t>(o);
  m.regs[4] = 3;
  auto value = [&](const std::string& expr) -> int64_t {
    Resolved r("fx_take_outer", expr);
    if (!r.access) {
      ADD_FAILURE() << expr << ": " << r.diag_text.str();
      return 0;
    }
    return static_cast<int64_t>(m.eval(r.access->value));
  };
  EXPECT_EQ(value("$p"), reinterpret_cast<int64_t>(o));
  EXPECT_EQ(value("$idx"), 3);
  EXPECT_EQ(value("$p->tag"), -5);
  EXPECT_EQ(value("$p->in->a"), 123456);
  EXPECT_EQ(value("$p->in->b[2]"), -300);
  EXPECT_EQ(value("$p->pin->next->a"), -77);
  EXPECT_EQ(value("$p->pin->a"), 123456);
  EXPECT_EQ(value("$p->grid[1][2]"), 42);
  EXPECT_EQ(value("$p->name[3]"), 't');
  EXPECT_EQ(value("$p->cv"), -9);
  EXPECT_EQ(value("$p->handle"), 0xfffffff0ll);
  EXPECT_EQ(value("$p->color"), FX_BLUE);
  EXPECT_EQ(value("$p->u->ll"), -1234567890123ll);
  EXPECT_EQ(value("$p->u->i"), static_cast<int32_t>(-1234567890123ll & 0xffffffff));
  EXPECT_EQ(value("$p->ax"), 31);
  EXPECT_EQ(value("$p->argv[1][2]"), 'e');
  EXPECT_EQ(value("$p->rowp[0][3]"), 13);
  EXPECT_EQ(value("$p->longs[3]"), -4000000000ll);
  Resolved name("fx_take_outer", "$p->name");
  ASSERT_TRUE(name.access);
  EXPECT_STREQ(reinterpret_cast<const char*>(m.eval(name.access->value)), "fixture");
}

TEST(TargetVars, BitfieldTreesReadTheRightValues) {
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
  Machine m;
  m.regs[5] = reinterpret_cast<uint64_t>(&b);
  m.regs[4] = reinterpret_cast<uint64_t>(&pk);
  auto value = [&](const std::string& expr) -> int64_t {
    Resolved r("fx_take_bits", expr);
    if (!r.access) {
      ADD_FAILURE() << expr << ": " << r.diag_text.str();
      return 0;
    }
    return static_cast<int64_t>(m.eval(r.access->value));
  };
  EXPECT_EQ(value("$b->lo"), 5);
  EXPECT_EQ(value("$b->s"), -11);
  EXPECT_EQ(value("$b->mid"), 0xabcde);
  EXPECT_EQ(value("$b->neg"), -8);
  EXPECT_EQ(value("$b->flag"), 1);
  EXPECT_EQ(value("$b->wide"), 0xfedcba987654321ll);
  EXPECT_EQ(value("$b->ecolor"), FX_BLUE);
  EXPECT_EQ(value("$pk->c"), 9);
  EXPECT_EQ(value("$pk->x"), 0x2aaaaaaa);
  EXPECT_EQ(value("$pk->pad"), 3);
}

// fx_packed.y is 62 bits starting at bit 36 (bit 4 of byte 4): no 8-byte
// read holds it. Expected: a read that covers the field, or an error
// saying it cannot, never a Bits node with first+width > 64.
TEST(TargetVars, PackedBitfieldWiderThanOneReadFromItsFirstByte) {
  fx_packed pk{};
  pk.y = 0x3fffffffffffffffull;  // all 62 bits set: the top two are lost
  Machine m;
  m.regs[4] = reinterpret_cast<uint64_t>(&pk);
  Resolved r("fx_take_bits", "$pk->y");
  if (!r.access) return;  // refusing it is acceptable
  EXPECT_EQ(static_cast<uint64_t>(m.eval(r.access->value)), 0x3fffffffffffffffull) << r.tree();
}

// ---- diagnostics ----

TEST(TargetVars, UnknownLocalListsAlternatives) {
  const debug::ProbeSite& s = site("fx_take_outer");
  EXPECT_EQ(error("fx_take_outer", "$nosuch"),
            "unable to find local 'nosuch' near pc " + hex(s.addr) + " in fx_take_outer " + s.decl_file +
                " (alternatives: $p, $idx)");
  const debug::ProbeSite& b = site("fx_build");
  EXPECT_EQ(error("fx_build", "$nosuch"),
            "unable to find local 'nosuch' near pc " + hex(b.addr) + " in fx_build " + b.decl_file +
                " (alternatives: $n, $local)");
  const debug::ProbeSite& v = site("fx_void");
  EXPECT_EQ(error("fx_void", "$x"),
            "unable to find local 'x' near pc " + hex(v.addr) + " in fx_void " + v.decl_file +
                " (alternatives: none)");
  EXPECT_EQ(error("fx_many", "$x", true),
            "unable to find local 'x' near pc " + hex(site("fx_many").addr) + " in fx_many " +
                site("fx_many").decl_file + " (alternatives: $a1, $a2, $a3, $a4, $a5, $a6, $a7, $a8, $a9, $return)");
  // $return outside a .return probe is just an unknown name.
  EXPECT_EQ(error("fx_void", "$return"),
            "unable to find local 'return' near pc " + hex(v.addr) + " in fx_void " + v.decl_file +
                " (alternatives: none)");
}

TEST(TargetVars, UnknownMemberListsAlternatives) {
  EXPECT_EQ(error("fx_take_outer", "$p->in->nosuch"),
            "unable to find member 'nosuch' for struct fx_inner (alternatives: a, b, next)");
  EXPECT_EQ(error("fx_take_outer", "$p->nosuch"),
            "unable to find member 'nosuch' for struct fx_outer (alternatives: tag, in, pin, grid, name, cv, "
            "handle, color, u, pp, argv, label, rowp, longs)");
  EXPECT_EQ(error("fx_kinds", "$u->nosuch"), "unable to find member 'nosuch' for union fx_num (alternatives: i, f, bytes, ll)");
}

TEST(TargetVars, AggregateWithoutMember) {
  // As stap: where the type is defined, and its member first by name.
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::string in = error("fx_take_outer", "$p->in"), u = error("fx_take_outer", "$p->u");
  EXPECT_EQ(in.rfind("'struct fx_inner' (", 0), 0u) << in;
  EXPECT_TRUE(ends_with(in, "/dwarf_fixture.h:24) is being accessed instead of a member such as '->a'")) << in;
  EXPECT_EQ(u.rfind("'union fx_num' (", 0), 0u) << u;
  EXPECT_TRUE(ends_with(u, "/dwarf_fixture.h:30) is being accessed instead of a member such as '->bytes'")) << u;
  // (An array is its address: see ArrayMemberIsItsAddress.)
}

TEST(TargetVars, InvalidAccesses) {
  EXPECT_EQ(error("fx_take_outer", "$idx->x"), "invalid access '->x' vs. int");
  EXPECT_EQ(error("fx_take_outer", "$p->tag->x"), "invalid access '->x' vs. char");
  EXPECT_EQ(error("fx_take_outer", "$p->label->x"), "invalid access '->x' vs. char const*");
  EXPECT_EQ(error("fx_take_outer", "$p->handle->x"), "invalid access '->x' vs. unsigned int");
  EXPECT_EQ(error("fx_take_outer", "$idx[0]"), "invalid access '[0]' vs. int");
  EXPECT_EQ(error("fx_take_bits", "$b->lo->x"), "invalid access '->x' vs. unsigned int");
  EXPECT_EQ(error("fx_take_bits", "$b->lo[1]"), "invalid access '[...]' vs. unsigned int");
  // An index the script computes is a script value the access reads.
  EXPECT_EQ(tree("fx_take_outer", "$p->longs[$idx]"), "derefs8((reg5+144)+(input0*8))");
  EXPECT_EQ(Resolved("fx_take_outer", "$p->longs[$idx]").access->inputs.size(), 1u);
  EXPECT_EQ(error("fx_take_outer", "$p->longs[$idx]", true),
            "an index computed by the script in a value saved at function entry is not implemented in this stapx version");
  EXPECT_EQ(error("fx_use_opaque", "$nv->x"),
            "invalid access '->x' vs. struct fx_never (an incomplete type: no definition in the debug information)");
}

// A structure of 8 bytes passed by value in one register: its members are
// bits of the register.
TEST(TargetVars, SmallStructInARegister) {
  EXPECT_EQ(tree("fx_small_sum", "$s->a"), "s32(bits(reg5, 0, 32))");
  EXPECT_EQ(tree("fx_small_sum", "$s->b"), "s32(bits(reg5, 32, 32))");
}

TEST(TargetVars, LocationsItCannotRead) {
  EXPECT_EQ(error("fx_pair_sum", "$p->a").rfind("cannot read '$p' at pc " + hex(site("fx_pair_sum").addr) +
                                                 ": its location uses ", 0),
            0u);
}

TEST(TargetVars, PrettyAndEntryForms) {
  Resolved parms("fx_take_outer", "$$parms");
  ASSERT_TRUE(parms.access) << parms.message();
  EXPECT_TRUE(parms.access->is_pretty);
  EXPECT_EQ(parms.access->format.rfind("p=0x%llx", 0), 0u) << parms.access->format;
  Resolved pretty("fx_take_outer", "$p$");
  ASSERT_TRUE(pretty.access) << pretty.message();
  EXPECT_TRUE(pretty.access->is_pretty);
  // As stap: $$parms$ shows a pointer's structure as $p$ does, and an
  // anonymous member is named by its kind.
  Resolved parms1("fx_take_outer", "$$parms$");
  ASSERT_TRUE(parms1.access) << parms1.message();
  EXPECT_EQ(parms1.access->format.rfind("p={.tag=", 0), 0u) << parms1.access->format;
  EXPECT_NE(parms1.access->format.find(", <class>={...}, "), std::string::npos) << parms1.access->format;
  EXPECT_NE(parms1.access->format.find("} idx=%lld"), std::string::npos) << parms1.access->format;
  Resolved pretty2("fx_take_outer", "$p$$");
  ASSERT_TRUE(pretty2.access) << pretty2.message();
  EXPECT_NE(pretty2.access->format.find(", <class>={.ax=%lld, .ay=%lld}, "), std::string::npos)
      << pretty2.access->format;
  // A parameter in a .return probe is read from what the entry half saved.
  Resolved entry("fx_many", "$a1", true);
  ASSERT_TRUE(entry.access) << entry.message();
  EXPECT_EQ(entry.access->entry_slot, 0);
  ASSERT_EQ(entry.saved.size(), 1u);
  EXPECT_EQ(debug::to_string(entry.saved[0].value), "reg5");
  // A char array member is an address: saved as a number. The strings of
  // a pretty-printed structure are saved whole, each in its own save.
  Resolved name("fx_take_outer", "$p->name", true);
  ASSERT_TRUE(name.access) << name.message();
  EXPECT_FALSE(name.access->is_string);
  EXPECT_EQ(name.access->entry_slot, 0);
  ASSERT_EQ(name.saved.size(), 1u);
  EXPECT_FALSE(name.saved[0].saves_string());
  Resolved pretty_entry("fx_take_outer", "$p$$", true);
  ASSERT_TRUE(pretty_entry.access) << pretty_entry.message();
  size_t strings = 0;
  for (const TargetAccess& s : pretty_entry.saved) strings += s.saves_string();
  EXPECT_EQ(strings, 2u);  // .name and .u.bytes
  EXPECT_EQ(pretty_entry.saved.size(), pretty_entry.access->parts.size());
  const debug::ProbeSite& v = site("fx_void");
  EXPECT_EQ(error("fx_void", "$return", true),
            "unable to find local 'return' near pc " + hex(v.addr) + " in fx_void " + v.decl_file +
                " (alternatives: the function returns void)");
}

}  // namespace
}  // namespace stapx::test
