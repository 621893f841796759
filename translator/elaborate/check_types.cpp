// Checks once types are known: what inference could not settle, printf's
// arguments against its format, values that are no values (void, a
// statistic), foreach bodies that change the array they iterate.
#include "translator/elaborate/elaboration.h"

#include <algorithm>
#include <vector>

#include "translator/builtins/format.h"

namespace stapx::elab {

using namespace ast;

namespace {

class TypeChecks {
 public:
  explicit TypeChecks(Elaboration& elab) : elab_(elab) {}
  void check_stmt(Stmt* s);

 private:
  void check_expr(Expr* e);
  Elaboration& elab_;
};

}  // namespace

void TypeChecks::check_expr(Expr* e) {
  auto unresolved = [&](SourceLoc loc, const void* key) {
    if (elab_.reported.insert(key).second) elab_.diags.report(DiagId::SemUnresolvedType, loc);
  };
  switch (e->kind) {
    case ExprKind::Var: {
      auto* v = static_cast<VarRef*>(e);
      if (v->sym && v->sym->type == Type::Unknown) {
        if (!v->sym->assigned && v->sym->scope == Symbol::Scope::Local &&
            elab_.reported.insert(&v->sym->assigned).second)
          if (elab_.in_user_code(v->loc)) elab_.diags.report(DiagId::WarnNeverAssigned, v->loc, v->name);
        unresolved(v->loc, v->sym);
      }
      if (v->sym && v->sym->type == Type::Stats && v->sym->scope != Symbol::Scope::Global &&
          elab_.reported.insert(v->sym).second)
        elab_.diags.report(DiagId::SemStatLocal, v->loc);
      break;
    }
    case ExprKind::Index: {
      auto* ix = static_cast<IndexExpr*>(e);
      if (ix->array->sym && ix->array->sym->type == Type::Unknown) unresolved(ix->loc, ix->array->sym);
      for (Expr* k : ix->keys) check_expr(k);
      break;
    }
    case ExprKind::InArray:
      for (Expr* k : static_cast<InArrayExpr*>(e)->keys) check_expr(k);
      break;
    case ExprKind::Call: {
      auto* c = static_cast<CallExpr*>(e);
      for (Expr* a : c->args) check_expr(a);
      if (c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf) {
        if (c->args.empty()) break;
        if (c->args[0]->kind != ExprKind::String) {
          elab_.diags.report(DiagId::SemFormatArgs, c->args[0]->loc, "format string must be a literal");
          break;
        }
        ParsedFormat pf = parse_format(static_cast<StringLit*>(c->args[0])->value.str());
        if (!pf.error.empty()) {
          elab_.diags.report(DiagId::SemFormatArgs, c->args[0]->loc, pf.error);
          break;
        }
        if (pf.conversions.size() != c->args.size() - 1) {
          elab_.diags.report(DiagId::SemPrintArgCount, c->loc);
          break;
        }
        for (size_t i = 0; i < pf.conversions.size(); ++i) {
          Expr* a = c->args[i + 1];
          Type want = pf.conversions[i].type;
          if (a->type == Type::Unknown || a->type == want) continue;
          if (a->kind == ExprKind::Var || a->kind == ExprKind::Index || a->kind == ExprKind::Call)
            elab_.diags.report(DiagId::SemTypeMismatch, a->loc, type_name(want));
          else
            elab_.diags.report(DiagId::SemTypeExpected, a->loc, type_name(want), type_name(a->type));
        }
      } else {
        for (Expr* a : c->args) {
          bool histogram = a->kind == ExprKind::AtOp && is_histogram(static_cast<AtOpExpr*>(a));
          if ((a->type == Type::Void && !histogram) || a->type == Type::Stats)
            elab_.diags.report(DiagId::SemInvalidType, a->loc, type_name(a->type));
        }
      }
      if (c->fn && c->fn->type == Type::Unknown) c->fn->type = Type::Void;
      break;
    }
    case ExprKind::AtOp:
      for (Expr* a : static_cast<AtOpExpr*>(e)->args) check_expr(a);
      if (is_bucket_read(static_cast<AtOpExpr*>(e))) check_expr(static_cast<AtOpExpr*>(e)->components[0].index);
      break;
    case ExprKind::Unary:
      check_expr(static_cast<UnaryExpr*>(e)->operand);
      break;
    case ExprKind::Binary:
      check_expr(static_cast<BinaryExpr*>(e)->lhs);
      check_expr(static_cast<BinaryExpr*>(e)->rhs);
      break;
    case ExprKind::Ternary:
      check_expr(static_cast<TernaryExpr*>(e)->cond);
      check_expr(static_cast<TernaryExpr*>(e)->then);
      check_expr(static_cast<TernaryExpr*>(e)->els);
      break;
    case ExprKind::Assign: {
      auto* a = static_cast<AssignExpr*>(e);
      if (a->op != Op::AggregateInto && (a->rhs->type == Type::Void || a->rhs->type == Type::Stats) &&
          elab_.reported.insert(a->rhs).second) {
        elab_.diags.report(DiagId::SemInvalidType, a->rhs->loc, type_name(a->rhs->type));
        if (a->lhs->kind == ExprKind::Var) elab_.reported.insert(static_cast<VarRef*>(a->lhs)->sym);
      }
      check_expr(a->lhs);
      check_expr(a->rhs);
      break;
    }
    case ExprKind::Number:
    case ExprKind::String:
    case ExprKind::Target:
    case ExprKind::Embedded:
    case ExprKind::Member:
    case ExprKind::Wildcard:
      break;
  }
}

void TypeChecks::check_stmt(Stmt* s) {
  switch (s->kind) {
    case StmtKind::Block:
      for (Stmt* st : static_cast<BlockStmt*>(s)->stmts) check_stmt(st);
      break;
    case StmtKind::Expr:
      check_expr(static_cast<ExprStmt*>(s)->expr);
      break;
    case StmtKind::If:
      check_expr(static_cast<IfStmt*>(s)->cond);
      check_stmt(static_cast<IfStmt*>(s)->then);
      if (static_cast<IfStmt*>(s)->els) check_stmt(static_cast<IfStmt*>(s)->els);
      break;
    case StmtKind::While:
      check_expr(static_cast<WhileStmt*>(s)->cond);
      check_stmt(static_cast<WhileStmt*>(s)->body);
      break;
    case StmtKind::For: {
      auto* f = static_cast<ForStmt*>(s);
      if (f->init) check_expr(f->init);
      if (f->cond) check_expr(f->cond);
      if (f->incr) check_expr(f->incr);
      check_stmt(f->body);
      break;
    }
    case StmtKind::Return:
      if (static_cast<ReturnStmt*>(s)->value) check_expr(static_cast<ReturnStmt*>(s)->value);
      break;
    case StmtKind::Delete:
      check_expr(static_cast<DeleteStmt*>(s)->target);
      break;
    case StmtKind::Try:
      check_stmt(static_cast<TryStmt*>(s)->body);
      check_stmt(static_cast<TryStmt*>(s)->handler);
      break;
    case StmtKind::Foreach: {
      auto* f = static_cast<ForeachStmt*>(s);
      if (f->array && f->array->sym && f->array->sym->type == Type::Stats && f->value)
        elab_.diags.report(DiagId::SemUnsupported, f->value->loc,
                      "a value variable in a foreach over statistics (use @count(a[k]) ...)");
      if (f->limit) check_expr(f->limit);
      check_stmt(f->body);
      break;
    }
    case StmtKind::Next:
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Null:
      break;
  }
}

// A function called inside a foreach may not change the array being
// iterated (stap's rule, which looks at what the called function itself
// writes or adds to, not at the functions it calls in turn).
void check_foreach_calls(Elaboration& elab) {
  for (const Elaboration::ForeachCall& fc : elab.foreach_calls) {
    const FunctionDecl* f = fc.call->fn;
    for (Symbol* a : fc.arrays) {
      if (!a) continue;
      auto has = [&](const std::vector<int>& v) { return std::find(v.begin(), v.end(), a->index) != v.end(); };
      if (has(f->global_writes) || has(f->global_adds)) {
        elab.diags.report(DiagId::SemForeachCallModify, fc.call->loc, a->name);
        break;
      }
    }
  }
}

void check_types(Elaboration& elab) {
  TypeChecks checks(elab);
  for (FunctionDecl* f : elab.prog.functions) checks.check_stmt(f->body);
  for (Script* script : elab.prog.scripts)
    for (ProbeDecl* p : script->probes) checks.check_stmt(p->body);
  check_foreach_calls(elab);
}

// Globals: one never used is a scalar; one whose type nothing settled is
// an error (after -G, which may not type it).
void check_global_types(Elaboration& elab) {
  for (Symbol* g : elab.prog.globals) {
    if (g->arity < 0) {
      g->arity = 0;  // declared but never used: a scalar
    }
    if (g->type == Type::Unknown && elab.reported.insert(g).second)
      elab.diags.report(DiagId::SemUnresolvedType, g->decl);
  }
}

}  // namespace stapx::elab
