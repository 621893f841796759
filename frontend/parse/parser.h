// Pass 1 entry point: parse one source file into the arena AST.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace stapx {

// Parses `file` of `sm`. Errors go to `diags`; the returned script holds
// every declaration that parsed (never null).
ast::Script* parse_file(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags);

}  // namespace stapx
