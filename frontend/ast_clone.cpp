// Deep copy of expressions and statements (see ast_clone.h).
#include "frontend/ast_clone.h"

namespace stapx::ast {

namespace {

template <typename T>
T* copy_node(Arena& arena, const T* from) {
  // Fields first; children are replaced by the caller (and a copied List
  // shares its elements: the caller gives it a list of its own).
  return arena.make<T>(from->loc, *from);
}

VarRef* clone_var(Arena& arena, const VarRef* v) {
  if (!v) return nullptr;
  VarRef* c = copy_node(arena, v);
  c->sym = nullptr;
  return c;
}

// A list of its own, each element cloned by `one`.
template <typename T, typename One>
List<T> clone_each(Arena& arena, const List<T>& from, One one) {
  List<T> out;
  out.reserve(arena, from.size());
  for (const T& x : from) out.push_back(arena, one(arena, x));
  return out;
}

List<Expr*> clone_all(Arena& arena, const List<Expr*>& es) {
  return clone_each(arena, es, [](Arena& a, const Expr* e) { return clone(a, e); });
}

List<TargetComponent> clone_components(Arena& arena, const List<TargetComponent>& cs) {
  List<TargetComponent> out;
  out.assign(arena, cs);
  for (TargetComponent& c : out)
    if (c.index) c.index = clone(arena, c.index);
  return out;
}

}  // namespace

Expr* clone(Arena& arena, const Expr* e) {
  if (!e) return nullptr;
  switch (e->kind) {
    case ExprKind::Number: return copy_node(arena, static_cast<const NumberLit*>(e));
    case ExprKind::String: return copy_node(arena, static_cast<const StringLit*>(e));
    case ExprKind::Embedded: return copy_node(arena, static_cast<const EmbeddedExpr*>(e));
    case ExprKind::Wildcard: return copy_node(arena, static_cast<const WildcardExpr*>(e));
    case ExprKind::Var: return clone_var(arena, static_cast<const VarRef*>(e));
    case ExprKind::Index: {
      auto* c = copy_node(arena, static_cast<const IndexExpr*>(e));
      c->array = clone_var(arena, c->array);
      c->keys = clone_all(arena, c->keys);
      return c;
    }
    case ExprKind::Call: {
      auto* c = copy_node(arena, static_cast<const CallExpr*>(e));
      c->args = clone_all(arena, c->args);
      c->fn = nullptr;
      c->builtin = Builtin::None;
      return c;
    }
    case ExprKind::Unary: {
      auto* c = copy_node(arena, static_cast<const UnaryExpr*>(e));
      c->operand = clone(arena, c->operand);
      return c;
    }
    case ExprKind::Binary: {
      auto* c = copy_node(arena, static_cast<const BinaryExpr*>(e));
      c->lhs = clone(arena, c->lhs);
      c->rhs = clone(arena, c->rhs);
      return c;
    }
    case ExprKind::Ternary: {
      auto* c = copy_node(arena, static_cast<const TernaryExpr*>(e));
      c->cond = clone(arena, c->cond);
      c->then = clone(arena, c->then);
      c->els = clone(arena, c->els);
      return c;
    }
    case ExprKind::Assign: {
      auto* c = copy_node(arena, static_cast<const AssignExpr*>(e));
      c->lhs = clone(arena, c->lhs);
      c->rhs = clone(arena, c->rhs);
      return c;
    }
    case ExprKind::InArray: {
      auto* c = copy_node(arena, static_cast<const InArrayExpr*>(e));
      c->keys = clone_all(arena, c->keys);
      c->array = clone_var(arena, c->array);
      return c;
    }
    case ExprKind::Target: {
      auto* c = copy_node(arena, static_cast<const TargetExpr*>(e));
      c->components = clone_components(arena, c->components);
      return c;
    }
    case ExprKind::AtOp: {
      auto* c = copy_node(arena, static_cast<const AtOpExpr*>(e));
      c->args = clone_all(arena, c->args);
      c->components = clone_components(arena, c->components);
      return c;
    }
    case ExprKind::Member: {
      auto* c = copy_node(arena, static_cast<const MemberExpr*>(e));
      c->base = clone(arena, c->base);
      c->components = clone_components(arena, c->components);
      return c;
    }
  }
  return nullptr;
}

BlockStmt* clone(Arena& arena, const BlockStmt* b) {
  if (!b) return nullptr;
  auto* c = copy_node(arena, b);
  c->stmts = clone_each(arena, b->stmts, [](Arena& a, const Stmt* s) { return clone(a, s); });
  return c;
}

Stmt* clone(Arena& arena, const Stmt* s) {
  if (!s) return nullptr;
  switch (s->kind) {
    case StmtKind::Block: return clone(arena, static_cast<const BlockStmt*>(s));
    case StmtKind::Expr: {
      auto* c = copy_node(arena, static_cast<const ExprStmt*>(s));
      c->expr = clone(arena, c->expr);
      return c;
    }
    case StmtKind::If: {
      auto* c = copy_node(arena, static_cast<const IfStmt*>(s));
      c->cond = clone(arena, c->cond);
      c->then = clone(arena, c->then);
      c->els = clone(arena, c->els);
      return c;
    }
    case StmtKind::While: {
      auto* c = copy_node(arena, static_cast<const WhileStmt*>(s));
      c->cond = clone(arena, c->cond);
      c->body = clone(arena, c->body);
      return c;
    }
    case StmtKind::For: {
      auto* c = copy_node(arena, static_cast<const ForStmt*>(s));
      c->init = clone(arena, c->init);
      c->cond = clone(arena, c->cond);
      c->incr = clone(arena, c->incr);
      c->body = clone(arena, c->body);
      return c;
    }
    case StmtKind::Foreach: {
      auto* c = copy_node(arena, static_cast<const ForeachStmt*>(s));
      c->value = clone_var(arena, c->value);
      c->keys = clone_each(arena, c->keys, clone_var);
      c->array = clone_var(arena, c->array);
      c->histogram = clone(arena, c->histogram);
      c->slice = clone_all(arena, c->slice);
      c->limit = clone(arena, c->limit);
      c->body = clone(arena, c->body);
      return c;
    }
    case StmtKind::Return: {
      auto* c = copy_node(arena, static_cast<const ReturnStmt*>(s));
      c->value = clone(arena, c->value);
      return c;
    }
    case StmtKind::Delete: {
      auto* c = copy_node(arena, static_cast<const DeleteStmt*>(s));
      c->target = clone(arena, c->target);
      return c;
    }
    case StmtKind::Try: {
      auto* c = copy_node(arena, static_cast<const TryStmt*>(s));
      c->body = clone(arena, c->body);
      c->var = clone_var(arena, c->var);
      c->handler = clone(arena, c->handler);
      return c;
    }
    case StmtKind::Next:
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Null:
      return copy_node(arena, static_cast<const SimpleStmt*>(s));
  }
  return nullptr;
}

}  // namespace stapx::ast
