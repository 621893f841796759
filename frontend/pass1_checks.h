// Checks stap makes while it parses, run on each parsed script so that
// the same mistakes fail pass 1 with stap's messages: a global declared
// twice in one file, printf/sprintf formats that are not literals or do
// not scan, @variance's shift that is not a number, a histogram used as a
// value, and `return` outside a function.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace stapx {

void check_pass1(const ast::Script& script, DiagSink& diags);

}  // namespace stapx
