// DWARF location expressions -> LocExpr trees (translator/debuginfo/location.h):
// one test per operation the translator handles, on hand-built Dwarf_Op
// arrays, checking the exact readable form of the result.
#include <dwarf.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "translator/debuginfo/location.h"

namespace stapx::debug {
namespace {

Dwarf_Op op(uint8_t atom, Dwarf_Word number = 0, Dwarf_Word number2 = 0) {
  Dwarf_Op o{};
  o.atom = atom;
  o.number = number;
  o.number2 = number2;
  return o;
}

// A signed operand as libdw stores it (sign-extended into Dwarf_Word).
Dwarf_Word s(int64_t v) { return static_cast<Dwarf_Word>(v); }

// An operation whose operand is a block (entry_value, implicit_value), as
// libdw gives it: number = the block's length, number2 = a pointer to the
// block as DWARF encodes it, its ULEB128 length first, then its bytes.
// `length` overrides the encoded length (malformed input).
Dwarf_Op block_op(uint8_t atom, const std::vector<uint8_t>& bytes, int64_t length = -1) {
  static std::deque<std::vector<uint8_t>> blocks;  // alive for the whole run
  std::vector<uint8_t>& b = blocks.emplace_back();
  for (uint64_t n = length < 0 ? bytes.size() : static_cast<uint64_t>(length);; n >>= 7) {
    b.push_back((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  b.insert(b.end(), bytes.begin(), bytes.end());
  return op(atom, bytes.size(), static_cast<Dwarf_Word>(reinterpret_cast<uintptr_t>(b.data())));
}

std::string tr(const std::vector<Dwarf_Op>& ops, const LocContext& ctx = {}) {
  return to_string(translate_location(ops.data(), ops.size(), ctx));
}

const char* const kUnderflow = "unsupported: a malformed location (stack underflow)";

// ---- registers ----

TEST(Location, RegNIsThatRegister) {
  for (unsigned r = 0; r <= 31; ++r) {
    Location l = translate_location(std::vector<Dwarf_Op>{op(DW_OP_reg0 + r)}.data(), 1, {});
    EXPECT_EQ(l.kind, Location::Kind::Register) << r;
    EXPECT_EQ(l.reg, r);
    EXPECT_EQ(to_string(l), "reg" + std::to_string(r));
  }
}

TEST(Location, RegxTakesItsOperand) {
  EXPECT_EQ(tr({op(DW_OP_regx, 17)}), "reg17");
  EXPECT_EQ(tr({op(DW_OP_regx, 3)}), "reg3");
}

TEST(Location, RegisterFollowedByOnePieceIsTheRegister) {
  EXPECT_EQ(tr({op(DW_OP_reg5), op(DW_OP_piece, 8)}), "reg5");
  EXPECT_EQ(tr({op(DW_OP_regx, 20), op(DW_OP_piece, 4)}), "reg20");
}

TEST(Location, RegisterFollowedByOtherOperationsIsRefused) {
  EXPECT_EQ(tr({op(DW_OP_reg5), op(DW_OP_plus_uconst, 8)}),
            "unsupported: a register location followed by other operations");
  EXPECT_EQ(tr({op(DW_OP_lit1), op(DW_OP_reg5)}),
            "unsupported: a register location followed by other operations");
  EXPECT_EQ(tr({op(DW_OP_regx, 5), op(DW_OP_deref)}),
            "unsupported: a register location followed by other operations");
}

// ---- register-relative addresses ----

TEST(Location, BregNIsRegisterPlusOffset) {
  for (unsigned r = 0; r <= 31; ++r)
    EXPECT_EQ(tr({op(DW_OP_breg0 + r, 16)}), "mem(reg" + std::to_string(r) + "+16)");
  EXPECT_EQ(tr({op(DW_OP_breg3, 0)}), "mem(reg3)");
  EXPECT_EQ(tr({op(DW_OP_breg6, s(-24))}), "mem(reg6-24)");
}

TEST(Location, BregxTakesRegisterAndOffset) {
  EXPECT_EQ(tr({op(DW_OP_bregx, 33, 8)}), "mem(reg33+8)");
  EXPECT_EQ(tr({op(DW_OP_bregx, 7, s(-8))}), "mem(reg7-8)");
  EXPECT_EQ(tr({op(DW_OP_bregx, 1, 0)}), "mem(reg1)");
}

// ---- frame base and CFA ----

TEST(Location, FbregWithRegisterFrameBase) {
  LocContext ctx;
  ctx.frame_base = [] {
    Location l;
    l.kind = Location::Kind::Register;
    l.reg = 6;  // DW_OP_reg6 (rbp): the frame base is rbp's contents
    return l;
  };
  EXPECT_EQ(tr({op(DW_OP_fbreg, s(-20))}, ctx), "mem(reg6-20)");
  EXPECT_EQ(tr({op(DW_OP_fbreg, 0)}, ctx), "mem(reg6)");
}

TEST(Location, FbregWithComputedFrameBase) {
  // DW_AT_frame_base = DW_OP_call_frame_cfa, the CFA being rsp+8 at entry.
  LocContext ctx;
  ctx.cfa = [] { return loc_add(loc_reg(7), 8); };
  LocContext outer;
  outer.frame_base = [ctx] {
    std::vector<Dwarf_Op> fb{op(DW_OP_call_frame_cfa)};
    return translate_location(fb.data(), fb.size(), ctx);
  };
  EXPECT_EQ(tr({op(DW_OP_fbreg, 0)}, outer), "mem(reg7+8)");
  EXPECT_EQ(tr({op(DW_OP_fbreg, 16)}, outer), "mem(reg7+24)");
  EXPECT_EQ(tr({op(DW_OP_fbreg, s(-8))}, outer), "mem(reg7)");
  EXPECT_EQ(tr({op(DW_OP_fbreg, s(-40))}, outer), "mem(reg7-32)");
  EXPECT_EQ(tr({op(DW_OP_fbreg, 8), op(DW_OP_deref)}, outer), "mem(deref8(reg7+16))");
}

TEST(Location, FbregWithValueFrameBase) {
  LocContext ctx;
  ctx.frame_base = [] {
    Location l;
    l.kind = Location::Kind::Value;
    l.expr = loc_add(loc_reg(6), 16);
    return l;
  };
  EXPECT_EQ(tr({op(DW_OP_fbreg, 4)}, ctx), "mem(reg6+20)");
}

TEST(Location, FbregWithoutUsableFrameBase) {
  EXPECT_EQ(tr({op(DW_OP_fbreg, 8)}), "unsupported: DW_OP_fbreg without a frame base");
  LocContext ctx;
  ctx.frame_base = [] {
    Location l;
    l.kind = Location::Kind::Unavailable;
    l.why = "optimized out";
    return l;
  };
  EXPECT_EQ(tr({op(DW_OP_fbreg, 8)}, ctx), "unavailable: the frame base: optimized out");
  ctx.frame_base = [] {
    Location l;
    l.kind = Location::Kind::Unsupported;
    l.why = "DW_OP_bra";
    return l;
  };
  EXPECT_EQ(tr({op(DW_OP_fbreg, 8)}, ctx), "unsupported: the frame base: DW_OP_bra");
}

TEST(Location, CallFrameCfa) {
  LocContext ctx;
  ctx.cfa = [] { return loc_add(loc_reg(7), 8); };
  EXPECT_EQ(tr({op(DW_OP_call_frame_cfa)}, ctx), "mem(reg7+8)");
  EXPECT_EQ(tr({op(DW_OP_call_frame_cfa), op(DW_OP_plus_uconst, 8)}, ctx), "mem(reg7+16)");
  EXPECT_EQ(tr({op(DW_OP_call_frame_cfa), op(DW_OP_stack_value)}, ctx), "value(reg7+8)");
  EXPECT_EQ(tr({op(DW_OP_call_frame_cfa)}),
            "unsupported: no call frame information here (DW_OP_call_frame_cfa)");
  ctx.cfa = [] { return LocExprP(); };
  EXPECT_EQ(tr({op(DW_OP_call_frame_cfa)}, ctx),
            "unsupported: no call frame information here (DW_OP_call_frame_cfa)");
}

// ---- constants ----

TEST(Location, LitN) {
  for (unsigned k = 0; k <= 31; ++k)
    EXPECT_EQ(tr({op(DW_OP_lit0 + k), op(DW_OP_stack_value)}), "value(" + std::to_string(k) + ")");
  EXPECT_EQ(tr({op(DW_OP_lit4)}), "mem(4)");
}

TEST(Location, ConstForms) {
  auto v = [](Dwarf_Op o) { return tr({o, op(DW_OP_stack_value)}); };
  EXPECT_EQ(v(op(DW_OP_const1u, 200)), "value(200)");
  EXPECT_EQ(v(op(DW_OP_const1s, s(-5))), "value(-5)");
  EXPECT_EQ(v(op(DW_OP_const2u, 65535)), "value(65535)");
  EXPECT_EQ(v(op(DW_OP_const2s, s(-300))), "value(-300)");
  EXPECT_EQ(v(op(DW_OP_const4u, 0xffffffffu)), "value(4294967295)");
  EXPECT_EQ(v(op(DW_OP_const4s, s(-70000))), "value(-70000)");
  EXPECT_EQ(v(op(DW_OP_const8u, 0x123456789ull)), "value(4886718345)");
  EXPECT_EQ(v(op(DW_OP_const8s, s(-1))), "value(-1)");
  EXPECT_EQ(v(op(DW_OP_constu, 1000000)), "value(1000000)");
  EXPECT_EQ(v(op(DW_OP_consts, s(-7))), "value(-7)");
}

TEST(Location, Addr) {
  EXPECT_EQ(tr({op(DW_OP_addr, 0xffffffff82000000ull)}), "mem(addr(0xffffffff82000000))");
  EXPECT_EQ(tr({op(DW_OP_addr, 0x4010), op(DW_OP_stack_value)}), "value(addr(0x4010))");
  EXPECT_EQ(tr({op(DW_OP_addr, 0x4010), op(DW_OP_plus_uconst, 8)}), "mem(addr(0x4010)+8)");
}

// ---- stack manipulation ----

TEST(Location, Dup) {
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_dup), op(DW_OP_plus), op(DW_OP_stack_value)}),
            "value(reg5+reg5)");
  EXPECT_EQ(tr({op(DW_OP_dup)}), kUnderflow);
}

TEST(Location, Drop) {
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_breg4, 0), op(DW_OP_drop)}), "mem(reg5)");
  EXPECT_EQ(tr({op(DW_OP_drop)}), kUnderflow);
  EXPECT_EQ(tr({op(DW_OP_lit1), op(DW_OP_drop)}), "unsupported: an empty location");
}

TEST(Location, Over) {
  // [r5, r4] -> [r5, r4, r5]; minus: r4 - r5
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_breg4, 0), op(DW_OP_over), op(DW_OP_minus),
                op(DW_OP_stack_value)}),
            "value(reg4-reg5)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_breg4, 0), op(DW_OP_over)}), "mem(reg5)");
  EXPECT_EQ(tr({op(DW_OP_lit1), op(DW_OP_over)}), kUnderflow);
}

TEST(Location, Pick) {
  std::vector<Dwarf_Op> three{op(DW_OP_breg1, 0), op(DW_OP_breg2, 0), op(DW_OP_breg3, 0)};
  auto with = [&](std::vector<Dwarf_Op> tail) {
    std::vector<Dwarf_Op> ops = three;
    ops.insert(ops.end(), tail.begin(), tail.end());
    return tr(ops);
  };
  EXPECT_EQ(with({op(DW_OP_pick, 0)}), "mem(reg3)");
  EXPECT_EQ(with({op(DW_OP_pick, 1)}), "mem(reg2)");
  EXPECT_EQ(with({op(DW_OP_pick, 2)}), "mem(reg1)");
  EXPECT_EQ(with({op(DW_OP_pick, 2), op(DW_OP_minus), op(DW_OP_stack_value)}), "value(reg3-reg1)");
  EXPECT_EQ(with({op(DW_OP_pick, 3)}), kUnderflow);
  EXPECT_EQ(tr({op(DW_OP_pick, 0)}), kUnderflow);
}

TEST(Location, Swap) {
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_breg2, 0), op(DW_OP_swap), op(DW_OP_minus),
                op(DW_OP_stack_value)}),
            "value(reg2-reg1)");
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_breg2, 0), op(DW_OP_swap)}), "mem(reg1)");
  EXPECT_EQ(tr({op(DW_OP_lit1), op(DW_OP_swap)}), kUnderflow);
}

TEST(Location, Rot) {
  // [r1, r2, r3] (r3 on top) -> [r3, r1, r2]: the top becomes third, the
  // second the top, the third the second.
  std::vector<Dwarf_Op> base{op(DW_OP_breg1, 0), op(DW_OP_breg2, 0), op(DW_OP_breg3, 0), op(DW_OP_rot)};
  EXPECT_EQ(tr(base), "mem(reg2)");
  std::vector<Dwarf_Op> ops = base;
  ops.push_back(op(DW_OP_drop));
  EXPECT_EQ(tr(ops), "mem(reg1)");
  ops.push_back(op(DW_OP_drop));
  EXPECT_EQ(tr(ops), "mem(reg3)");
  ops = base;
  ops.insert(ops.end(), {op(DW_OP_minus), op(DW_OP_minus), op(DW_OP_stack_value)});
  EXPECT_EQ(tr(ops), "value(reg3-(reg1-reg2))");
  EXPECT_EQ(tr({op(DW_OP_lit1), op(DW_OP_lit2), op(DW_OP_rot)}), kUnderflow);
}

// ---- memory ----

TEST(Location, Deref) {
  EXPECT_EQ(tr({op(DW_OP_breg7, 8), op(DW_OP_deref)}), "mem(deref8(reg7+8))");
  EXPECT_EQ(tr({op(DW_OP_breg7, 8), op(DW_OP_deref), op(DW_OP_deref)}), "mem(deref8(deref8(reg7+8)))");
  EXPECT_EQ(tr({op(DW_OP_breg7, 8), op(DW_OP_deref), op(DW_OP_stack_value)}), "value(deref8(reg7+8))");
  EXPECT_EQ(tr({op(DW_OP_deref)}), kUnderflow);
}

TEST(Location, DerefSize) {
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_deref_size, 1)}), "mem(deref1(reg7))");
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_deref_size, 2)}), "mem(deref2(reg7))");
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_deref_size, 4)}), "mem(deref4(reg7))");
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_deref_size, 8)}), "mem(deref8(reg7))");
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_deref_size, 3)}), "unsupported: DW_OP_deref_size 3");
  EXPECT_EQ(tr({op(DW_OP_deref_size, 4)}), kUnderflow);
}

// ---- arithmetic ----

TEST(Location, PlusUconstFoldsIntoTheOffset) {
  EXPECT_EQ(tr({op(DW_OP_breg7, 8), op(DW_OP_plus_uconst, 16)}), "mem(reg7+24)");
  EXPECT_EQ(tr({op(DW_OP_breg7, s(-16)), op(DW_OP_plus_uconst, 16)}), "mem(reg7)");
  EXPECT_EQ(tr({op(DW_OP_lit3), op(DW_OP_plus_uconst, 4), op(DW_OP_stack_value)}), "value(7)");
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_deref), op(DW_OP_plus_uconst, 8)}), "mem((deref8(reg7))+8)");
  EXPECT_EQ(tr({op(DW_OP_plus_uconst, 8)}), kUnderflow);
}

TEST(Location, EveryBinaryOperation) {
  struct Case {
    uint8_t atom;
    const char* text;
  } cases[] = {
      {DW_OP_plus, "+"}, {DW_OP_minus, "-"}, {DW_OP_mul, "*"},  {DW_OP_div, "/"},
      {DW_OP_mod, "%"},  {DW_OP_and, "&"},   {DW_OP_or, "|"},   {DW_OP_xor, "^"},
      {DW_OP_shl, "<<"}, {DW_OP_shr, ">>"},  {DW_OP_shra, ">>>"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_breg2, 0), op(c.atom), op(DW_OP_stack_value)}),
              std::string("value(reg1") + c.text + "reg2)")
        << c.text;
    EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(c.atom)}), kUnderflow) << c.text;
    EXPECT_EQ(tr({op(c.atom)}), kUnderflow) << c.text;
  }
}

TEST(Location, PlusAndMinusOfAConstantFold) {
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_lit4), op(DW_OP_plus)}), "mem(reg1+4)");
  EXPECT_EQ(tr({op(DW_OP_breg1, 8), op(DW_OP_lit4), op(DW_OP_minus)}), "mem(reg1+4)");
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_lit4), op(DW_OP_minus)}), "mem(reg1-4)");
  EXPECT_EQ(tr({op(DW_OP_lit2), op(DW_OP_lit3), op(DW_OP_plus), op(DW_OP_stack_value)}), "value(5)");
  EXPECT_EQ(tr({op(DW_OP_lit2), op(DW_OP_lit3), op(DW_OP_minus), op(DW_OP_stack_value)}), "value(-1)");
  // Only + and - fold; a constant on the left stays where it is.
  EXPECT_EQ(tr({op(DW_OP_lit2), op(DW_OP_lit3), op(DW_OP_mul), op(DW_OP_stack_value)}), "value(2*3)");
  EXPECT_EQ(tr({op(DW_OP_lit2), op(DW_OP_breg1, 0), op(DW_OP_plus), op(DW_OP_stack_value)}),
            "value(2+reg1)");
}

TEST(Location, NestedOperandsAreParenthesized) {
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_breg2, 0), op(DW_OP_mul), op(DW_OP_breg3, 0), op(DW_OP_plus),
                op(DW_OP_stack_value)}),
            "value((reg1*reg2)+reg3)");
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_lit3), op(DW_OP_shl), op(DW_OP_lit8), op(DW_OP_plus),
                op(DW_OP_stack_value)}),
            "value((reg1<<3)+8)");
}

// A negative constant added to a compound expression keeps its
// parentheses, as the positive case above does.
TEST(Location, NegativeOffsetOfCompoundIsParenthesized) {
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_lit3), op(DW_OP_shl), op(DW_OP_lit8), op(DW_OP_minus),
                op(DW_OP_stack_value)}),
            "value((reg1<<3)-8)");
}

TEST(Location, NegNotAbs) {
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_neg), op(DW_OP_stack_value)}), "value(-(reg1))");
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_not), op(DW_OP_stack_value)}), "value(~(reg1))");
  EXPECT_EQ(tr({op(DW_OP_breg1, 0), op(DW_OP_abs), op(DW_OP_stack_value)}), "value(abs(reg1))");
  EXPECT_EQ(tr({op(DW_OP_neg)}), kUnderflow);
  EXPECT_EQ(tr({op(DW_OP_not)}), kUnderflow);
  EXPECT_EQ(tr({op(DW_OP_abs)}), kUnderflow);
}

// ---- values rather than places ----

TEST(Location, StackValue) {
  Location l;
  std::vector<Dwarf_Op> ops{op(DW_OP_breg5, 0), op(DW_OP_stack_value)};
  l = translate_location(ops.data(), ops.size(), {});
  EXPECT_EQ(l.kind, Location::Kind::Value);
  EXPECT_EQ(to_string(l), "value(reg5)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_stack_value), op(DW_OP_piece, 8)}), "value(reg5)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_stack_value), op(DW_OP_lit1)}),
            "unsupported: DW_OP_stack_value before other operations");
  EXPECT_EQ(tr({op(DW_OP_stack_value)}), kUnderflow);
}

TEST(Location, ImplicitValue) {
  std::vector<uint8_t> four{0x78, 0x56, 0x34, 0x12};
  EXPECT_EQ(tr({block_op(DW_OP_implicit_value, four)}), "value(305419896)");
  std::vector<uint8_t> one{0x2a};
  EXPECT_EQ(tr({block_op(DW_OP_implicit_value, one)}), "value(42)");
  std::vector<uint8_t> eight(8, 0xff);
  EXPECT_EQ(tr({block_op(DW_OP_implicit_value, eight)}), "value(-1)");
  std::vector<uint8_t> nine(9, 0x01);
  EXPECT_EQ(tr({block_op(DW_OP_implicit_value, nine)}), "unsupported: an implicit value wider than 8 bytes");
}

TEST(Location, EntryValueAtEntryIsTheRegister) {
  LocContext entry;
  entry.at_entry = true;
  std::vector<uint8_t> reg5{DW_OP_reg5};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg5), op(DW_OP_stack_value)}, entry), "value(reg5)");
  EXPECT_EQ(tr({block_op(DW_OP_GNU_entry_value, reg5), op(DW_OP_stack_value)}, entry), "value(reg5)");
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg5), op(DW_OP_plus_uconst, 8), op(DW_OP_stack_value)}, entry),
            "value(reg5+8)");
  std::vector<uint8_t> regx17{DW_OP_regx, 0x11};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, regx17), op(DW_OP_stack_value)}, entry), "value(reg17)");
  std::vector<uint8_t> regx128{DW_OP_regx, 0x80, 0x01};  // ULEB128 128
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, regx128), op(DW_OP_stack_value)}, entry), "value(reg128)");
}

// Away from the entry the register holds something else: the value the
// module recorded at this call's entry (an EntryReg node, carrying the CFA
// at the probe, which names the call).
TEST(Location, EntryValueElsewhereIsTheRecordedRegister) {
  LocContext ctx;
  ctx.entry_values = true;
  ctx.cfa = [] { return loc_add(loc_reg(7), 160); };
  std::vector<uint8_t> reg4{DW_OP_reg4};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4), op(DW_OP_stack_value)}, ctx), "value(entry(reg4))");
  EXPECT_EQ(tr({block_op(DW_OP_GNU_entry_value, reg4), op(DW_OP_stack_value)}, ctx), "value(entry(reg4))");
  Location l = translate_location(
      std::vector<Dwarf_Op>{block_op(DW_OP_entry_value, reg4), op(DW_OP_stack_value)}.data(), 2, ctx);
  ASSERT_EQ(l.kind, Location::Kind::Value);
  ASSERT_EQ(l.expr->op, LocExpr::Op::EntryReg);
  EXPECT_EQ(l.expr->value, 4);
  EXPECT_EQ(to_string(l.expr->a), "reg7+160");
  // In an expression, and as an address (no DW_OP_stack_value).
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4), op(DW_OP_plus_uconst, 8), op(DW_OP_stack_value)}, ctx),
            "value(entry(reg4)+8)");
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4), op(DW_OP_deref_size, 4), op(DW_OP_stack_value)}, ctx),
            "value(deref4(entry(reg4)))");
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4)}, ctx), "mem(entry(reg4))");
  std::vector<uint8_t> regx40{DW_OP_regx, 40};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, regx40), op(DW_OP_stack_value)}, ctx), "value(entry(reg40))");
  // At the entry itself it stays the register.
  ctx.at_entry = true;
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4), op(DW_OP_stack_value)}, ctx), "value(reg4)");
  // The operations after it apply to the recorded value.
  ctx.at_entry = false;
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4), op(DW_OP_const4u, 0x7ffff000), op(DW_OP_mul),
                op(DW_OP_stack_value)},
               ctx),
            "value(entry(reg4)*2147479552)");
}

// Without call frame information the probe cannot tell which call runs,
// and a split-off part of a function (.cold) has no entry of its own to
// watch: refused, saying why and naming the register.
TEST(Location, EntryValueElsewhereUnavailableWithoutCallOrEntry) {
  std::vector<uint8_t> reg4{DW_OP_reg4};
  LocContext no_cfa;
  no_cfa.entry_values = true;
  no_cfa.cfa = [] { return LocExprP(); };
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg4), op(DW_OP_stack_value)}, no_cfa),
            "unavailable: its value here is the one rsi had at the function's entry (DW_OP_entry_value), and "
            "there is no call frame information here to tell which call of the function runs; read it in a probe "
            "on the function's entry");
  LocContext split;
  split.cfa = [] { return loc_add(loc_reg(7), 8); };
  EXPECT_EQ(tr({block_op(DW_OP_GNU_entry_value, reg4), op(DW_OP_stack_value)}, split),
            "unavailable: its value here is the one rsi had at the function's entry (DW_OP_entry_value), and "
            "this code is not in the part of the function that starts at its entry (a split-off part); read it "
            "in a probe on the function's entry");
  std::vector<uint8_t> regx40{DW_OP_regx, 40};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, regx40), op(DW_OP_stack_value)}, no_cfa).rfind(
                "unavailable: its value here is the one register 40 had at the function's entry", 0),
            0u);
}

// The block's length as encoded must be the one libdw reports.
TEST(Location, BlockLengthsThatDisagreeAreRefused) {
  LocContext entry;
  entry.at_entry = true;
  std::vector<uint8_t> reg5{DW_OP_reg5};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, reg5, 2), op(DW_OP_stack_value)}, entry),
            "unsupported: an entry value of an expression (DW_OP_entry_value)");
  std::vector<uint8_t> four{1, 2, 3, 4};
  EXPECT_EQ(tr({block_op(DW_OP_implicit_value, four, 3)}),
            "unsupported: a malformed implicit value (DW_OP_implicit_value)");
}

TEST(Location, EntryValueOfAnExpressionIsRefused) {
  LocContext entry;
  entry.at_entry = true;
  std::vector<uint8_t> breg{DW_OP_breg5, 0x00};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, breg), op(DW_OP_stack_value)}, entry),
            "unsupported: an entry value of an expression (DW_OP_entry_value)");
  std::vector<uint8_t> two_regs{DW_OP_reg5, DW_OP_reg4};
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, two_regs), op(DW_OP_stack_value)}, entry),
            "unsupported: an entry value of an expression (DW_OP_entry_value)");
  std::vector<uint8_t> regx_trailing{DW_OP_regx, 0x05, 0x00};  // bytes after the ULEB128
  EXPECT_EQ(tr({block_op(DW_OP_entry_value, regx_trailing), op(DW_OP_stack_value)}, entry),
            "unsupported: an entry value of an expression (DW_OP_entry_value)");
  EXPECT_EQ(tr({op(DW_OP_entry_value, 1, 0), op(DW_OP_stack_value)}, entry),
            "unsupported: an entry value of an expression (DW_OP_entry_value)");
}

// ---- pieces ----

TEST(Location, SinglePieceIsTheWholeValue) {
  EXPECT_EQ(tr({op(DW_OP_breg7, 8), op(DW_OP_piece, 8)}), "mem(reg7+8)");
  EXPECT_EQ(tr({op(DW_OP_lit5), op(DW_OP_stack_value), op(DW_OP_piece, 4)}), "value(5)");
}

TEST(Location, SeveralPiecesAreRefused) {
  EXPECT_EQ(tr({op(DW_OP_breg7, 0), op(DW_OP_piece, 4), op(DW_OP_breg7, 8), op(DW_OP_piece, 4)}),
            "unsupported: a value in several pieces (DW_OP_piece)");
}

// A value split over registers, the commonest multi-piece location (gcc's
// for a 16-byte struct passed by value: DW_OP_reg5 DW_OP_piece 8
// DW_OP_reg4 DW_OP_piece 8), says so.
TEST(Location, SeveralRegisterPiecesSaySo) {
  EXPECT_EQ(tr({op(DW_OP_reg5), op(DW_OP_piece, 8), op(DW_OP_reg4), op(DW_OP_piece, 8)}),
            "unsupported: a value in several pieces (DW_OP_piece)");
  EXPECT_EQ(tr({op(DW_OP_regx, 17), op(DW_OP_piece, 8), op(DW_OP_regx, 18), op(DW_OP_piece, 8)}),
            "unsupported: a value in several pieces (DW_OP_piece)");
  // The same for constant pieces: "DW_OP_stack_value before other operations".
  EXPECT_EQ(tr({op(DW_OP_lit1), op(DW_OP_stack_value), op(DW_OP_piece, 4), op(DW_OP_lit2), op(DW_OP_stack_value),
                op(DW_OP_piece, 4)}),
            "unsupported: a value in several pieces (DW_OP_piece)");
}

// ---- the rest ----

TEST(Location, NopIsIgnored) {
  EXPECT_EQ(tr({op(DW_OP_nop), op(DW_OP_breg5, 0), op(DW_OP_nop)}), "mem(reg5)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 8), op(DW_OP_nop), op(DW_OP_deref)}), "mem(deref8(reg5+8))");
  EXPECT_EQ(tr({op(DW_OP_nop)}), "unsupported: an empty location");
}

// ---- comparisons and branches ----

// Each operation at its byte offset in the expression, as libdw gives them
// (DW_OP_bra and DW_OP_skip count their target in bytes).
std::vector<Dwarf_Op> laid_out(std::vector<std::pair<Dwarf_Op, unsigned>> sized) {
  std::vector<Dwarf_Op> out;
  Dwarf_Word at = 0;
  for (auto& [o, size] : sized) {
    o.offset = at;
    at += size;
    out.push_back(o);
  }
  return out;
}

TEST(Location, ComparisonsAreSignedAndYieldOneOrZero) {
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_breg4, 0), op(DW_OP_eq), op(DW_OP_stack_value)}), "value(reg5==reg4)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_lit3), op(DW_OP_ne), op(DW_OP_stack_value)}), "value(reg5!=3)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_lit3), op(DW_OP_lt), op(DW_OP_stack_value)}), "value(reg5<3)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_lit3), op(DW_OP_gt), op(DW_OP_stack_value)}), "value(reg5>3)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_lit3), op(DW_OP_le), op(DW_OP_stack_value)}), "value(reg5<=3)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_lit3), op(DW_OP_ge), op(DW_OP_stack_value)}), "value(reg5>=3)");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_eq)}), kUnderflow);
}

// gcc's min(count, MAX_RW_COUNT) over an entry value, as in vfs_read's
// $count after rw_verify_area: a branch on a value known at run time
// becomes a choice between what each path computes.
TEST(Location, BranchOnARunTimeValueChooses) {
  LocContext ctx;
  ctx.entry_values = true;
  ctx.cfa = [] { return loc_add(loc_reg(7), 160); };
  std::vector<uint8_t> reg1{DW_OP_reg1};
  auto ops = laid_out({{block_op(DW_OP_entry_value, reg1), 3},
                       {op(DW_OP_const4u, 0x7ffff000), 5},
                       {block_op(DW_OP_entry_value, reg1), 3},
                       {op(DW_OP_plus_uconst, 0x8000000000000000ULL), 11},
                       {op(DW_OP_consts, s(-9223372034707296256LL)), 10},
                       {op(DW_OP_le), 1},
                       {op(DW_OP_bra, 1), 3},
                       {op(DW_OP_swap), 1},
                       {op(DW_OP_drop), 1},
                       {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(ops, ctx),
            "value((entry(reg1)-9223372036854775808)<=-9223372034707296256 ? entry(reg1) : 2147479552)");
  // The paths may join again (DW_OP_skip).
  auto twice = laid_out({{op(DW_OP_breg5, 0), 2},
                         {op(DW_OP_bra, 4), 3},
                         {op(DW_OP_lit1), 1},
                         {op(DW_OP_skip, 1), 3},
                         {op(DW_OP_lit2), 1},
                         {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(twice), "value(reg5 ? 2 : 1)");
  // As an address.
  auto addr = laid_out({{op(DW_OP_breg5, 0), 2}, {op(DW_OP_bra, 5), 3}, {op(DW_OP_breg4, 0), 2},
                        {op(DW_OP_skip, 2), 3}, {op(DW_OP_breg3, 0), 2}});
  EXPECT_EQ(tr(addr), "mem(reg5 ? reg3 : reg4)");
}

// A branch on a constant goes one way; DW_OP_skip always jumps.
TEST(Location, BranchOnAConstantAndSkip) {
  auto taken = laid_out({{op(DW_OP_lit1), 1}, {op(DW_OP_bra, 1), 3}, {op(DW_OP_lit7), 1}, {op(DW_OP_lit9), 1},
                         {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(taken), "value(9)");
  auto not_taken = laid_out({{op(DW_OP_lit0), 1}, {op(DW_OP_bra, 1), 3}, {op(DW_OP_lit7), 1},
                             {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(not_taken), "value(7)");
  auto skip = laid_out({{op(DW_OP_lit4), 1}, {op(DW_OP_skip, 1), 3}, {op(DW_OP_lit7), 1},
                        {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(skip), "value(4)");
}

// Loops cannot become a tree; a target inside an operation is malformed;
// paths that end in different kinds of location cannot be merged.
TEST(Location, BranchesItRefuses) {
  auto back = laid_out({{op(DW_OP_breg5, 0), 2}, {op(DW_OP_skip, s(-5)), 3}});
  EXPECT_EQ(tr(back), "unsupported: DW_OP_skip backwards");
  auto inside = laid_out({{op(DW_OP_breg5, 0), 2}, {op(DW_OP_bra, 1), 3}, {op(DW_OP_const4u, 5), 5},
                          {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(inside), "unsupported: a malformed DW_OP_bra target");
  auto kinds = laid_out({{op(DW_OP_breg4, 0), 2}, {op(DW_OP_breg5, 0), 2}, {op(DW_OP_bra, 4), 3},
                         {op(DW_OP_lit1), 1}, {op(DW_OP_skip, 1), 3}, {op(DW_OP_stack_value), 1}});
  EXPECT_EQ(tr(kinds), "unsupported: a location whose kind depends on a branch (DW_OP_bra)");
  auto empty = laid_out({{op(DW_OP_bra, 0), 3}});
  EXPECT_EQ(tr(empty), kUnderflow);
}

TEST(Location, UnknownOperationsAreNamed) {
  EXPECT_EQ(tr({op(DW_OP_addr, 0x10), op(DW_OP_GNU_push_tls_address)}), "unsupported: DW_OP_GNU_push_tls_address");
  EXPECT_EQ(tr({op(DW_OP_addr, 0x10), op(DW_OP_form_tls_address)}), "unsupported: DW_OP_form_tls_address");
  EXPECT_EQ(tr({op(DW_OP_implicit_pointer, 0x100, 0)}), "unsupported: DW_OP_implicit_pointer");
  EXPECT_EQ(tr({op(DW_OP_GNU_implicit_pointer, 0x100, 0)}), "unsupported: DW_OP_GNU_implicit_pointer");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_convert, 0x30)}), "unsupported: DW_OP_convert");
  EXPECT_EQ(tr({op(DW_OP_reg5), op(DW_OP_bit_piece, 3, 0)}),
            "unsupported: a register location followed by other operations");
  EXPECT_EQ(tr({op(DW_OP_breg5, 0), op(DW_OP_bit_piece, 3, 0)}), "unsupported: DW_OP_bit_piece");
  EXPECT_EQ(tr({op(DW_OP_push_object_address)}), "unsupported: DW_OP_push_object_address");
  EXPECT_EQ(tr({op(0xc0)}), "unsupported: DW_OP 0xc0");
  EXPECT_EQ(tr({op(0x00)}), "unsupported: DW_OP 0x00");
}

TEST(Location, EmptyExpressionIsOptimizedOut) {
  Location l = translate_location(nullptr, 0, {});
  EXPECT_EQ(l.kind, Location::Kind::Unavailable);
  EXPECT_EQ(to_string(l), "unavailable: optimized out");
}

// ---- the building blocks target_vars.cpp uses ----

TEST(Location, BuildingBlocks) {
  EXPECT_EQ(to_string(loc_const(-3)), "-3");
  EXPECT_EQ(to_string(loc_reg(5)), "reg5");
  EXPECT_EQ(to_string(loc_add(loc_reg(5), 0)), "reg5");
  EXPECT_EQ(to_string(loc_add(loc_add(loc_reg(5), 8), 8)), "reg5+16");
  EXPECT_EQ(to_string(loc_add(loc_const(8), 8)), "16");
  EXPECT_EQ(to_string(loc_deref(loc_reg(5), 4, false)), "deref4(reg5)");
  EXPECT_EQ(to_string(loc_deref(loc_reg(5), 2, true)), "derefs2(reg5)");
  EXPECT_EQ(to_string(loc_trunc(loc_reg(5), 4, true)), "s32(reg5)");
  EXPECT_EQ(to_string(loc_trunc(loc_reg(5), 1, false)), "u8(reg5)");
  EXPECT_EQ(to_string(loc_trunc(loc_reg(5), 8, true)), "reg5");
  EXPECT_EQ(to_string(loc_bits(loc_deref(loc_reg(5), 4, false), 3, 5, false)), "bits(deref4(reg5), 3, 5)");
  EXPECT_EQ(to_string(loc_bits(loc_reg(5), 0, 1, true)), "bitss(reg5, 0, 1)");
  EXPECT_EQ(to_string(LocExprP()), "?");
}

TEST(Location, RegisterNames) {
  EXPECT_STREQ(dwarf_reg_name(0), "rax");
  EXPECT_STREQ(dwarf_reg_name(5), "rdi");
  EXPECT_STREQ(dwarf_reg_name(4), "rsi");
  EXPECT_STREQ(dwarf_reg_name(1), "rdx");
  EXPECT_STREQ(dwarf_reg_name(2), "rcx");
  EXPECT_STREQ(dwarf_reg_name(8), "r8");
  EXPECT_STREQ(dwarf_reg_name(9), "r9");
  EXPECT_STREQ(dwarf_reg_name(7), "rsp");
  EXPECT_STREQ(dwarf_reg_name(16), "rip");
  EXPECT_EQ(dwarf_reg_name(17), nullptr);
}

}  // namespace
}  // namespace stapx::debug
