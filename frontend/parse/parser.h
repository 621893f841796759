// Pass 1 entry point: parse one source file into the arena AST.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace stapx {

// Parses `file` of `sm` (already preprocessed, see preprocess.h). Errors go
// to `diags`; the returned script holds every declaration that parsed
// (never null). `args` are the command-line arguments ($1, @1, $#).
ast::Script* parse_file(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags,
                        const std::vector<std::string>& args = {});

}  // namespace stapx
