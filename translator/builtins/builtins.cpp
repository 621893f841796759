// The built-in function table.
#include "translator/builtins/builtins.h"

namespace stapx {

namespace {
using ast::Builtin;
using ast::Type;

constexpr BuiltinInfo kBuiltins[] = {
    {"printf", Builtin::Printf, 1, -1, Type::Void},
    {"sprintf", Builtin::Sprintf, 1, -1, Type::String},
    {"print", Builtin::Print, 1, -1, Type::Void},
    {"println", Builtin::Println, 0, -1, Type::Void},
    {"exit", Builtin::Exit, 0, 0, Type::Void},
};
}  // namespace

const BuiltinInfo* find_builtin(std::string_view name) {
  for (const BuiltinInfo& b : kBuiltins)
    if (name == b.name) return &b;
  return nullptr;
}

}  // namespace stapx
