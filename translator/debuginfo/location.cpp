// Symbolic evaluation of DWARF location expressions (see location.h).
// Only what compilers emit for variables is translated; anything else is
// reported by name so the user's message can say what was not understood.
#include "translator/debuginfo/location.h"

#include <dwarf.h>

#include <vector>

#include <fmt/format.h>

namespace stapx::debug {

namespace {

LocExprP make(LocExpr::Op op, int64_t value = 0, LocExprP a = nullptr, LocExprP b = nullptr) {
  auto e = std::make_shared<LocExpr>();
  e->op = op;
  e->value = value;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

// a + k, folding constants so "reg7+8" stays readable.
LocExprP add_const(LocExprP a, int64_t k) {
  if (k == 0) return a;
  if (a->op == LocExpr::Op::Const) return make(LocExpr::Op::Const, a->value + k);
  if (a->op == LocExpr::Op::Add && a->b && a->b->op == LocExpr::Op::Const)
    return add_const(a->a, a->b->value + k);
  return make(LocExpr::Op::Add, 0, std::move(a), make(LocExpr::Op::Const, k));
}

Location fail(Location::Kind kind, std::string why) {
  Location l;
  l.kind = kind;
  l.why = std::move(why);
  return l;
}

// The bytes of an operation whose operand is a block (DW_OP_entry_value,
// DW_OP_implicit_value). libdw gives the block as DW_FORM_block/exprloc
// data: number2 points at its ULEB128 length, which number repeats, and
// the bytes follow. Null when the two lengths disagree.
const uint8_t* op_block(const Dwarf_Op& op) {
  auto* p = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(op.number2));
  if (!p) return nullptr;
  uint64_t len = 0;
  unsigned shift = 0;
  for (size_t i = 0; i < 10; ++i) {
    len |= static_cast<uint64_t>(p[i] & 0x7f) << shift;
    shift += 7;
    if (!(p[i] & 0x80)) return len == op.number ? p + i + 1 : nullptr;
  }
  return nullptr;
}

// The register an entry value names, from its sub-expression: only the
// form compilers emit, a single DW_OP_regN or DW_OP_regx N.
bool entry_value_reg(const Dwarf_Op& op, unsigned& reg) {
  const uint8_t* block = op_block(op);
  if (!block || op.number == 0) return false;
  if (op.number == 1 && block[0] >= DW_OP_reg0 && block[0] <= DW_OP_reg31) {
    reg = block[0] - DW_OP_reg0;
    return true;
  }
  if (op.number >= 2 && block[0] == DW_OP_regx) {  // ULEB128 register
    unsigned v = 0, shift = 0;
    for (size_t i = 1; i < op.number && shift < 32; ++i) {
      v |= (block[i] & 0x7f) << shift;
      shift += 7;
      if (!(block[i] & 0x80)) {
        if (i + 1 != op.number) return false;
        reg = v;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

LocExprP loc_const(int64_t v) { return make(LocExpr::Op::Const, v); }
LocExprP loc_reg(unsigned reg) { return make(LocExpr::Op::Reg, reg); }
LocExprP loc_add(LocExprP a, int64_t k) { return add_const(std::move(a), k); }
LocExprP loc_deref(LocExprP addr, unsigned size, bool is_signed) {
  auto e = std::make_shared<LocExpr>();
  e->op = LocExpr::Op::Deref;
  e->value = size;
  e->is_signed = is_signed;
  e->a = std::move(addr);
  return e;
}
LocExprP loc_trunc(LocExprP v, unsigned size, bool is_signed) {
  if (size >= 8) return v;
  auto e = std::make_shared<LocExpr>();
  e->op = LocExpr::Op::Trunc;
  e->value = size;
  e->is_signed = is_signed;
  e->a = std::move(v);
  return e;
}
LocExprP loc_bits(LocExprP v, unsigned first, unsigned width, bool is_signed) {
  auto e = std::make_shared<LocExpr>();
  e->op = LocExpr::Op::Bits;
  e->value = first;
  e->width = width;
  e->is_signed = is_signed;
  e->a = std::move(v);
  return e;
}

namespace {

// Branches (DW_OP_bra on a value known only at run time) followed at most,
// each doubling the work: compilers emit one or two (min(), max()).
constexpr int kMaxForks = 8;

// The index of the operation starting at byte `offset`, or n if none.
size_t op_at(const Dwarf_Op* ops, size_t n, Dwarf_Word offset) {
  for (size_t j = 0; j < n; ++j)
    if (ops[j].offset == offset) return j;
  return n;
}

// Both ends of a branch: one location choosing between their values.
Location merge(const LocExprP& cond, Location taken, Location fall) {
  if (taken.kind != fall.kind || (taken.kind != Location::Kind::Memory && taken.kind != Location::Kind::Value)) {
    if (taken.kind == Location::Kind::Register && fall.kind == Location::Kind::Register && taken.reg == fall.reg)
      return taken;
    if (taken.kind == Location::Kind::Unavailable || taken.kind == Location::Kind::Unsupported) return taken;
    if (fall.kind == Location::Kind::Unavailable || fall.kind == Location::Kind::Unsupported) return fall;
    return fail(Location::Kind::Unsupported, "a location whose kind depends on a branch (DW_OP_bra)");
  }
  auto e = std::make_shared<LocExpr>();
  e->op = LocExpr::Op::Select;
  e->a = cond;
  e->b = taken.expr;
  e->c = fall.expr;
  taken.expr = e;
  return taken;
}

// Runs ops[start..n) on `stack` (see translate_location).
Location eval(const Dwarf_Op* ops, size_t n, size_t start, std::vector<LocExprP> stack, const LocContext& ctx,
              int forks) {
  using Op = LocExpr::Op;
  auto need = [&](size_t k) { return stack.size() >= k; };
  auto pop = [&] {
    LocExprP e = stack.back();
    stack.pop_back();
    return e;
  };
  for (size_t i = start; i < n; ++i) {
    const Dwarf_Op& op = ops[i];
    uint8_t a = op.atom;
    // A single piece covering the whole value is the value itself; several
    // pieces (a value split over registers) are not translated.
    if (a == DW_OP_piece) {
      if (i + 1 == n) break;
      return fail(Location::Kind::Unsupported, "a value in several pieces (DW_OP_piece)");
    }
    // A value split over several registers or constants (a struct passed
    // in two registers): not translated.
    if (i + 2 < n && ops[i + 1].atom == DW_OP_piece &&
        ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx || a == DW_OP_stack_value))
      return fail(Location::Kind::Unsupported, "a value in several pieces (DW_OP_piece)");
    if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
      if (!(i + 1 == n || (i + 2 == n && ops[i + 1].atom == DW_OP_piece)) || !stack.empty())
        return fail(Location::Kind::Unsupported, "a register location followed by other operations");
      Location l;
      l.kind = Location::Kind::Register;
      l.reg = a - DW_OP_reg0;
      return l;
    }
    if (a == DW_OP_regx) {
      if (!(i + 1 == n || (i + 2 == n && ops[i + 1].atom == DW_OP_piece)) || !stack.empty())
        return fail(Location::Kind::Unsupported, "a register location followed by other operations");
      Location l;
      l.kind = Location::Kind::Register;
      l.reg = static_cast<unsigned>(op.number);
      return l;
    }
    if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
      stack.push_back(make(Op::Const, a - DW_OP_lit0));
      continue;
    }
    if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
      stack.push_back(add_const(make(Op::Reg, a - DW_OP_breg0), static_cast<int64_t>(op.number)));
      continue;
    }
    switch (a) {
      case DW_OP_addr:
        stack.push_back(make(Op::Addr, static_cast<int64_t>(op.number)));
        break;
      case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
      case DW_OP_constu:
      case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
      case DW_OP_consts:
        // libdw stores the value sign-extended for the signed forms.
        stack.push_back(make(Op::Const, static_cast<int64_t>(op.number)));
        break;
      case DW_OP_bregx:
        stack.push_back(add_const(make(Op::Reg, static_cast<int64_t>(op.number)),
                                  static_cast<int64_t>(op.number2)));
        break;
      case DW_OP_fbreg: {
        if (!ctx.frame_base) return fail(Location::Kind::Unsupported, "DW_OP_fbreg without a frame base");
        Location fb = ctx.frame_base();
        LocExprP base;
        if (fb.kind == Location::Kind::Register)
          base = make(Op::Reg, fb.reg);
        else if (fb.kind == Location::Kind::Memory || fb.kind == Location::Kind::Value)
          base = fb.expr;
        else
          return fail(fb.kind, "the frame base: " + fb.why);
        stack.push_back(add_const(base, static_cast<int64_t>(op.number)));
        break;
      }
      case DW_OP_call_frame_cfa: {
        LocExprP cfa = ctx.cfa ? ctx.cfa() : nullptr;
        if (!cfa) return fail(Location::Kind::Unsupported, "no call frame information here (DW_OP_call_frame_cfa)");
        stack.push_back(cfa);
        break;
      }
      case DW_OP_dup:
        if (!need(1)) goto underflow;
        stack.push_back(stack.back());
        break;
      case DW_OP_drop:
        if (!need(1)) goto underflow;
        stack.pop_back();
        break;
      case DW_OP_over:
        if (!need(2)) goto underflow;
        stack.push_back(stack[stack.size() - 2]);
        break;
      case DW_OP_pick:
        if (op.number >= stack.size()) goto underflow;
        stack.push_back(stack[stack.size() - 1 - op.number]);
        break;
      case DW_OP_swap:
        if (!need(2)) goto underflow;
        std::swap(stack[stack.size() - 1], stack[stack.size() - 2]);
        break;
      case DW_OP_rot:
        if (!need(3)) goto underflow;
        {
          LocExprP top = stack[stack.size() - 1];
          stack[stack.size() - 1] = stack[stack.size() - 2];
          stack[stack.size() - 2] = stack[stack.size() - 3];
          stack[stack.size() - 3] = top;
        }
        break;
      case DW_OP_deref:
        if (!need(1)) goto underflow;
        stack.push_back(make(Op::Deref, 8, pop()));
        break;
      case DW_OP_deref_size:
        if (!need(1)) goto underflow;
        if (op.number != 1 && op.number != 2 && op.number != 4 && op.number != 8)
          return fail(Location::Kind::Unsupported, fmt::format("DW_OP_deref_size {}", op.number));
        stack.push_back(make(Op::Deref, static_cast<int64_t>(op.number), pop()));
        break;
      case DW_OP_plus_uconst:
        if (!need(1)) goto underflow;
        stack.push_back(add_const(pop(), static_cast<int64_t>(op.number)));
        break;
      case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_div: case DW_OP_mod:
      case DW_OP_and: case DW_OP_or: case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: {
        if (!need(2)) goto underflow;
        LocExprP rhs = pop(), lhs = pop();
        if (a == DW_OP_plus && rhs->op == Op::Const) {
          stack.push_back(add_const(lhs, rhs->value));
          break;
        }
        if (a == DW_OP_minus && rhs->op == Op::Const) {
          stack.push_back(add_const(lhs, -rhs->value));
          break;
        }
        Op o = a == DW_OP_plus ? Op::Add : a == DW_OP_minus ? Op::Sub : a == DW_OP_mul ? Op::Mul
             : a == DW_OP_div ? Op::Div : a == DW_OP_mod ? Op::Mod : a == DW_OP_and ? Op::And
             : a == DW_OP_or ? Op::Or : a == DW_OP_xor ? Op::Xor : a == DW_OP_shl ? Op::Shl
             : a == DW_OP_shr ? Op::Shr : Op::Shra;
        stack.push_back(make(o, 0, lhs, rhs));
        break;
      }
      case DW_OP_neg: case DW_OP_not: case DW_OP_abs:
        if (!need(1)) goto underflow;
        stack.push_back(make(a == DW_OP_neg ? Op::Neg : a == DW_OP_not ? Op::Not : Op::Abs, 0, pop()));
        break;
      case DW_OP_stack_value: {
        if (!need(1)) goto underflow;
        if (!(i + 1 == n || (i + 2 == n && ops[i + 1].atom == DW_OP_piece)))
          return fail(Location::Kind::Unsupported, "DW_OP_stack_value before other operations");
        Location l;
        l.kind = Location::Kind::Value;
        l.expr = pop();
        return l;
      }
      case DW_OP_implicit_value: {
        if (op.number > 8) return fail(Location::Kind::Unsupported, "an implicit value wider than 8 bytes");
        const uint8_t* bytes = op_block(op);
        if (!bytes) return fail(Location::Kind::Unsupported, "a malformed implicit value (DW_OP_implicit_value)");
        uint64_t v = 0;
        for (size_t k = 0; k < op.number; ++k) v |= static_cast<uint64_t>(bytes[k]) << (8 * k);
        Location l;
        l.kind = Location::Kind::Value;
        l.expr = make(Op::Const, static_cast<int64_t>(v));
        return l;
      }
      case DW_OP_entry_value:
      case DW_OP_GNU_entry_value: {
        unsigned reg;
        if (!entry_value_reg(op, reg))
          return fail(Location::Kind::Unsupported, "an entry value of an expression (DW_OP_entry_value)");
        if (ctx.at_entry) {
          stack.push_back(make(Op::Reg, reg));
          break;
        }
        // Elsewhere the register may hold anything by now. (stap 4.8
        // refuses DW_OP_entry_value.) stapx watches the function's entry
        // and keeps the registers of each call, which the probe finds by
        // the call's frame (its CFA).
        LocExprP cfa = ctx.entry_values && ctx.cfa ? ctx.cfa() : nullptr;
        if (!cfa) {
          const char* name = dwarf_reg_name(reg);
          return fail(Location::Kind::Unavailable,
                      fmt::format("its value here is the one {} had at the function's entry (DW_OP_entry_value), "
                                  "and {}; read it in a probe on the function's entry",
                                  name ? name : fmt::format("register {}", reg),
                                  !ctx.entry_values ? "this code is not in the part of the function that starts "
                                                      "at its entry (a split-off part)"
                                                    : "there is no call frame information here to tell which "
                                                      "call of the function runs"));
        }
        stack.push_back(make(Op::EntryReg, reg, cfa));
        break;
      }
      case DW_OP_nop:
        break;
      case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_gt: case DW_OP_le: case DW_OP_ge: {
        // Signed comparisons, 1 or 0.
        if (!need(2)) goto underflow;
        LocExprP rhs = pop(), lhs = pop();
        Op o = a == DW_OP_eq ? Op::Eq : a == DW_OP_ne ? Op::Ne : a == DW_OP_lt ? Op::Lt
             : a == DW_OP_gt ? Op::Gt : a == DW_OP_le ? Op::Le : Op::Ge;
        stack.push_back(make(o, 0, lhs, rhs));
        break;
      }
      case DW_OP_skip:
      case DW_OP_bra: {
        // A 2-byte signed offset from the end of this 3-byte operation.
        // Only forward: a loop could not be translated to a tree.
        auto delta = static_cast<int16_t>(static_cast<uint16_t>(op.number));
        if (delta < 0) return fail(Location::Kind::Unsupported, op_name(a) + " backwards");
        size_t to = op_at(ops, n, op.offset + 3 + static_cast<Dwarf_Word>(delta));
        bool past_end = to == n && (i + 1 == n || op.offset + 3 + delta > ops[n - 1].offset);
        if (to == n && !past_end) return fail(Location::Kind::Unsupported, "a malformed " + op_name(a) + " target");
        if (a == DW_OP_skip) {
          i = to - 1;
          break;
        }
        if (!need(1)) goto underflow;
        LocExprP cond = pop();
        if (cond->op == Op::Const) {
          if (cond->value != 0) i = to - 1;
          break;
        }
        if (forks >= kMaxForks) return fail(Location::Kind::Unsupported, "too many branches (DW_OP_bra)");
        return merge(cond, eval(ops, n, to, stack, ctx, forks + 1), eval(ops, n, i + 1, stack, ctx, forks + 1));
      }
      default:
        return fail(Location::Kind::Unsupported, op_name(a));
    }
  }
  if (stack.empty()) return fail(Location::Kind::Unsupported, "an empty location");
  {
    Location l;
    l.kind = Location::Kind::Memory;
    l.expr = stack.back();
    return l;
  }
underflow:
  return fail(Location::Kind::Unsupported, "a malformed location (stack underflow)");
}

}  // namespace

Location translate_location(const Dwarf_Op* ops, size_t n, const LocContext& ctx) {
  if (n == 0) return fail(Location::Kind::Unavailable, "optimized out");
  return eval(ops, n, 0, {}, ctx, 0);
}

const char* dwarf_reg_name(unsigned reg) {
  static const char* const names[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
                                      "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
  return reg < sizeof(names) / sizeof(names[0]) ? names[reg] : nullptr;
}

std::string to_string(const LocExprP& e) {
  using Op = LocExpr::Op;
  if (!e) return "?";
  switch (e->op) {
    case Op::Const: return std::to_string(e->value);
    case Op::Addr: return fmt::format("addr(0x{:x})", static_cast<uint64_t>(e->value));
    case Op::Reg: return fmt::format("reg{}", e->value);
    case Op::Input: return fmt::format("input{}", e->value);
    case Op::EntryReg: return fmt::format("entry(reg{})", e->value);
    case Op::Select: return fmt::format("{} ? {} : {}", to_string(e->a), to_string(e->b), to_string(e->c));
    case Op::Deref: return fmt::format("deref{}{}({})", e->is_signed ? "s" : "", e->value, to_string(e->a));
    case Op::Trunc: return fmt::format("{}{}({})", e->is_signed ? "s" : "u", e->value * 8, to_string(e->a));
    case Op::Bits:
      return fmt::format("bits{}({}, {}, {})", e->is_signed ? "s" : "", to_string(e->a), e->value, e->width);
    case Op::Neg: return "-(" + to_string(e->a) + ")";
    case Op::Not: return "~(" + to_string(e->a) + ")";
    case Op::Abs: return "abs(" + to_string(e->a) + ")";
    default: break;
  }
  // A node with operands is parenthesized inside another (an entry value's
  // operand, its CFA, is not shown).
  auto compound = [](const LocExprP& x) { return x && x->a && x->op != Op::EntryReg; };
  const char* op = nullptr;
  switch (e->op) {
    case Op::Add: op = "+"; break;
    case Op::Sub: op = "-"; break;
    case Op::Mul: op = "*"; break;
    case Op::Div: op = "/"; break;
    case Op::Mod: op = "%"; break;
    case Op::And: op = "&"; break;
    case Op::Or: op = "|"; break;
    case Op::Xor: op = "^"; break;
    case Op::Shl: op = "<<"; break;
    case Op::Shr: op = ">>"; break;
    case Op::Shra: op = ">>>"; break;
    case Op::Eq: op = "=="; break;
    case Op::Ne: op = "!="; break;
    case Op::Lt: op = "<"; break;
    case Op::Gt: op = ">"; break;
    case Op::Le: op = "<="; break;
    case Op::Ge: op = ">="; break;
    default: return "?";
  }
  if (e->op == Op::Add && e->b && e->b->op == Op::Const && e->b->value < 0)
    return (compound(e->a) ? "(" + to_string(e->a) + ")" : to_string(e->a)) + std::to_string(e->b->value);
  std::string rhs = to_string(e->b);
  bool paren_l = compound(e->a), paren_r = compound(e->b);
  return (paren_l ? "(" + to_string(e->a) + ")" : to_string(e->a)) + op + (paren_r ? "(" + rhs + ")" : rhs);
}

std::string to_string(const Location& loc) {
  switch (loc.kind) {
    case Location::Kind::Register: return fmt::format("reg{}", loc.reg);
    case Location::Kind::Memory: return "mem(" + to_string(loc.expr) + ")";
    case Location::Kind::Value: return "value(" + to_string(loc.expr) + ")";
    case Location::Kind::Unavailable: return "unavailable: " + loc.why;
    case Location::Kind::Unsupported: return "unsupported: " + loc.why;
  }
  return "?";
}

std::string op_name(uint8_t atom) {
  switch (atom) {
    case DW_OP_piece: return "DW_OP_piece";
    case DW_OP_bit_piece: return "DW_OP_bit_piece";
    case DW_OP_implicit_pointer: return "DW_OP_implicit_pointer";
    case DW_OP_GNU_implicit_pointer: return "DW_OP_GNU_implicit_pointer";
    case DW_OP_GNU_parameter_ref: return "DW_OP_GNU_parameter_ref";
    case DW_OP_convert: return "DW_OP_convert";
    case DW_OP_GNU_convert: return "DW_OP_GNU_convert";
    case DW_OP_regval_type: return "DW_OP_regval_type";
    case DW_OP_GNU_regval_type: return "DW_OP_GNU_regval_type";
    case DW_OP_deref_type: return "DW_OP_deref_type";
    case DW_OP_GNU_deref_type: return "DW_OP_GNU_deref_type";
    case DW_OP_const_type: return "DW_OP_const_type";
    case DW_OP_GNU_const_type: return "DW_OP_GNU_const_type";
    case DW_OP_form_tls_address: return "DW_OP_form_tls_address";
    case DW_OP_GNU_push_tls_address: return "DW_OP_GNU_push_tls_address";
    case DW_OP_call2: return "DW_OP_call2";
    case DW_OP_call4: return "DW_OP_call4";
    case DW_OP_call_ref: return "DW_OP_call_ref";
    case DW_OP_bra: return "DW_OP_bra";
    case DW_OP_skip: return "DW_OP_skip";
    case DW_OP_eq: return "DW_OP_eq";
    case DW_OP_ne: return "DW_OP_ne";
    case DW_OP_lt: return "DW_OP_lt";
    case DW_OP_gt: return "DW_OP_gt";
    case DW_OP_le: return "DW_OP_le";
    case DW_OP_ge: return "DW_OP_ge";
    case DW_OP_xderef: return "DW_OP_xderef";
    case DW_OP_push_object_address: return "DW_OP_push_object_address";
    default: return fmt::format("DW_OP 0x{:02x}", atom);
  }
}

}  // namespace stapx::debug
