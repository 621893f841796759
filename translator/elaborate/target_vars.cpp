// $var->field[i] chains resolved against debug information: each step turns
// "a value of type T computed like this" into the next, so the result is
// one expression tree over registers and fault-checked memory reads.
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "frontend/printer.h"
#include "support/strings.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/elaborate/target_access.h"
#include "translator/probes/source_spec.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

using debug::DType;
using debug::LocExprP;

namespace {

// A step's result: a value (rvalue), or an object in memory at `e` (lvalue).
struct Cur {
  bool lvalue = false;
  LocExprP e;
  const DType* type = nullptr;
  const debug::Member* bitfield = nullptr;  // the member just selected, if a bitfield
  uint64_t bit_offset = 0;                  // its offset within the object at e
};


// Script value number `n` the access reads (LocExpr::Op::Input).
LocExprP input_value(int64_t n) {
  auto input = std::make_shared<debug::LocExpr>();
  input->op = debug::LocExpr::Op::Input;
  input->value = n;
  return input;
}

// The value of a scalar (integer, enum, pointer) object or value.
LocExprP scalar_value(const Cur& cur) {
  const DType* t = cur.type->strip();
  unsigned size = static_cast<unsigned>(t->size());
  bool sign = t->kind != DType::Kind::Pointer && t->is_signed;
  if (cur.lvalue) return debug::loc_deref(cur.e, size ? size : 8, sign);
  return debug::loc_trunc(cur.e, size ? size : 8, sign);
}

// Can one 8-byte read from the field's first byte hold it? (Not always in
// a packed struct.)
bool bitfield_readable(const Cur& cur) { return cur.bit_offset % 8 + cur.bitfield->bit_size <= 64; }

// A bitfield member's value.
LocExprP bitfield_value(const Cur& cur) {
  const DType* ty = cur.type->strip();
  // Read the naturally aligned unit of the member's type that holds the
  // field, or 8 bytes from the field's first byte if it straddles units.
  unsigned unit = static_cast<unsigned>(ty->size() ? ty->size() : 8);
  uint64_t unit_start = cur.bit_offset / (unit * 8) * unit;
  unsigned first = static_cast<unsigned>(cur.bit_offset - unit_start * 8);
  if (first + cur.bitfield->bit_size > unit * 8) {
    unit = 8;
    unit_start = cur.bit_offset / 8;
    first = static_cast<unsigned>(cur.bit_offset % 8);
  }
  LocExprP word = debug::loc_deref(debug::loc_add(cur.e, static_cast<int64_t>(unit_start)), unit, false);
  return debug::loc_bits(word, first, cur.bitfield->bit_size, ty->is_signed);
}

constexpr size_t kMaxPrettyParts = 32;

void add_literal(TargetAccess& out, const std::string& text) {
  for (char ch : text) out.format += ch == '%' ? std::string("%%") : std::string(1, ch);
}

void add_long(TargetAccess& out, const char* conv, LocExprP v) {
  out.format += conv;
  TargetAccess part;
  part.value = std::move(v);
  out.parts.push_back(std::move(part));
}

bool is_char_array(const DType* ty) {
  const DType* elem = ty->target() ? ty->target()->strip() : nullptr;
  return ty->kind == DType::Kind::Array && elem && elem->kind == DType::Kind::Int && elem->is_char &&
         elem->size() == 1;
}

// $var$ (depth 1) and $var$$ (depth 2: nested structs and arrays too), in
// the layout stap documents: {.a=1, .b=0x..., .c={...}, .d=[...]}.
void pretty(const Cur& cur, int depth, TargetAccess& out) {
  const DType* ty = cur.type->strip();
  if (cur.bitfield) {
    if (!bitfield_readable(cur))
      add_literal(out, "?");
    else
      add_long(out, ty->is_signed ? "%lld" : "%llu", bitfield_value(cur));
    return;
  }
  switch (ty->kind) {
    case DType::Kind::Pointer:
      add_long(out, "0x%llx", scalar_value(cur));
      return;
    case DType::Kind::Int:
    case DType::Kind::Enum:
      add_long(out, ty->is_signed ? "%lld" : "%llu", scalar_value(cur));
      return;
    case DType::Kind::Struct:
    case DType::Kind::Union: {
      if (!cur.lvalue || ty->incomplete()) {
        add_literal(out, "{...}");
        return;
      }
      add_literal(out, "{");
      bool first = true;
      for (const debug::Member& m : ty->members()) {
        // The string is cut at MAXSTRINGLEN anyway: bound the code too.
        if (out.parts.size() >= kMaxPrettyParts) {
          add_literal(out, ", ...");
          break;
        }
        if (!first) add_literal(out, ", ");
        first = false;
        const DType* mt = m.type->strip();
        // As stap: an anonymous member is named by its kind.
        add_literal(out, m.name.empty() ? (mt->kind == DType::Kind::Union ? "<union>=" : "<class>=")
                                        : "." + m.name + "=");
        // As stap: at depth 1 a char array member is an array too.
        bool aggregate = mt->kind == DType::Kind::Struct || mt->kind == DType::Kind::Union ||
                         (mt->kind == DType::Kind::Array && (!is_char_array(mt) || depth < 2));
        if (aggregate && depth < 2) {
          add_literal(out, mt->kind == DType::Kind::Array ? "[...]" : "{...}");
          continue;
        }
        Cur sub = cur;
        sub.type = m.type;
        if (m.bit_size) {
          sub.bitfield = &m;
          sub.bit_offset = m.bit_offset;
        } else {
          sub.e = debug::loc_add(cur.e, static_cast<int64_t>(m.bit_offset / 8));
        }
        pretty(sub, depth, out);
      }
      add_literal(out, "}");
      return;
    }
    case DType::Kind::Array: {
      if (!cur.lvalue) {
        add_literal(out, "[...]");
        return;
      }
      if (is_char_array(ty)) {
        add_literal(out, "\"");
        out.format += "%s";
        TargetAccess part;
        part.is_string = true;
        part.value = cur.e;
        part.max_len = ty->count() > 0 ? static_cast<uint64_t>(ty->count()) : 0;
        out.parts.push_back(std::move(part));
        add_literal(out, "\"");
        return;
      }
      // The first element, then "..." if there are more.
      add_literal(out, "[");
      if (ty->count() != 0) {
        Cur elem = cur;
        elem.type = ty->target();
        pretty(elem, 1, out);
      }
      add_literal(out, ty->count() == 1 ? "]" : ", ...]");
      return;
    }
    default:
      add_literal(out, "?");
      return;
  }
}

// The pretty form of a variable: a pointer to a structure shows the
// structure, as stap's $p$ and $$parms$ do.
void pretty_pointee(Cur cur, int depth, TargetAccess& out) {
  const DType* ty = cur.type->strip();
  const DType* pointee = ty->kind == DType::Kind::Pointer && ty->target() ? ty->target()->strip() : nullptr;
  if (!cur.bitfield && pointee && (pointee->kind == DType::Kind::Struct || pointee->kind == DType::Kind::Union)) {
    cur.e = scalar_value(cur);
    cur.lvalue = true;
    cur.type = ty->target();
  }
  pretty(cur, depth, out);
}

}  // namespace

// $$vars, $$parms, $$locals, $$return (and their $ / $$ pretty forms):
// "name=value" for every variable in scope, "=?" where it has no location.
std::optional<TargetAccess> all_vars(const ast::TargetExpr& t, const debug::ProbeSite& site, bool is_return,
                                     DiagSink& diags) {
  std::string which(t.base.substr(2));
  if (which != "vars" && which != "parms" && which != "locals" && which != "return") {
    diags.report(DiagId::SemTargetContext, t.loc);
    return std::nullopt;
  }
  if (!t.components.empty()) {
    diags.report(DiagId::SemTargetInvalid, t.components[0].loc,
                 t.components[0].field.empty() ? "[...]" : "->" + t.components[0].field, t.base);
    return std::nullopt;
  }
  TargetAccess out;
  out.is_pretty = true;
  auto add = [&](const std::string& name, const DType* type, const debug::Location& loc) {
    if (!out.format.empty()) add_literal(out, " ");
    add_literal(out, name + "=");
    Cur cur;
    cur.type = type;
    using K = debug::Location::Kind;
    if (loc.kind == K::Register) {
      cur.e = debug::loc_reg(loc.reg);
    } else if (loc.kind == K::Memory) {
      cur.lvalue = true;
      cur.e = loc.expr;
    } else if (loc.kind == K::Value) {
      cur.e = loc.expr;
    } else {
      add_literal(out, "?");
      return;
    }
    if (!t.pretty.empty()) {
      pretty_pointee(cur, t.pretty == "$$" ? 2 : 1, out);
      return;
    }
    const DType* ty = type->strip();
    if (ty->is_integral())
      add_long(out, "0x%llx", scalar_value(cur));
    else
      add_literal(out, ty->kind == DType::Kind::Array ? "[...]" : ty->kind == DType::Kind::Struct || ty->kind == DType::Kind::Union ? "{...}" : "?");
  };
  if (which == "return") {
    if (!is_return) {
      diags.report(DiagId::SemTargetContext, t.loc);
      return std::nullopt;
    }
    if (site.return_type && site.return_type->strip()->kind != DType::Kind::Void) {
      debug::Location rax;
      rax.kind = debug::Location::Kind::Register;
      rax.reg = 0;
      add("return", site.return_type, rax);
    }
    return out;
  }
  if (is_return && which != "locals" && !site.params.empty()) {
    diags.report(DiagId::SemUnsupported, t.loc, "parameters in a .return probe");
    return std::nullopt;
  }
  if (which != "locals")
    for (const auto& v : site.params) add(v.name, v.type, v.loc);
  if (which != "parms" && !is_return)
    for (const auto& v : site.locals) add(v.name, v.type, v.loc);
  return out;
}

namespace {

// Turns an access evaluated at entry into reads of saved values: each
// number, and each string (a char array, copied at entry), is one save.
void save_at_entry(TargetAccess& a, std::vector<TargetAccess>& saves) {
  if (a.is_pretty) {
    for (TargetAccess& p : a.parts) save_at_entry(p, saves);
    return;
  }
  saves.push_back(a);
  a.entry_slot = static_cast<int>(saves.size()) - 1;
  a.value = nullptr;
}

}  // namespace

std::optional<TargetAccess> resolve_entry(const ast::TargetExpr& t, const debug::ProbeSite& site,
                                          std::vector<TargetAccess>& entry_saves, DiagSink& diags) {
  std::optional<TargetAccess> a = resolve_target(t, site, false, nullptr, diags);
  if (!a) return a;
  if (!a->inputs.empty()) {
    diags.report(DiagId::SemUnsupported, t.loc, "an index computed by the script in a value saved at function entry");
    return std::nullopt;
  }
  save_at_entry(*a, entry_saves);
  return a;
}

namespace {
std::optional<TargetAccess> resolve(const ast::TargetExpr& t, const debug::ProbeSite& site, bool is_return,
                                    std::vector<TargetAccess>* entry_saves, bool address, DiagSink& diags);

// What follows the base of a target expression ($var, @cast(...)).
struct Chain {
  std::string_view base;  // "$file", "@cast": for messages
  SourceLoc loc;
  std::span<const ast::TargetComponent> components;
  std::string_view pretty;
  bool address;   // &...
  uint64_t addr;  // the probe's address, for messages (0: none)
  // Script values the chain reads (LocExpr::Op::Input), in order: @cast's
  // pointer first, then each index that is not a number ($var[i]).
  std::vector<const ast::Expr*> inputs = {};
};
std::optional<TargetAccess> finish_chain(Cur cur, Chain& ch, DiagSink& diags);
// The access, reading ch.inputs.
std::optional<TargetAccess> finish(Cur cur, Chain ch, DiagSink& diags) {
  std::optional<TargetAccess> out = finish_chain(std::move(cur), ch, diags);
  if (out) out->inputs = ch.inputs;
  return out;
}
}

namespace {

// Every read and write of `a` (and of its pretty-printed parts) is of
// user memory.
void mark_user(TargetAccess& a) {
  a.user = true;
  for (TargetAccess& part : a.parts) mark_user(part);
}

// Whether `e` reads anything `what` names.
bool reads(const debug::LocExprP& e, debug::LocExpr::Op what) {
  return e && (e->op == what || reads(e->a, what) || reads(e->b, what) || reads(e->c, what));
}
bool reads(const TargetAccess& a, debug::LocExpr::Op what) {
  if (reads(a.value, what)) return true;
  for (const TargetAccess& p : a.parts)
    if (reads(p, what)) return true;
  return false;
}

// An access to a user-space program's memory (`relocated`: the program
// is position-independent, so its link-time addresses are not its
// run-time ones): what the runtime cannot compute there yet is refused,
// at `at`; the rest is marked user memory.
std::optional<TargetAccess> as_user(std::optional<TargetAccess> a, bool relocated, SourceLoc at, DiagSink& diags) {
  if (!a) return a;
  if (relocated && reads(*a, debug::LocExpr::Op::Addr)) {
    diags.report(DiagId::SemUnsupported, at, "reading a variable at a fixed address of a position-independent program");
    return std::nullopt;
  }
  if (reads(*a, debug::LocExpr::Op::EntryReg)) {
    diags.report(DiagId::SemUnsupported, at, "an entry value (DW_OP_entry_value) in a user-space program");
    return std::nullopt;
  }
  mark_user(*a);
  return a;
}

// An access at a user-space site (see as_user); others as they are.
std::optional<TargetAccess> in_user_space(std::optional<TargetAccess> a, const ast::TargetExpr& t,
                                          const debug::ProbeSite& site, DiagSink& diags) {
  if (!a || !site.user) return a;
  return as_user(std::move(a), site.relocated, t.loc, diags);
}

}  // namespace

std::optional<TargetAccess> resolve_target(const ast::TargetExpr& t, const debug::ProbeSite& site,
                                           bool is_return, std::vector<TargetAccess>* entry_saves,
                                           DiagSink& diags) {
  return in_user_space(resolve(t, site, is_return, entry_saves, false, diags), t, site, diags);
}

std::optional<TargetAccess> resolve_address(const ast::TargetExpr& t, const debug::ProbeSite& site,
                                            DiagSink& diags) {
  if (t.base.rfind("$$", 0) == 0 || !t.pretty.empty()) {
    diags.report(DiagId::SemTargetInvalid, t.loc, "&", "a pretty-printed string");
    return std::nullopt;
  }
  return in_user_space(resolve(t, site, false, nullptr, true, diags), t, site, diags);
}

namespace {
// A parameter read in a .return probe is its value at entry, which stap
// warns may surprise: the warning names the expression as @entry(...).
void warn_captured(const ast::TargetExpr& t, DiagSink& diags) {
  std::ostringstream text;
  print_expr(text, &t);
  diags.report(DiagId::WarnEntryCapture, t.loc, text.str());
}

std::optional<TargetAccess> resolve(const ast::TargetExpr& t, const debug::ProbeSite& site, bool is_return,
                                    std::vector<TargetAccess>* entry_saves, bool address, DiagSink& diags) {
  if (t.base.rfind("$$", 0) == 0) {
    // $$parms in a .return probe: the parameters at entry, and $return.
    if (is_return && entry_saves && t.base != "$$return" && t.base != "$$locals") {
      warn_captured(t, diags);
      return resolve_entry(t, site, *entry_saves, diags);
    }
    return all_vars(t, site, is_return, diags);
  }
  std::string name(t.base.substr(1));  // without the '$'
  Cur cur;
  if (name == "return" && is_return) {
    if (!site.return_type || site.return_type->strip()->kind == DType::Kind::Void) {
      diags.report(DiagId::SemTargetUnknown, t.loc, "return", site.addr, site.function, site.decl_file,
                   "the function returns void");
      return std::nullopt;
    }
    cur.e = debug::loc_reg(0);  // rax
    cur.type = site.return_type;
  } else {
    const debug::Variable* var = nullptr;
    for (const auto& v : site.params)
      if (v.name == name) var = &v;
    if (!var)
      for (const auto& v : site.locals)
        if (v.name == name) var = &v;
    if (!var) {
      std::vector<std::string> alts;
      for (const auto& v : site.params) alts.push_back("$" + v.name);
      for (const auto& v : site.locals) alts.push_back("$" + v.name);
      if (is_return) alts.push_back("$return");
      if (site.from_btf) {
        diags.report(DiagId::SemTargetNotParam, t.loc, name, site.function,
                     alts.empty() ? "none" : support::join(alts),
                     site.dwarf_hint.empty() ? "install the kernel's -dbg package, or use --debuginfo"
                                             : site.dwarf_hint);
        return std::nullopt;
      }
      diags.report(DiagId::SemTargetUnknown, t.loc, name, site.addr, site.function, site.decl_file,
                   alts.empty() ? "none" : support::join(alts));
      return std::nullopt;
    }
    if (is_return) {
      if (!var->is_param || !entry_saves) {
        diags.report(DiagId::SemTargetUnavailable, t.loc, site.addr,
                     "in a .return probe only parameters (at entry) and $return can be read");
        return std::nullopt;
      }
      warn_captured(t, diags);
      return resolve_entry(t, site, *entry_saves, diags);
    }
    using K = debug::Location::Kind;
    switch (var->loc.kind) {
      case K::Unavailable:
        diags.report(DiagId::SemTargetUnavailable, t.loc, site.addr, var->loc.why);
        return std::nullopt;
      case K::Unsupported:
        diags.report(DiagId::SemTargetLocation, t.loc, t.base, site.addr, var->loc.why);
        return std::nullopt;
      case K::Register:
        cur.e = debug::loc_reg(var->loc.reg);
        break;
      case K::Memory:
        cur.lvalue = true;
        cur.e = var->loc.expr;
        break;
      case K::Value:
        cur.e = var->loc.expr;
        break;
    }
    cur.type = var->type;
  }

  return finish(cur, Chain{t.base, t.loc, t.components, t.pretty, address, site.addr}, diags);
}

// The ->field and [i] steps from `cur`, then the value (or its address, or
// its pretty-printed form) as the chain asks.
std::optional<TargetAccess> finish_chain(Cur cur, Chain& ch, DiagSink& diags) {
  bool address = ch.address;
  for (const ast::TargetComponent& c : ch.components) {
    const DType* ty = cur.type->strip();
    if (cur.bitfield) {
      diags.report(DiagId::SemTargetInvalid, c.loc, c.field.empty() ? "[...]" : "->" + c.field,
                   cur.type->to_string());
      return std::nullopt;
    }
    if (!c.field.empty()) {
      if (ty->kind == DType::Kind::Pointer) {
        const DType* pointee = ty->target() ? ty->target()->strip() : nullptr;
        if (!pointee || (pointee->kind != DType::Kind::Struct && pointee->kind != DType::Kind::Union)) {
          diags.report(DiagId::SemTargetInvalid, c.loc, "->" + c.field, cur.type->strip()->to_string());
          return std::nullopt;
        }
        cur.e = scalar_value(cur);
        cur.lvalue = true;
        cur.type = ty->target();
        ty = pointee;
      } else if (ty->kind == DType::Kind::Struct || ty->kind == DType::Kind::Union) {
        // A structure of up to 8 bytes may live in one register (passed
        // by value); a larger one is spread over several.
        if (!cur.lvalue && (ty->size() > 8 || ty->size() == 0)) {
          diags.report(DiagId::SemTargetLocation, c.loc, ch.base, ch.addr, "a structure held in registers");
          return std::nullopt;
        }
      } else {
        diags.report(DiagId::SemTargetInvalid, c.loc, "->" + c.field, cur.type->strip()->to_string());
        return std::nullopt;
      }
      if (ty->incomplete()) {
        diags.report(DiagId::SemTargetInvalid, c.loc, "->" + c.field,
                     cur.type->to_string() + " (an incomplete type: no definition in the debug information)");
        return std::nullopt;
      }
      uint64_t bit_offset = 0;
      const debug::Member* m = ty->find_member(c.field.str(), bit_offset);
      if (!m) {
        std::vector<std::string> alts;
        for (const auto& mem : ty->members())
          if (!mem.name.empty()) alts.push_back(mem.name);
        diags.report(DiagId::SemTargetNoMember, c.loc, c.field, ty->to_string(), support::join(alts));
        return std::nullopt;
      }
      if (m->bit_size) {
        if (!cur.lvalue) {
          diags.report(DiagId::SemTargetLocation, c.loc, ch.base, ch.addr,
                       "a bitfield of a structure held in a register");
          return std::nullopt;
        }
        cur.bitfield = m;
        cur.bit_offset = bit_offset;
      } else if (!cur.lvalue) {
        // The member is some of the register's bits.
        uint64_t width = std::min<uint64_t>(64, m->type->strip()->size() * 8);
        if (!width || bit_offset + width > 64) {
          diags.report(DiagId::SemTargetLocation, c.loc, ch.base, ch.addr, "a structure held in registers");
          return std::nullopt;
        }
        cur.e = debug::loc_bits(cur.e, static_cast<unsigned>(bit_offset), static_cast<unsigned>(width), false);
      } else {
        cur.e = debug::loc_add(cur.e, static_cast<int64_t>(bit_offset / 8));
      }
      cur.type = m->type;
      continue;
    }
    // [index]
    const ast::Expr* ix = c.index;
    if (!ix) {
      diags.report(DiagId::SemTargetIndex, c.loc);
      return std::nullopt;
    }
    bool neg = ix->kind == ast::ExprKind::Unary && static_cast<const ast::UnaryExpr*>(ix)->op == ast::Op::Neg;
    const ast::Expr* lit = neg ? static_cast<const ast::UnaryExpr*>(ix)->operand : ix;
    bool literal = lit->kind == ast::ExprKind::Number;
    int64_t i = literal ? static_cast<const ast::NumberLit*>(lit)->value * (neg ? -1 : 1) : 0;
    // base + index * element size, the index a number or a script value.
    auto element = [&](LocExprP base, const DType* elem) {
      int64_t size = static_cast<int64_t>(elem->strip()->size());
      if (literal) return debug::loc_add(base, i * size);
      LocExprP in = input_value(static_cast<int64_t>(ch.inputs.size()));
      ch.inputs.push_back(ix);
      auto mul = std::make_shared<debug::LocExpr>();
      mul->op = debug::LocExpr::Op::Mul;
      mul->a = in;
      mul->b = debug::loc_const(size);
      auto add = std::make_shared<debug::LocExpr>();
      add->op = debug::LocExpr::Op::Add;
      add->a = base;
      add->b = mul;
      return LocExprP(add);
    };
    if (ty->kind == DType::Kind::Pointer) {
      const DType* elem = ty->target();
      cur.e = element(scalar_value(cur), elem);
      cur.lvalue = true;
      cur.type = elem;
    } else if (ty->kind == DType::Kind::Array && cur.lvalue) {
      const DType* elem = ty->target();
      cur.e = element(cur.e, elem);
      cur.type = elem;
    } else if (ch.base == "@cast" && &c == &ch.components.front() && cur.lvalue) {
      // @cast(p, "T")[i]: p as the start of an array of T (stap's
      // io/traceaio.stp walks iovecs so).
      cur.e = element(cur.e, cur.type);
    } else {
      diags.report(DiagId::SemTargetInvalid, c.loc, literal ? "[" + std::to_string(i) + "]" : "[...]",
                   cur.type->to_string());
      return std::nullopt;
    }
  }

  if (address) {
    if (!cur.lvalue || cur.bitfield) {
      diags.report(DiagId::SemTargetLocation, ch.loc, ch.base, ch.addr,
                   cur.bitfield ? "a bitfield, which has no address" : "a value not in memory, which has no address");
      return std::nullopt;
    }
    TargetAccess out;
    out.value = cur.e;
    out.ctype = cur.type;
    out.address = true;
    return out;
  }
  if (!ch.pretty.empty()) {
    TargetAccess out;
    out.is_pretty = true;
    pretty_pointee(cur, ch.pretty == "$$" ? 2 : 1, out);
    return out;
  }
  const DType* ty = cur.type->strip();
  SourceLoc where = ch.components.empty() ? ch.loc : ch.components.back().loc;
  TargetAccess out;
  if (cur.bitfield) {
    if (!bitfield_readable(cur)) {
      diags.report(DiagId::SemTargetLocation, where, ch.base, ch.addr, "a bitfield spread over more than 8 bytes");
      return std::nullopt;
    }
    out.value = bitfield_value(cur);
    return out;
  }
  switch (ty->kind) {
    case DType::Kind::Int:
    case DType::Kind::Enum:
    case DType::Kind::Pointer:
      out.value = scalar_value(cur);
      out.ctype = cur.type;
      return out;
    case DType::Kind::Array: {
      const DType* elem = ty->target() ? ty->target()->strip() : nullptr;
      bool chars = elem && elem->kind == DType::Kind::Int && elem->is_char && elem->size() == 1;
      if (chars && cur.lvalue && ch.components.empty()) {
        out.is_string = true;
        out.value = cur.e;
        out.max_len = ty->count() > 0 ? static_cast<uint64_t>(ty->count()) : 0;
        return out;
      }
      // An array reached through '->' or '[i]' is its address, a number,
      // as in stap: kernel_string($dev->name) reads a char array member.
      if (cur.lvalue && !ch.components.empty()) {
        out.value = cur.e;
        out.address = true;
        return out;
      }
      diags.report(DiagId::SemTargetAggregate, where, cur.type->to_string(), "", "[0]");
      return std::nullopt;
    }
    case DType::Kind::Struct:
    case DType::Kind::Union: {
      // As stap: the member first by name, and where the type is defined.
      std::string first;
      for (const auto& m : ty->members())
        if (!m.name.empty() && (first.empty() || m.name < first)) first = m.name;
      diags.report(DiagId::SemTargetAggregate, where, cur.type->to_string(),
                   ty->decl().empty() ? "" : " (" + ty->decl() + ")", first.empty() ? "->..." : "->" + first);
      return std::nullopt;
    }
    default:
      diags.report(DiagId::SemTargetInvalid, where, ch.base, cur.type->to_string());
      return std::nullopt;
  }
}

}  // namespace

std::string cast_module(const ast::AtOpExpr& a) {
  if (a.args.size() != 3 || a.args[2]->kind != ast::ExprKind::String) return "";
  std::string m(static_cast<const ast::StringLit*>(a.args[2])->value);
  return names_kernel(m) ? "" : m;
}

bool names_kernel(std::string_view m) {
  // "kernel<linux/fs.h>": the header only says where stap would compile
  // the type from; the kernel's own debug information has it.
  return m.starts_with("kernel") && (m.size() == 6 || m[6] == '<');
}


namespace {

// The object of type `type` that the script value read first points to,
// and in `rest` the components still to apply. A leading [N] moves the
// pointer by N objects, as in C and stap: ((T *)p)[N] (&@cast(0, "T")[1]
// is T's size, which @cast_sizeof uses).
Cur pointed_to(const DType* type, std::span<const ast::TargetComponent> components,
               std::vector<ast::TargetComponent>& rest) {
  Cur cur;
  cur.lvalue = true;
  cur.e = input_value(0);
  cur.type = type;
  rest.assign(components.begin(), components.end());
  DType::Kind kind = type->strip()->kind;
  if (!rest.empty() && rest[0].field.empty() && rest[0].index && rest[0].index->kind == ast::ExprKind::Number &&
      type->size() > 0 && kind != DType::Kind::Array && kind != DType::Kind::Pointer) {
    int64_t n = static_cast<const ast::NumberLit*>(rest[0].index)->value;
    cur.e = debug::loc_add(cur.e, n * static_cast<int64_t>(type->size()));
    rest.erase(rest.begin());
  }
  return cur;
}

}  // namespace

std::optional<TargetAccess> resolve_cast(const ast::AtOpExpr& a, debug::DebugInfo& di, DiagSink& diags,
                                         bool address, bool user) {
  if (a.args.size() < 2 || a.args.size() > 3 || a.args[1]->kind != ast::ExprKind::String ||
      (a.args.size() == 3 && a.args[2]->kind != ast::ExprKind::String)) {
    diags.report(DiagId::SemCastArgs, a.loc);
    return std::nullopt;
  }
  const std::string type_name(static_cast<const ast::StringLit*>(a.args[1])->value);
  std::string module = cast_module(a);
  const DType* type = di.find_type(type_name);
  if (!type) {
    diags.report(DiagId::SemCastNoType, a.loc, type_name, module.empty() ? "kernel" : module);  // at @cast, as stap
    return std::nullopt;
  }
  std::vector<ast::TargetComponent> rest;
  Cur cur = pointed_to(type, a.components, rest);
  std::optional<TargetAccess> out = finish(cur, Chain{"@cast", a.loc, rest, a.pretty, address, 0, {a.args[0]}}, diags);
  if (out && user) mark_user(*out);
  return out;
}

std::optional<TargetAccess> resolve_member(const ast::MemberExpr& m, const debug::DType* type, bool address,
                                           DiagSink& diags, bool take_address, bool user) {
  std::vector<ast::TargetComponent> rest;
  Cur cur;
  if (address) {
    cur = pointed_to(type, m.components, rest);
  } else {
    cur.e = input_value(0);
    cur.type = type;
    rest.assign(m.components.begin(), m.components.end());
  }
  SourceLoc at = m.components.empty() ? m.loc : m.components[0].loc;
  std::optional<TargetAccess> out = finish(cur, Chain{"->", at, rest, m.pretty, take_address, 0, {m.base}}, diags);
  if (out && out->is_string) {
    // A char array read through '->' is its address, a number, as in
    // stap (kernel_string(p->name) reads it), not the string $var gives.
    out->is_string = false;
    out->max_len = 0;
  }
  if (out && user) mark_user(*out);
  return out;
}

std::string var_module(const ast::AtOpExpr& a) {
  if (a.args.size() != 2 || a.args[1]->kind != ast::ExprKind::String) return "";
  std::string m(static_cast<const ast::StringLit*>(a.args[1])->value);
  return m == "kernel" ? "" : m;
}

std::optional<TargetAccess> resolve_var(const ast::AtOpExpr& a, debug::DebugInfo& di, DiagSink& diags,
                                        bool address, bool user) {
  if (a.args.empty() || a.args.size() > 2 || a.args[0]->kind != ast::ExprKind::String ||
      (a.args.size() == 2 && a.args[1]->kind != ast::ExprKind::String)) {
    diags.report(DiagId::SemVarArgs, a.loc);
    return std::nullopt;
  }
  const std::string spec(static_cast<const ast::StringLit*>(a.args[0])->value);
  const std::string module = var_module(a);
  if (!module.empty() && !user) {
    diags.report(DiagId::SemUnsupported, a.args[1]->loc, "@var in a kernel module");
    return std::nullopt;
  }
  size_t at = spec.find('@');
  std::string name = spec.substr(0, at), file = at == std::string::npos ? "" : spec.substr(at + 1);
  std::function<bool(const std::string&)> in_file;
  if (!file.empty()) in_file = [&](const std::string& path) { return file_matches(file, path); };
  std::optional<debug::Variable> v = name.empty() ? std::nullopt : di.global_variable(name, in_file);
  if (!v) {
    diags.report(DiagId::SemVarUnknown, a.loc, name,  // (at the @var, as stap)
                 !file.empty() ? file : module.empty() ? "the kernel" : module);
    return std::nullopt;
  }
  Cur cur;
  cur.lvalue = true;
  cur.e = v->loc.expr;
  cur.type = v->type;
  std::string base = "@var(\"" + spec + "\")";
  std::optional<TargetAccess> out = finish(cur, Chain{base, a.loc, a.components, a.pretty, address, 0}, diags);
  if (!out || !user) return out;
  std::string why;
  const debug::UserBinary* bin = user_binary(module, why);
  return as_user(std::move(out), bin && bin->shared(), a.loc, diags);
}

namespace {

bool has_op(const LocExprP& e, debug::LocExpr::Op op) {
  return e && (e->op == op || has_op(e->a, op) || has_op(e->b, op) || has_op(e->c, op));
}

}  // namespace

const char* target_write_problem(const TargetAccess& a) {
  if (!a.context_c.empty()) return a.context_writable ? nullptr : "it is read-only here";
  using Op = debug::LocExpr::Op;
  if (a.yields_string()) return "writing strings is not supported";
  if (a.entry_slot >= 0) return "it is a value saved at the function's entry";
  const debug::LocExprP& v = a.value;
  if (!v) return "it has no location";
  if (v->op == Op::Deref || v->op == Op::Reg || (v->op == Op::Trunc && v->a->op == Op::Reg)) return nullptr;
  if (v->op == Op::Bits) return "writing bitfields is not supported";
  return "it is a computed value, not an object in a register or in memory";
}

bool uses_link_address(const TargetAccess& a) {
  if (a.user) return false;  // (a program's addresses are not moved: see in_user_space)
  if (has_op(a.value, debug::LocExpr::Op::Addr)) return true;
  for (const TargetAccess& p : a.parts)
    if (uses_link_address(p)) return true;
  return false;
}

bool uses_entry_values(const TargetAccess& a) {
  if (has_op(a.value, debug::LocExpr::Op::EntryReg)) return true;
  for (const TargetAccess& p : a.parts)
    if (uses_entry_values(p)) return true;
  return false;
}

}  // namespace stapx
