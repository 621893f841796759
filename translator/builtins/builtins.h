// Built-in functions of the language (those that are not tapset functions):
// one table entry each, with arity and result type. Code generation for
// each lives in codegen, keyed by ast::Builtin.
#pragma once

#include <string_view>
#include <vector>

#include "frontend/ast.h"

namespace stapx {

struct BuiltinInfo {
  const char* name;
  ast::Builtin id;
  int min_args;
  int max_args;  // -1: any number
  ast::Type result;
  // A function of stap's tapset library that stapx builds in (exit):
  // --dump-functions lists it, as stap's does.
  bool library_function = false;
};

const BuiltinInfo* find_builtin(std::string_view name);
std::vector<std::string_view> builtin_names();

}  // namespace stapx
