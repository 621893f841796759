// Name resolution (pass 2's resolve_names): the walk over every probe body
// and function that binds each name to a symbol (a global, a parameter,
// else a new local of the enclosing probe or function: stap's rule), each
// call to its function, and each target expression ($var, @cast, @var,
// @entry, @defined, &) to its access through debug information. It also
// records what every body reads, writes and calls, for the lock sets.
// resolve_names.cpp holds the walk, resolve_targets.cpp the target
// expressions, privilege.cpp what --privilege=stapusr refuses.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast_visitor.h"
#include "translator/elaborate/elaboration.h"

namespace stapx::debug {
class DebugInfo;
}

namespace stapx::elab {

class Resolver : public ast::Visitor<Resolver> {
 public:
  static constexpr bool kEveryNode = true;
  explicit Resolver(Elaboration& elab) : elab_(elab) {}

  // Parameters become symbols, then probe bodies and functions resolve.
  void run();

 private:
  struct Scope {
    std::map<std::string, ast::Symbol*, std::less<>> names;
    std::vector<ast::Symbol*>* locals;
    ast::FunctionDecl* fn;  // the function, or the probe body's pseudo-function
    ast::ProbeDecl* decl = nullptr;  // the probe whose body this is
    int loop_depth = 0;
    bool probe = false;
  };

  friend class ast::Visitor<Resolver>;

  // resolve_names.cpp: resolve_stmt/resolve_expr walk a subtree in scope
  // sc, one visit_X for each kind of node.
  void resolve_stmt(ast::Stmt* s, Scope& sc);
  void resolve_expr(ast::Expr* e, Scope& sc, bool as_array = false);
  void visit_number(ast::NumberLit*);
  void visit_string(ast::StringLit*);
  void visit_target(ast::TargetExpr*);
  void visit_at_op(ast::AtOpExpr*);
  void visit_embedded(ast::EmbeddedExpr*);
  void visit_member(ast::MemberExpr*);
  void visit_wildcard(ast::WildcardExpr*);
  void visit_var(ast::VarRef*);
  void visit_index(ast::IndexExpr*);
  void visit_in_array(ast::InArrayExpr*);
  void visit_call(ast::CallExpr*);
  void visit_unary(ast::UnaryExpr*);
  void visit_binary(ast::BinaryExpr*);
  void visit_ternary(ast::TernaryExpr*);
  void visit_assign(ast::AssignExpr*);
  void visit_block(ast::BlockStmt*);
  void visit_expr_stmt(ast::ExprStmt*);
  void visit_if(ast::IfStmt*);
  void visit_while(ast::WhileStmt*);
  void visit_for(ast::ForStmt*);
  void visit_foreach(ast::ForeachStmt*);
  void visit_try(ast::TryStmt*);
  void visit_next(ast::SimpleStmt*);
  void visit_break(ast::SimpleStmt*);
  void visit_continue(ast::SimpleStmt*);
  void visit_return(ast::ReturnStmt*);
  void visit_delete(ast::DeleteStmt*);
  void visit_null(ast::SimpleStmt*);
  void report_unknown_function(const ast::CallExpr* c);
  void drop_dead(const ast::Node* dead, bool is_stmt, const ast::Expr* cond);  // a statement, or an expression
  ast::Symbol* lookup(ast::VarRef* v, Scope& sc, bool as_array, int arity = 1);
  void set_arity(ast::Symbol* sym, int arity, SourceLoc loc);
  void mark_write(ast::Expr* lvalue, Scope& sc, SourceLoc op = {});
  static void touch(ast::Symbol* sym, Scope& sc, bool write);
  void histogram_of(ast::AtOpExpr* a, ast::Symbol* sym);
  void variance_of(ast::AtOpExpr* a, ast::Symbol* sym);
  void check_foreach_modification(ast::VarRef* v);

  // resolve_targets.cpp
  void mark_target_write(ast::TargetExpr* t, SourceLoc op);
  void mark_member_write(ast::MemberExpr* m, SourceLoc op);
  void mark_at_write(ast::AtOpExpr* a, SourceLoc op);
  void resolve_indices(std::span<ast::TargetComponent> components, Scope& sc);
  void resolve_target_expr(ast::TargetExpr* t, Scope& sc);
  void resolve_entry_expr(ast::AtOpExpr* a, Scope& sc);
  void resolve_defined(ast::AtOpExpr* a, Scope& sc);
  void resolve_perf(ast::AtOpExpr* a);
  bool resolves_here(const ast::Expr* e, Scope& sc);
  ast::Symbol* named_variable(const ast::Expr* e, Scope& sc) const;
  debug::DebugInfo* cast_debuginfo(const ast::AtOpExpr& a, DiagSink& sink, bool* user = nullptr);
  void resolve_address_of(ast::UnaryExpr* u, Scope& sc);
  void report_no_variables(SourceLoc at, Scope& sc);
  // 1 or 0 for a condition made of @defined(...) (with !, &&, ||; with
  // `literals`, numbers too), else -1.
  int constant_condition(const ast::Expr* e, bool literals = false) const;

  // privilege.cpp
  void check_unprivileged_call(ast::CallExpr* c, ast::FunctionDecl* in);
  void note_kernel_memory(ast::Expr* e, const std::string& what, Scope& sc);

  Elaboration& elab_;
  Scope* sc_ = nullptr;          // of the subtree being resolved
  bool in_condition_ = false;    // resolving a probe point's condition
  bool printing_ = false;        // resolving the arguments of print/println
  bool taking_address_ = false;  // resolving X of &@cast(...)/&@var(...)
  bool in_entry_expr_ = false;   // resolving the expression of @entry(expr)
  bool deleting_ = false;        // resolving a[...] of "delete a[...]" ('*' keys)
  bool assigning_ = false;       // resolving the target expression an assignment stores into
  std::vector<ast::Symbol*> foreach_arrays_;  // arrays of the foreach loops being resolved
};

}  // namespace stapx::elab
