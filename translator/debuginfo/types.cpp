// Type model helpers (see types.h).
#include "translator/debuginfo/types.h"

namespace stapx::debug {

const DType* DType::strip() const {
  const DType* t = this;
  while (t->target() && (t->kind == Kind::Typedef || t->kind == Kind::Const || t->kind == Kind::Volatile))
    t = t->target();
  return t;
}

bool DType::is_integral() const {
  Kind k = strip()->kind;
  return k == Kind::Int || k == Kind::Enum || k == Kind::Pointer;
}

namespace {

// C declarator syntax: a prefix (base and pointers) and a suffix (arrays).
void spell(const DType* t, std::string& prefix, std::string& suffix) {
  if (!t) {
    prefix = "void" + prefix;
    return;
  }
  switch (t->kind) {
    case DType::Kind::Pointer:
      // A pointer to an array needs parentheses, unless a typedef names it.
      if (t->target() && t->target()->kind == DType::Kind::Array) {
        prefix = "(*" + prefix;
        suffix = ")" + suffix;
      } else {
        prefix = "*" + prefix;
      }
      spell(t->target(), prefix, suffix);
      return;
    case DType::Kind::Array:
      suffix += t->count() >= 0 ? "[" + std::to_string(t->count()) + "]" : "[]";
      spell(t->target(), prefix, suffix);
      return;
    case DType::Kind::Const:
      prefix = " const" + prefix;
      spell(t->target(), prefix, suffix);
      return;
    case DType::Kind::Volatile:
      prefix = " volatile" + prefix;
      spell(t->target(), prefix, suffix);
      return;
    case DType::Kind::Function:
      prefix = "(" + prefix;
      suffix = ")(...)" + suffix;
      spell(t->target(), prefix, suffix);
      return;
    default:
      break;
  }
  std::string base;
  switch (t->kind) {
    case DType::Kind::Struct: base = "struct " + (t->name.empty() ? "{...}" : t->name); break;
    case DType::Kind::Union: base = "union " + (t->name.empty() ? "{...}" : t->name); break;
    case DType::Kind::Enum: base = "enum " + (t->name.empty() ? "{...}" : t->name); break;
    case DType::Kind::Void: base = "void"; break;
    default: base = t->name; break;
  }
  prefix = base + prefix;
}

}  // namespace

std::string DType::to_string() const {
  std::string prefix, suffix;
  spell(this, prefix, suffix);
  return prefix + suffix;
}

const Member* DType::find_member(const std::string& want, uint64_t& bit_offset) const {
  const DType* t = strip();
  for (const Member& m : t->members()) {
    if (m.name == want) {
      bit_offset = m.bit_offset;
      return &m;
    }
    if (m.name.empty() && m.type) {
      uint64_t inner = 0;
      if (const Member* found = m.type->find_member(want, inner)) {
        bit_offset = m.bit_offset + inner;
        return found;
      }
    }
  }
  return nullptr;
}

}  // namespace stapx::debug
