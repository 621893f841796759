// The types of target variables, as stapx needs them: one model filled from
// DWARF (dwarf.cpp) or BTF (btf.cpp). Typedefs and cv-qualifiers are kept as
// nodes so messages can name the type as the user wrote it; `strip()` looks
// through them.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace stapx::debug {

struct DType;

// Fills in a type's `target`, members and enumerators when first asked: a
// kernel's type graph is large, and a script needs a few types of it.
class TypeLoader {
 public:
  virtual ~TypeLoader() = default;
  virtual void load(DType& t) = 0;
};

struct Member {
  std::string name;          // empty for an anonymous struct/union member
  const DType* type = nullptr;
  uint64_t bit_offset = 0;   // from the start of the enclosing type
  uint32_t bit_size = 0;     // 0 unless a bitfield
};

struct DType {
  enum class Kind : uint8_t { Void, Int, Enum, Pointer, Struct, Union, Array, Typedef, Const, Volatile, Function, Float };
  Kind kind = Kind::Void;
  std::string name;             // "int", "struct file" tag without "struct ", typedef name...
  bool is_signed = false;       // Int, Enum
  bool is_char = false;         // Int of char kind: char arrays and char * read as strings

  // Pointer, Array, Typedef, Const, Volatile, Function: the type pointed
  // to, the element, the aliased or qualified type, the return type.
  const DType* target() const { ensure(); return target_; }
  uint64_t size() const { ensure(); return size_; }  // bytes; 0 for void, functions, incomplete types
  int64_t count() const { ensure(); return count_; }  // Array: elements, -1 unknown (flexible)
  bool incomplete() const { ensure(); return incomplete_; }  // a declaration only (struct foo;)
  const std::vector<Member>& members() const { ensure(); return members_; }
  const std::vector<std::pair<std::string, int64_t>>& enumerators() const { ensure(); return enumerators_; }
  const std::string& decl() const { ensure(); return decl_; }

  // Filled by the loader (or directly when built eagerly).
  const DType* target_ = nullptr;
  uint64_t size_ = 0;
  int64_t count_ = -1;
  bool incomplete_ = false;
  std::vector<Member> members_;
  std::vector<std::pair<std::string, int64_t>> enumerators_;
  std::string decl_;  // Struct, Union from DWARF: "include/linux/path.h:8", where it is defined
  TypeLoader* loader = nullptr;  // set until loaded
  uint64_t key = 0;              // the loader's handle (a DIE offset, a BTF id)
  void ensure() const {
    if (loader) {
      TypeLoader* l = loader;
      const_cast<DType*>(this)->loader = nullptr;
      l->load(const_cast<DType&>(*this));
    }
  }

  // Typedefs and cv-qualifiers removed.
  const DType* strip() const;
  // "struct file *", "unsigned int", "char[16]"...
  std::string to_string() const;
  // A member by name, looking into anonymous struct/union members; fills
  // `bit_offset` with its offset from this type's start.
  const Member* find_member(const std::string& name, uint64_t& bit_offset) const;
  bool is_integral() const;  // Int, Enum, Pointer (after strip)
};

// Owns types; addresses stay valid for its lifetime.
class TypeTable {
 public:
  DType* make() { return &types_.emplace_back(); }
  const DType* void_type() {
    if (!void_) void_ = make();
    return void_;
  }

 private:
  std::deque<DType> types_;
  DType* void_ = nullptr;
};

}  // namespace stapx::debug
