// Canonical re-printing of the AST (the output of -p1). Parsing the output
// again yields the same AST: every compound expression is parenthesized.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "frontend/ast.h"

namespace stapx {

void print_script(std::ostream& out, const ast::Script& script);
void print_expr(std::ostream& out, const ast::Expr* e);
std::string escape_string(std::string_view s);  // with the quotes

}  // namespace stapx
