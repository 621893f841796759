// Lowering of the X3 parse tree into the arena AST (the only place where
// X3 types meet the rest of stapx).
#pragma once

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/parse/x3ast.hpp"

namespace stapx::parse {

class Lowerer {
 public:
  // `args` are the script's command-line arguments ($1, @1, $#).
  Lowerer(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags,
          const std::vector<std::string>& args, bool privileged);
  void lower(const x3ast::TopLevel& top, ast::Script& script);
  SourceLoc loc(const char* pos) const;

 private:
  ast::Expr* expr(const x3ast::Operand& op);
  ast::Expr* chain(const x3ast::Chain& c);
  ast::Expr* binary(std::string_view op, ast::Expr* lhs, ast::Expr* rhs, SourceLoc op_loc);
  ast::Stmt* stmt(const x3ast::Statement& s);
  ast::BlockStmt* block(const x3ast::Block& b);
  ast::Stmt* body(const x3ast::Statement& s);
  ast::VarRef* var(const x3ast::Ident& id);
  ast::NumberLit* number(const x3ast::Number& n);
  ast::StringLit* string(const x3ast::String& s);
  std::string unescape(std::string_view raw, SourceLoc loc);
  ast::Expr* arg_ref(const x3ast::ArgRef& a);
  std::vector<ast::TargetComponent> components(const std::vector<x3ast::TargetComponent>& cs);
  std::vector<ast::ProbePoint*> points(const std::vector<x3ast::ProbePoint>& pps);
  void expand_point(const x3ast::ProbePoint& pp, std::vector<std::vector<ast::ProbePointComponent>>& out);

  const SourceManager& sm_;
  uint32_t file_;
  const std::string& text_;
  ast::Arena& arena_;
  DiagSink& diags_;
  const std::vector<std::string>& args_;
  bool privileged_;  // guru mode, or a tapset file: embedded C allowed
  void need_guru(SourceLoc loc, const char* what);
};

}  // namespace stapx::parse
