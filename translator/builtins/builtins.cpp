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
    {"printd", Builtin::Printd, 2, -1, Type::Void},
    {"printdln", Builtin::Printdln, 2, -1, Type::Void},
    {"sprint", Builtin::Sprint, 1, -1, Type::String},
    {"sprintln", Builtin::Sprintln, 0, -1, Type::String},
    {"sprintd", Builtin::Sprintd, 2, -1, Type::String},
    {"sprintdln", Builtin::Sprintdln, 2, -1, Type::String},
    {"exit", Builtin::Exit, 0, 0, Type::Void, true},
};
}  // namespace

std::vector<std::string_view> builtin_names() {
  std::vector<std::string_view> out;
  for (const BuiltinInfo& b : kBuiltins) out.push_back(b.name);
  return out;
}

const BuiltinInfo* find_builtin(std::string_view name) {
  for (const BuiltinInfo& b : kBuiltins)
    if (name == b.name) return &b;
  return nullptr;
}

}  // namespace stapx
