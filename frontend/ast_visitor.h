// The one walk over the AST. Every pass that looks at expressions and
// statements derives from Visitor (CRTP) and overrides only the nodes it
// cares about; the others walk their children, in source order.
//
//   struct CallNames : ast::Visitor<CallNames, true> {    // true: const nodes
//     std::set<std::string> names;
//     void visit_call(const CallExpr* c) { names.insert(c->name.str()); walk(c); }
//   };
//   CallNames n; n.visit(stmt);
//
// A walk that must decide for every node (a printer, a cloner, code
// generation) says so with `static constexpr bool kEveryNode = true;`: it
// then fails to compile unless it defines visit_X for every kind X itself,
// so a new node kind is a compile error in each such walk. The dispatch
// switches have no default: with -Werror=switch a kind added to ExprKind or
// StmtKind and missed here does not compile either.
//
// visit(nullptr) does nothing and returns R() (many children "may be null").
// A visit_X that returns R (RS for statements: code generation gives a C
// expression for an expression and writes a statement) gives the value of
// visit() on that node; its default returns R() after walking the children.
// The walk reaches children through self().visit(), so a walk that must act
// before and after every node defines its own visit() (with `using
// Visitor::visit;`) and calls Visitor::visit() in between.
#pragma once

#include <type_traits>

#include "frontend/ast.h"

namespace stapx::ast {

// The node kinds, each as (kind, type, visit_ name). X-macros so that the
// dispatch, the defaults and the exhaustiveness check cannot disagree.
#define STAPX_AST_EXPRS(X)                     \
  X(ExprKind::Number, NumberLit, number)       \
  X(ExprKind::String, StringLit, string)       \
  X(ExprKind::Var, VarRef, var)                \
  X(ExprKind::Index, IndexExpr, index)         \
  X(ExprKind::Call, CallExpr, call)            \
  X(ExprKind::Unary, UnaryExpr, unary)         \
  X(ExprKind::Binary, BinaryExpr, binary)      \
  X(ExprKind::Ternary, TernaryExpr, ternary)   \
  X(ExprKind::Assign, AssignExpr, assign)      \
  X(ExprKind::InArray, InArrayExpr, in_array)  \
  X(ExprKind::Target, TargetExpr, target)      \
  X(ExprKind::AtOp, AtOpExpr, at_op)           \
  X(ExprKind::Embedded, EmbeddedExpr, embedded) \
  X(ExprKind::Member, MemberExpr, member)      \
  X(ExprKind::Wildcard, WildcardExpr, wildcard)

#define STAPX_AST_STMTS(X)                      \
  X(StmtKind::Block, BlockStmt, block)          \
  X(StmtKind::Expr, ExprStmt, expr_stmt)        \
  X(StmtKind::If, IfStmt, if)                   \
  X(StmtKind::While, WhileStmt, while)          \
  X(StmtKind::For, ForStmt, for)                \
  X(StmtKind::Foreach, ForeachStmt, foreach)    \
  X(StmtKind::Next, SimpleStmt, next)           \
  X(StmtKind::Break, SimpleStmt, break)         \
  X(StmtKind::Continue, SimpleStmt, continue)   \
  X(StmtKind::Return, ReturnStmt, return)       \
  X(StmtKind::Delete, DeleteStmt, delete)       \
  X(StmtKind::Null, SimpleStmt, null)           \
  X(StmtKind::Try, TryStmt, try)

template <typename Derived, bool Const = false, typename R = void, typename RS = R>
class Visitor {
 public:
  template <typename T>
  using Ptr = std::conditional_t<Const, const T*, T*>;

  R visit(Ptr<Expr> e) {
    if (!e) return R();
    switch (e->kind) {
#define STAPX_CASE(K, T, N) \
  case K:                   \
    check_own<&Derived::visit_##N, R, T>(); \
    return self().visit_##N(static_cast<Ptr<T>>(e));
      STAPX_AST_EXPRS(STAPX_CASE)
#undef STAPX_CASE
    }
    return R();
  }

  RS visit(Ptr<Stmt> s) {
    if (!s) return RS();
    switch (s->kind) {
#define STAPX_CASE(K, T, N) \
  case K:                   \
    check_own<&Derived::visit_##N, RS, T>(); \
    return self().visit_##N(static_cast<Ptr<T>>(s));
      STAPX_AST_STMTS(STAPX_CASE)
#undef STAPX_CASE
    }
    return RS();
  }

  // Defaults: walk the children, give R() (RS() for a statement).
#define STAPX_DEFAULT(K, T, N) \
  R visit_##N(Ptr<T> n) {      \
    walk(n);                   \
    return R();                \
  }
  STAPX_AST_EXPRS(STAPX_DEFAULT)
#undef STAPX_DEFAULT
#define STAPX_DEFAULT(K, T, N) \
  RS visit_##N(Ptr<T> n) {     \
    walk(n);                   \
    return RS();               \
  }
  STAPX_AST_STMTS(STAPX_DEFAULT)
#undef STAPX_DEFAULT

  // The children of each node, in source order.
  void walk(Ptr<NumberLit>) {}
  void walk(Ptr<StringLit>) {}
  void walk(Ptr<VarRef>) {}
  void walk(Ptr<WildcardExpr>) {}
  void walk(Ptr<EmbeddedExpr>) {}
  void walk(Ptr<IndexExpr> n) {
    self().visit(as_expr(n->array));
    self().visit_all(n->keys);
  }
  void walk(Ptr<CallExpr> n) { self().visit_all(n->args); }
  void walk(Ptr<UnaryExpr> n) { self().visit(n->operand); }
  void walk(Ptr<BinaryExpr> n) {
    self().visit(n->lhs);
    self().visit(n->rhs);
  }
  void walk(Ptr<TernaryExpr> n) {
    self().visit(n->cond);
    self().visit(n->then);
    self().visit(n->els);
  }
  void walk(Ptr<AssignExpr> n) {
    self().visit(n->lhs);
    self().visit(n->rhs);
  }
  void walk(Ptr<InArrayExpr> n) {
    self().visit_all(n->keys);
    self().visit(as_expr(n->array));
  }
  void walk(Ptr<TargetExpr> n) { self().visit_components(n->components); }
  void walk(Ptr<AtOpExpr> n) {
    self().visit_all(n->args);
    self().visit_components(n->components);
  }
  void walk(Ptr<MemberExpr> n) {
    self().visit(n->base);
    self().visit_components(n->components);
  }

  void walk(Ptr<BlockStmt> n) {
    for (auto s : n->stmts) self().visit(as_stmt(s));
  }
  void walk(Ptr<ExprStmt> n) { self().visit(n->expr); }
  void walk(Ptr<IfStmt> n) {
    self().visit(n->cond);
    self().visit(n->then);
    self().visit(n->els);
  }
  void walk(Ptr<WhileStmt> n) {
    self().visit(n->cond);
    self().visit(n->body);
  }
  void walk(Ptr<ForStmt> n) {
    self().visit(n->init);
    self().visit(n->cond);
    self().visit(n->incr);
    self().visit(n->body);
  }
  // foreach ([value =] [keys] in array[slice] | histogram [limit n]) body
  void walk(Ptr<ForeachStmt> n) {
    self().visit(as_expr(n->value));
    for (auto k : n->keys) self().visit(as_expr(k));
    self().visit(as_expr(n->array));
    self().visit(n->histogram);
    self().visit_all(n->slice);
    self().visit(n->limit);
    self().visit(n->body);
  }
  void walk(Ptr<SimpleStmt>) {}
  void walk(Ptr<ReturnStmt> n) { self().visit(n->value); }
  void walk(Ptr<DeleteStmt> n) { self().visit(n->target); }
  void walk(Ptr<TryStmt> n) {
    self().visit(as_stmt(n->body));
    self().visit(as_expr(n->var));
    self().visit(as_stmt(n->handler));
  }

  void visit_all(const List<Expr*>& es) {
    for (auto e : es) self().visit(as_expr(e));
  }
  void visit_components(const List<TargetComponent>& cs) {
    for (const TargetComponent& c : cs) self().visit(as_expr(c.index));
  }

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }

 private:
  static Ptr<Expr> as_expr(Ptr<Expr> e) { return e; }
  static Ptr<Stmt> as_stmt(Ptr<Stmt> s) { return s; }

  template <typename D>
  static constexpr bool every_node() {
    if constexpr (requires { D::kEveryNode; })
      return D::kEveryNode;
    else
      return false;
  }
  // With kEveryNode, each visit_X must be Derived's own.
  template <auto Mine, typename Ret, typename T>
  static constexpr void check_own() {
    if constexpr (every_node<Derived>())
      static_assert(std::is_same_v<decltype(Mine), Ret (Derived::*)(Ptr<T>)>,
                    "a walk with kEveryNode must define visit_X for every node kind X");
  }
};

}  // namespace stapx::ast
