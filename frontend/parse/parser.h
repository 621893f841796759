// Pass 1 entry point: parse one source file into the arena AST.
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace stapx {

struct ParseOptions {
  std::vector<std::string> args;  // $1, @1, $# (normally substituted earlier)
  bool guru = false;              // -g: embedded C allowed in user scripts
};

// Parses `file` of `sm` (already preprocessed, see preprocess.h). Errors go
// to `diags`; the returned script holds every declaration that parsed
// (never null).
ast::Script* parse_file(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags,
                        const ParseOptions& opts = {});

}  // namespace stapx
