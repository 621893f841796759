// Deep copies of AST subtrees, for elaboration passes that instantiate the
// same source more than once (a probe alias's prologue in every probe that
// uses it). Copies keep their source locations; symbol bindings are not
// copied (the copy is resolved on its own).
#pragma once

#include "frontend/ast.h"

namespace stapx::ast {

Expr* clone(Arena& arena, const Expr* e);
Stmt* clone(Arena& arena, const Stmt* s);
BlockStmt* clone(Arena& arena, const BlockStmt* b);

}  // namespace stapx::ast
