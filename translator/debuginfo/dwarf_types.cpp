// DWARF types (dwarf_info.h): each DIE converted once into the DType
// table; a struct declared but not defined in a unit is looked up by name
// across units on demand.
#include <dwarf.h>

#include <cstring>
#include <string>
#include <string_view>

#include "translator/debuginfo/dwarf_info.h"

namespace stapx::debug {

const DType* DwarfInfo::type_of(Dwarf_Die& die) {
  Dwarf_Attribute a;
  Dwarf_Die t;
  if (!dwarf_attr_integrate(&die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t)) return types_.void_type();
  return convert(t);
}

// A type's kind, name and size now; what it points to or contains when
// first asked (load()).
const DType* DwarfInfo::convert(Dwarf_Die& die) {
  Dwarf_Off off = dwarf_dieoffset(&die);
  if (auto it = converted_.find(off); it != converted_.end()) return it->second;
  int tag = dwarf_tag(&die);
  // Qualifiers stapx need not show are looked through.
  if (tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type) {
    const DType* t = type_of(die);
    converted_[off] = t;
    return t;
  }
  DType* t = types_.make();
  converted_[off] = t;
  if (const char* name = dwarf_diename(&die)) t->name = name;
  Dwarf_Word size = 0;
  Dwarf_Attribute a;
  if (dwarf_attr_integrate(&die, DW_AT_byte_size, &a) && dwarf_formudata(&a, &size) == 0) t->size_ = size;
  t->loader = this;
  t->key = off;
  switch (tag) {
    case DW_TAG_base_type: {
      Dwarf_Word enc = 0;
      if (dwarf_attr(&die, DW_AT_encoding, &a)) dwarf_formudata(&a, &enc);
      t->kind = enc == DW_ATE_float ? DType::Kind::Float : DType::Kind::Int;
      t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
      t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
      t->loader = nullptr;
      break;
    }
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
      t->kind = DType::Kind::Pointer;
      if (!t->size_) t->size_ = 8;
      break;
    case DW_TAG_typedef: t->kind = DType::Kind::Typedef; break;
    case DW_TAG_const_type: t->kind = DType::Kind::Const; break;
    case DW_TAG_volatile_type: t->kind = DType::Kind::Volatile; break;
    case DW_TAG_subroutine_type: t->kind = DType::Kind::Function; break;
    case DW_TAG_enumeration_type: t->kind = DType::Kind::Enum; break;
    case DW_TAG_array_type: t->kind = DType::Kind::Array; break;
    case DW_TAG_structure_type:
    case DW_TAG_class_type: t->kind = DType::Kind::Struct; break;
    case DW_TAG_union_type: t->kind = DType::Kind::Union; break;
    default:
      t->kind = DType::Kind::Void;
      t->name = "<unknown>";
      t->loader = nullptr;
      break;
  }
  return t;
}

void DwarfInfo::load(DType& t) {
  Dwarf_Die die;
  if (!dwarf_offdie(dw_, t.key, &die)) return;
  Dwarf_Attribute a;
  switch (t.kind) {
    case DType::Kind::Pointer:
    case DType::Kind::Function:
      t.target_ = type_of(die);
      break;
    case DType::Kind::Typedef:
    case DType::Kind::Const:
    case DType::Kind::Volatile:
      t.target_ = type_of(die);
      t.size_ = t.target_->strip()->size();
      break;
    case DType::Kind::Enum: {
      const DType* under = type_of(die);
      t.is_signed = under->strip()->kind == DType::Kind::Int && under->strip()->is_signed;
      Dwarf_Die c;
      if (dwarf_child(&die, &c) == 0) {
        do {
          if (dwarf_tag(&c) != DW_TAG_enumerator) continue;
          Dwarf_Sword v = 0;
          if (dwarf_attr(&c, DW_AT_const_value, &a)) dwarf_formsdata(&a, &v);
          const char* n = dwarf_diename(&c);
          t.enumerators_.emplace_back(n ? n : "", v);
        } while (dwarf_siblingof(&c, &c) == 0);
      }
      break;
    }
    case DType::Kind::Array: {
      const DType* elem = type_of(die);
      // One subrange per dimension: int a[2][3] is an array of 2 arrays of 3.
      std::vector<int64_t> dims;
      Dwarf_Die c;
      if (dwarf_child(&die, &c) == 0) {
        do {
          if (dwarf_tag(&c) != DW_TAG_subrange_type) continue;
          Dwarf_Word n = 0;
          int64_t count = -1;
          if (dwarf_attr(&c, DW_AT_count, &a) && dwarf_formudata(&a, &n) == 0)
            count = static_cast<int64_t>(n);
          else if (dwarf_attr(&c, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &n) == 0)
            count = static_cast<int64_t>(n) + 1;
          dims.push_back(count);
        } while (dwarf_siblingof(&c, &c) == 0);
      }
      if (dims.empty()) dims.push_back(-1);
      for (size_t i = dims.size(); i-- > 1;) {
        DType* inner = types_.make();
        inner->kind = DType::Kind::Array;
        inner->target_ = elem;
        inner->count_ = dims[i];
        inner->size_ = dims[i] > 0 ? dims[i] * elem->strip()->size() : 0;
        elem = inner;
      }
      t.target_ = elem;
      t.count_ = dims[0];
      t.size_ = dims[0] > 0 ? dims[0] * elem->strip()->size() : 0;
      break;
    }
    case DType::Kind::Struct:
    case DType::Kind::Union: {
      if (dwarf_hasattr(&die, DW_AT_declaration)) {
        const DType* def = t.name.empty() ? nullptr : definition(dwarf_tag(&die), t.name);
        if (def && def != &t) {
          t.size_ = def->size();
          t.members_ = def->members();
          t.decl_ = def->decl();
        } else {
          t.incomplete_ = true;
        }
        break;
      }
      int line = 0;
      if (const char* file = dwarf_decl_file(&die); file && dwarf_decl_line(&die, &line) == 0) {
        std::string_view f(file);
        if (f.substr(0, 2) == "./") f.remove_prefix(2);
        t.decl_ = std::string(f) + ":" + std::to_string(line);
      }
      Dwarf_Die c;
      if (dwarf_child(&die, &c) == 0) {
        do {
          if (dwarf_tag(&c) != DW_TAG_member) continue;
          Member m;
          if (const char* n = dwarf_diename(&c)) m.name = n;
          m.type = type_of(c);
          Dwarf_Word v = 0;
          if (dwarf_attr(&c, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &v) == 0)
            m.bit_offset = v * 8;
          if (dwarf_attr(&c, DW_AT_bit_size, &a) && dwarf_formudata(&a, &v) == 0) m.bit_size = v;
          if (dwarf_attr(&c, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &v) == 0) {
            m.bit_offset = v;
          } else if (m.bit_size && dwarf_attr(&c, DW_AT_bit_offset, &a) && dwarf_formudata(&a, &v) == 0) {
            // DWARF 2-4: counted from the most significant bit of the
            // storage unit; on little-endian x86 that is from the far end.
            Dwarf_Word unit = m.type->strip()->size();
            if (dwarf_attr(&c, DW_AT_byte_size, &a)) dwarf_formudata(&a, &unit);
            m.bit_offset += unit * 8 - v - m.bit_size;
          }
          t.members_.push_back(std::move(m));
        } while (dwarf_siblingof(&c, &c) == 0);
      }
      break;
    }
    default:
      break;
  }
}

// The definition of `struct name` (or union/enum/typedef), from the first
// unit that defines it. Scans top-level DIEs of every unit once per name.
const DType* DwarfInfo::definition(int tag, const std::string& name) {
  std::string key = std::to_string(tag) + " " + name;
  if (auto it = by_name_.find(key); it != by_name_.end()) return it->second;
  by_name_[key] = nullptr;  // also guards against recursion
  const DType* t = nullptr;
  scan_top_level([](Dwarf_Die&) { return true; },
                 [&](Dwarf_Die& c) {
                   if (dwarf_tag(&c) != tag || dwarf_hasattr(&c, DW_AT_declaration)) return false;
                   const char* n = dwarf_diename(&c);
                   if (!n || name != n) return false;
                   t = convert(c);
                   return true;
                 });
  by_name_[key] = t;
  return t;
}

const DType* DwarfInfo::find_type(const std::string& raw) {
  std::string name = raw;
  int tag = DW_TAG_typedef;
  auto strip_prefix = [&](const char* p, int t) {
    size_t len = std::strlen(p);
    if (name.compare(0, len, p) == 0) {
      name = name.substr(len);
      tag = t;
      return true;
    }
    return false;
  };
  strip_prefix("struct ", DW_TAG_structure_type) || strip_prefix("union ", DW_TAG_union_type) ||
      strip_prefix("enum ", DW_TAG_enumeration_type);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  if (tag != DW_TAG_typedef) return definition(tag, name);
  if (const DType* t = definition(DW_TAG_typedef, name)) return t;
  if (const DType* t = definition(DW_TAG_base_type, name)) return t;
  return definition(DW_TAG_structure_type, name);
}

}  // namespace stapx::debug
