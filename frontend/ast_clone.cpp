// Deep copy of expressions and statements (see ast_clone.h).
#include "frontend/ast_clone.h"

#include "frontend/ast_visitor.h"

namespace stapx::ast {

namespace {

// Each visit_X copies its node's fields, then replaces the children with
// copies of their own (a copied List shares its elements, so each gets a
// list of its own).
class Cloner : public Visitor<Cloner, true, Expr*, Stmt*> {
 public:
  static constexpr bool kEveryNode = true;

  explicit Cloner(Arena& arena) : arena_(arena) {}

  Expr* visit_number(const NumberLit* n) { return copy(n); }
  Expr* visit_string(const StringLit* n) { return copy(n); }
  Expr* visit_embedded(const EmbeddedExpr* n) { return copy(n); }
  Expr* visit_wildcard(const WildcardExpr* n) { return copy(n); }
  Expr* visit_var(const VarRef* v) { return var(v); }
  Expr* visit_index(const IndexExpr* n) {
    auto* c = copy(n);
    c->array = var(c->array);
    c->keys = all(c->keys);
    return c;
  }
  Expr* visit_call(const CallExpr* n) {
    auto* c = copy(n);
    c->args = all(c->args);
    c->fn = nullptr;
    c->builtin = Builtin::None;
    return c;
  }
  Expr* visit_unary(const UnaryExpr* n) {
    auto* c = copy(n);
    c->operand = visit(c->operand);
    return c;
  }
  Expr* visit_binary(const BinaryExpr* n) {
    auto* c = copy(n);
    c->lhs = visit(c->lhs);
    c->rhs = visit(c->rhs);
    return c;
  }
  Expr* visit_ternary(const TernaryExpr* n) {
    auto* c = copy(n);
    c->cond = visit(c->cond);
    c->then = visit(c->then);
    c->els = visit(c->els);
    return c;
  }
  Expr* visit_assign(const AssignExpr* n) {
    auto* c = copy(n);
    c->lhs = visit(c->lhs);
    c->rhs = visit(c->rhs);
    return c;
  }
  Expr* visit_in_array(const InArrayExpr* n) {
    auto* c = copy(n);
    c->keys = all(c->keys);
    c->array = var(c->array);
    return c;
  }
  Expr* visit_target(const TargetExpr* n) {
    auto* c = copy(n);
    c->components = components(c->components);
    return c;
  }
  Expr* visit_at_op(const AtOpExpr* n) {
    auto* c = copy(n);
    c->args = all(c->args);
    c->components = components(c->components);
    return c;
  }
  Expr* visit_member(const MemberExpr* n) {
    auto* c = copy(n);
    c->base = visit(c->base);
    c->components = components(c->components);
    return c;
  }

  Stmt* visit_block(const BlockStmt* b) { return block(b); }
  Stmt* visit_expr_stmt(const ExprStmt* n) {
    auto* c = copy(n);
    c->expr = visit(c->expr);
    return c;
  }
  Stmt* visit_if(const IfStmt* n) {
    auto* c = copy(n);
    c->cond = visit(c->cond);
    c->then = visit(c->then);
    c->els = visit(c->els);
    return c;
  }
  Stmt* visit_while(const WhileStmt* n) {
    auto* c = copy(n);
    c->cond = visit(c->cond);
    c->body = visit(c->body);
    return c;
  }
  Stmt* visit_for(const ForStmt* n) {
    auto* c = copy(n);
    c->init = visit(c->init);
    c->cond = visit(c->cond);
    c->incr = visit(c->incr);
    c->body = visit(c->body);
    return c;
  }
  Stmt* visit_foreach(const ForeachStmt* n) {
    auto* c = copy(n);
    c->value = var(c->value);
    c->keys = each(c->keys, [this](const VarRef* v) { return var(v); });
    c->array = var(c->array);
    c->histogram = visit(c->histogram);
    c->slice = all(c->slice);
    c->limit = visit(c->limit);
    c->body = visit(c->body);
    return c;
  }
  Stmt* visit_return(const ReturnStmt* n) {
    auto* c = copy(n);
    c->value = visit(c->value);
    return c;
  }
  Stmt* visit_delete(const DeleteStmt* n) {
    auto* c = copy(n);
    c->target = visit(c->target);
    return c;
  }
  Stmt* visit_try(const TryStmt* n) {
    auto* c = copy(n);
    c->body = block(c->body);
    c->var = var(c->var);
    c->handler = block(c->handler);
    return c;
  }
  Stmt* visit_next(const SimpleStmt* n) { return copy(n); }
  Stmt* visit_break(const SimpleStmt* n) { return copy(n); }
  Stmt* visit_continue(const SimpleStmt* n) { return copy(n); }
  Stmt* visit_null(const SimpleStmt* n) { return copy(n); }

  BlockStmt* block(const BlockStmt* b) {
    if (!b) return nullptr;
    auto* c = copy(b);
    c->stmts = each(b->stmts, [this](const Stmt* s) { return visit(s); });
    return c;
  }

 private:
  template <typename T>
  T* copy(const T* from) {
    return arena_.make<T>(from->loc, *from);
  }

  // A variable's copy is bound afresh by name resolution.
  VarRef* var(const VarRef* v) {
    if (!v) return nullptr;
    VarRef* c = copy(v);
    c->sym = nullptr;
    return c;
  }

  template <typename T, typename One>
  List<T> each(const List<T>& from, One one) {
    List<T> out;
    out.reserve(arena_, from.size());
    for (const T& x : from) out.push_back(arena_, one(x));
    return out;
  }
  List<Expr*> all(const List<Expr*>& es) {
    return each(es, [this](const Expr* e) { return visit(e); });
  }
  List<TargetComponent> components(const List<TargetComponent>& cs) {
    List<TargetComponent> out;
    out.assign(arena_, cs);
    for (TargetComponent& c : out)
      if (c.index) c.index = visit(c.index);
    return out;
  }

  Arena& arena_;
};

}  // namespace

Expr* clone(Arena& arena, const Expr* e) { return Cloner(arena).visit(e); }
Stmt* clone(Arena& arena, const Stmt* s) { return Cloner(arena).visit(s); }
BlockStmt* clone(Arena& arena, const BlockStmt* b) { return Cloner(arena).block(b); }

}  // namespace stapx::ast
