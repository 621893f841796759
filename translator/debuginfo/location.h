// DWARF location expressions translated into a small expression tree that
// codegen turns into C reading the probed context's registers and memory.
// The translation runs the DWARF stack machine symbolically: each stack slot
// holds a LocExpr, so the result says how to compute the value at run time
// rather than the value itself.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace stapx::debug {

struct LocExpr;
using LocExprP = std::shared_ptr<const LocExpr>;

struct LocExpr {
  enum class Op : uint8_t {
    Const,     // value
    Addr,      // value: a link-time kernel address, relocated at run time (KASLR)
    Reg,       // value: DWARF register number; the register's contents
    Deref,     // value: size in bytes (1, 2, 4, 8); reads *a (fault-checked)
    Add, Sub, Mul, Div, Mod, And, Or, Xor, Shl, Shr, Shra,
    Neg, Not, Abs,
    Trunc,     // value: size in bytes; a converted to that width (is_signed: sign-extended)
    Bits,      // a bitfield of a: value = first bit, width = bits (is_signed: sign-extended)
    Input,     // value: index of a value the script computes (@cast's pointer)
    EntryReg,  // value: DWARF register number; what it held at the entry of the
               // function being run (DW_OP_entry_value), a: the CFA at the probe,
               // which names that call (see runtime-c/probes/entry_values.c)
    Eq, Ne, Lt, Gt, Le, Ge,  // signed comparisons of a and b: 1 or 0
    Select,    // a != 0 ? b : c (DW_OP_bra); only the chosen one is computed
  };
  Op op = Op::Const;
  int64_t value = 0;
  uint32_t width = 0;
  bool is_signed = false;  // Deref, Trunc, Bits
  LocExprP a, b, c;
};

struct Location {
  enum class Kind : uint8_t {
    Unavailable,  // no location at this address (optimized out): `why` says so
    Unsupported,  // an operation stapx does not translate: `why` names it
    Register,     // the value is in DWARF register `reg`
    Memory,       // the value is in memory at address `expr`
    Value,        // the value is `expr` itself (DW_OP_stack_value, constants)
  };
  Kind kind = Kind::Unavailable;
  unsigned reg = 0;
  LocExprP expr;
  std::string why;
};

// What the translator knows about the probed address.
struct LocContext {
  // DW_OP_fbreg: the enclosing function's DW_AT_frame_base, translated.
  std::function<Location()> frame_base;
  // DW_OP_call_frame_cfa: the canonical frame address at the probe, or null.
  std::function<LocExprP()> cfa;
  // The probe is at the function's entry, so DW_OP_entry_value(DW_OP_regN)
  // is simply register N.
  bool at_entry = false;
  // Elsewhere in the function, DW_OP_entry_value(DW_OP_regN) is register N
  // as the module recorded it when this call entered the function (an
  // EntryReg node), if the function's entry is where its symbol starts
  // (not a .cold part) and `cfa` tells which call is running.
  bool entry_values = false;
};

Location translate_location(const Dwarf_Op* ops, size_t n, const LocContext& ctx);

// Building blocks, for the resolution of $var->field chains.
LocExprP loc_const(int64_t v);
LocExprP loc_reg(unsigned reg);
LocExprP loc_add(LocExprP a, int64_t k);  // folds constants
LocExprP loc_deref(LocExprP addr, unsigned size, bool is_signed);
LocExprP loc_trunc(LocExprP v, unsigned size, bool is_signed);
LocExprP loc_bits(LocExprP v, unsigned first, unsigned width, bool is_signed);

// Readable forms, for -vv and unit tests: "reg5", "mem(reg7+8)", "value(reg5+16)",
// "entry(reg5)" (an entry value).
std::string to_string(const LocExprP& e);
std::string to_string(const Location& loc);
// "DW_OP_piece"...; a number for ops without a name here.
std::string op_name(uint8_t atom);
// x86_64 DWARF register names ("rdi") and their number from a name.
const char* dwarf_reg_name(unsigned reg);

}  // namespace stapx::debug
