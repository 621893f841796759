// Location trees to C: every intermediate is uint64_t; memory reads are
// fault-checked with the script location (runtime-c/target.h).
#include "translator/codegen/target_c.h"

#include <fmt/format.h>

namespace stapx {

namespace {

const char* int_type(int64_t size, bool is_signed) {
  switch (size) {
    case 1: return is_signed ? "int8_t" : "uint8_t";
    case 2: return is_signed ? "int16_t" : "uint16_t";
    case 4: return is_signed ? "int32_t" : "uint32_t";
    default: return is_signed ? "int64_t" : "uint64_t";
  }
}

// With `user`, memory is the current task's user memory.
std::string loc_c(const debug::LocExprP& e, const std::string& where, const std::vector<std::string>& in, bool user) {
  using Op = debug::LocExpr::Op;
  switch (e->op) {
    case Op::Const: return fmt::format("((uint64_t){:#x}ULL)", static_cast<uint64_t>(e->value));
    case Op::Addr:  // a link-time kernel address, moved as KASLR moved the kernel
      if (user)       // a program's, which is not moved (pass 2 refuses a PIE's)
        return fmt::format("((uint64_t){:#x}ULL)", static_cast<uint64_t>(e->value));
      return fmt::format("((uint64_t){:#x}ULL + _stpx_kaslr_delta)", static_cast<uint64_t>(e->value));
    case Op::Reg: return fmt::format("_stpx_dwreg(c, {})", e->value);
    case Op::Input: return fmt::format("((uint64_t){})", in.at(e->value));
    case Op::EntryReg:  // recorded when this call (its CFA) entered the function
      return fmt::format("_STPX_ENTRY_REG(c, {}, {}, {})", e->value, loc_c(e->a, where, in, user), where);
    case Op::Select:  // only the chosen operand is read
      return fmt::format("({} ? {} : {})", loc_c(e->a, where, in, user), loc_c(e->b, where, in, user), loc_c(e->c, where, in, user));
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Gt: case Op::Le: case Op::Ge: {
      const char* cmp = e->op == Op::Eq ? "==" : e->op == Op::Ne ? "!=" : e->op == Op::Lt ? "<"
                      : e->op == Op::Gt ? ">" : e->op == Op::Le ? "<=" : ">=";
      return fmt::format("((uint64_t)((int64_t){} {} (int64_t){}))", loc_c(e->a, where, in, user), cmp,
                         loc_c(e->b, where, in, user));
    }
    case Op::Deref:
      return fmt::format("((uint64_t)(int64_t)_STPX_{}READ(c, {}, {}, {}))", user ? "U" : "K", int_type(e->value, e->is_signed),
                         loc_c(e->a, where, in, user), where);
    case Op::Trunc:
      return fmt::format("((uint64_t)(int64_t)({})({}))", int_type(e->value, e->is_signed), loc_c(e->a, where, in, user));
    case Op::Bits:
      return fmt::format("_stpx_bits({}, {}, {}, {})", loc_c(e->a, where, in, user), e->value, e->width,
                         e->is_signed ? 1 : 0);
    case Op::Neg: return fmt::format("(0 - {})", loc_c(e->a, where, in, user));
    case Op::Not: return fmt::format("(~{})", loc_c(e->a, where, in, user));
    case Op::Abs:
      return fmt::format("({{ int64_t _v = (int64_t){}; (uint64_t)(_v < 0 ? -_v : _v); }})", loc_c(e->a, where, in, user));
    case Op::Shra:
      return fmt::format("((uint64_t)((int64_t){} >> ({} & 63)))", loc_c(e->a, where, in, user), loc_c(e->b, where, in, user));
    case Op::Shl:
      return fmt::format("({} << ({} & 63))", loc_c(e->a, where, in, user), loc_c(e->b, where, in, user));
    case Op::Shr:
      return fmt::format("({} >> ({} & 63))", loc_c(e->a, where, in, user), loc_c(e->b, where, in, user));
    case Op::Div:
    case Op::Mod:
      // DWARF's division is signed; a zero divisor reads as zero.
      return fmt::format("({{ int64_t _d = (int64_t){1}; _d ? (uint64_t)((int64_t){0} {2} _d) : 0; }})",
                         loc_c(e->a, where, in, user), loc_c(e->b, where, in, user), e->op == Op::Div ? "/" : "%");
    default: break;
  }
  const char* op = e->op == Op::Add ? "+" : e->op == Op::Sub ? "-" : e->op == Op::Mul ? "*"
                 : e->op == Op::And ? "&" : e->op == Op::Or ? "|" : "^";
  return fmt::format("({} {} {})", loc_c(e->a, where, in, user), op, loc_c(e->b, where, in, user));
}

}  // namespace

using EntryRead = std::function<std::string(int)>;

std::string target_c_body(const TargetAccess& access, const std::string& where,
                          const std::function<std::string()>& string_buf, const std::vector<std::string>& in,
                          const EntryRead& entry_read);

std::string target_c(const TargetAccess& access, const std::string& where,
                     const std::function<std::string()>& string_buf,
                     const std::function<std::string(const ast::Expr*)>& input, const EntryRead& entry_read) {
  // Script values are computed once, before the reads that use them.
  std::vector<std::string> in;
  std::string pre;
  for (size_t i = 0; i < access.inputs.size(); ++i) {
    pre += fmt::format("int64_t _in{} = {}; ", i, input ? input(access.inputs[i]) : "0");
    in.push_back(fmt::format("_in{}", i));
  }
  std::string body = target_c_body(access, where, string_buf, in, entry_read);
  return pre.empty() ? body : fmt::format("({{ {}{}; }})", pre, body);
}

std::string target_c_body(const TargetAccess& access, const std::string& where,
                          const std::function<std::string()>& string_buf, const std::vector<std::string>& in,
                          const EntryRead& entry_read) {
  if (access.entry_slot >= 0)
    return entry_read ? entry_read(access.entry_slot) : fmt::format("c->entry_saved[{}]", access.entry_slot);
  if (access.context_cstring) return fmt::format("_stpx_strcpy({}, {})", string_buf(), access.context_c);
  if (access.context_string)  // copied: the handler may assign it next
    return fmt::format("_stpx_strcpy({}, {}->buf)", string_buf(), access.context_c);
  if (!access.context_c.empty()) return fmt::format("((int64_t)({}))", access.context_c);
  if (access.is_pretty) {
    std::string stmts, args;
    for (size_t i = 0; i < access.parts.size(); ++i) {
      const TargetAccess& part = access.parts[i];
      if (part.is_string) {
        // Escaped, between the quotes the format has, as stap shows strings.
        std::string read = target_c_body(part, where, string_buf, in, entry_read);
        stmts += fmt::format("const char *_p{} = _stpx_escape({}, {}); ", i, string_buf(), read);
        args += fmt::format(", _p{}", i);
      } else {
        stmts += fmt::format("long long _p{} = (long long){}; ", i,
                             target_c_body(part, where, string_buf, in, entry_read));
        args += fmt::format(", _p{}", i);
      }
    }
    std::string buf = string_buf();
    if (access.format.empty()) return fmt::format("({{ {}[0] = 0; (const char *){}; }})", buf, buf);
    std::string literal = "\"";
    for (char ch : access.format) {
      if (ch == '"' || ch == '\\') literal += '\\';
      literal += ch;
    }
    literal += "\"";
    return fmt::format("({{ {}snprintf({}, MAXSTRINGLEN, {}{}); (const char *){}; }})", stmts, buf, literal, args, buf);
  }
  if (access.is_string)
    return fmt::format("_STPX_{}READ_STRING(c, {}, {}, {}, {})", access.user ? "U" : "K", string_buf(),
                       loc_c(access.value, where, in, access.user),
                       access.max_len, where);
  return fmt::format("((int64_t){})", loc_c(access.value, where, in, access.user));
}

std::string target_write_c(const TargetAccess& access, const std::string& value, const std::string& where,
                           const std::function<std::string(const ast::Expr*)>& input) {
  using Op = debug::LocExpr::Op;
  if (!access.context_c.empty()) return fmt::format("{} = {};", access.context_c, value);  // netfilter's $verdict
  std::vector<std::string> in;
  std::string pre;
  for (size_t i = 0; i < access.inputs.size(); ++i) {
    pre += fmt::format("int64_t _in{} = {}; ", i, input ? input(access.inputs[i]) : "0");
    in.push_back(fmt::format("_in{}", i));
  }
  const debug::LocExprP& v = access.value;
  if (v->op == Op::Deref)
    return fmt::format("{{ {}_STPX_{}WRITE(c, {}, {}, {}, {}); }}", pre, access.user ? "U" : "K",
                       int_type(v->value, v->is_signed), loc_c(v->a, where, in, access.user), value, where);
  const debug::LocExprP& reg = v->op == Op::Trunc ? v->a : v;
  return fmt::format("_stpx_set_dwreg(c, {}, (uint64_t){});", reg->value, value);
}

}  // namespace stapx
