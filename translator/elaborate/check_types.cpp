// Checks once types are known: what inference could not settle, printf's
// arguments against its format, values that are no values (void, a
// statistic), foreach bodies that change the array they iterate.
#include "translator/elaborate/elaboration.h"

#include <algorithm>
#include <vector>

#include "frontend/ast_visitor.h"
#include "frontend/format.h"

namespace stapx::elab {

using namespace ast;

namespace {

// The walk reaches what a script computes: not the variables a foreach
// binds, nor target variables' indices, nor an array named by its
// elements (each of those is checked where it is read).
class TypeChecks : public Visitor<TypeChecks> {
 public:
  explicit TypeChecks(Elaboration& elab) : elab_(elab) {}

  void visit_var(VarRef* v) {
    // As stap: a local read that nothing assigns, typed by its use or not.
    if (v->sym && !v->sym->assigned && v->sym->scope == Symbol::Scope::Local && elab_.in_user_code(v->loc) &&
        elab_.reported.insert(&v->sym->assigned).second)
      elab_.diags.report(DiagId::WarnNeverAssigned, v->loc, v->name);
    if (v->sym && v->sym->type == Type::Unknown) unresolved(v->loc, v->sym);
    // (A statistic local nothing reads is elided instead, as stap's is.)
    if (v->sym && v->sym->type == Type::Stats && v->sym->scope != Symbol::Scope::Global &&
        (v->sym->used || elab_.opts.keep_unused) && elab_.reported.insert(v->sym).second)
      elab_.diags.report(DiagId::SemStatLocal, v->loc);
  }
  void visit_index(IndexExpr* ix) {
    if (ix->array->sym && ix->array->sym->type == Type::Unknown) unresolved(ix->loc, ix->array->sym);
    visit_all(ix->keys);
  }
  void visit_in_array(InArrayExpr* in) { visit_all(in->keys); }
  void visit_call(CallExpr* c);
  void visit_at_op(AtOpExpr* a) {
    visit_all(a->args);
    if (is_bucket_read(a)) visit(a->components[0].index);
  }
  void visit_assign(AssignExpr* a) {
    if (a->op != Op::AggregateInto && (a->rhs->type == Type::Void || a->rhs->type == Type::Stats) &&
        elab_.reported.insert(a->rhs).second) {
      elab_.diags.report(DiagId::SemInvalidType, a->rhs->loc, type_name(a->rhs->type));
      if (a->lhs->kind == ExprKind::Var) elab_.reported.insert(static_cast<VarRef*>(a->lhs)->sym);
    }
    walk(a);
  }
  void visit_target(TargetExpr*) {}
  void visit_member(MemberExpr* m) { visit(m->base); }

  void visit_foreach(ForeachStmt* f) {
    // (stap 4.8 has no statistic values either: its words.)
    if (f->array && f->array->sym && f->array->sym->type == Type::Stats && f->value)
      elab_.diags.report(DiagId::SemInvalidType, f->value->loc, type_name(Type::Stats));
    visit(f->limit);
    visit(f->body);
  }
  void visit_try(TryStmt* t) {
    visit(static_cast<Stmt*>(t->body));
    visit(static_cast<Stmt*>(t->handler));
  }

 private:
  void check_format(CallExpr* c);
  void unresolved(SourceLoc loc, const void* key) {
    if (elab_.reported.insert(key).second) elab_.diags.report(DiagId::SemUnresolvedType, loc);
  }
  Elaboration& elab_;
};

}  // namespace

// printf/sprintf: a literal format whose conversions match the arguments.
void TypeChecks::check_format(CallExpr* c) {
  if (c->args.empty()) return;
  if (c->args[0]->kind != ExprKind::String) {
    elab_.diags.report(DiagId::SemFormatArgs, c->args[0]->loc, "format string must be a literal");
    return;
  }
  ParsedFormat pf = parse_format(static_cast<StringLit*>(c->args[0])->value.str());
  if (!pf.error.empty()) {
    elab_.diags.report(DiagId::SemFormatArgs, c->args[0]->loc, pf.error);
    return;
  }
  if (pf.conversions.size() != c->args.size() - 1) {
    elab_.diags.report(DiagId::SemPrintArgCount, c->loc);
    return;
  }
  for (size_t i = 0; i < pf.conversions.size(); ++i) {
    Expr* a = c->args[i + 1];
    Type want = pf.conversions[i].type;
    if (a->type == Type::Unknown || a->type == want) continue;
    if (a->kind == ExprKind::Var || a->kind == ExprKind::Index || a->kind == ExprKind::Call)
      elab_.diags.report(DiagId::SemTypeMismatch, a->loc, type_name(want));
    else
      elab_.diags.report(DiagId::SemTypeExpected, type_error_site(a), type_name(want), type_name(a->type));
  }
}

void TypeChecks::visit_call(CallExpr* c) {
  visit_all(c->args);
  if (c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf) {
    check_format(c);
  } else {
    for (Expr* a : c->args) {
      bool histogram = a->kind == ExprKind::AtOp && is_histogram(static_cast<AtOpExpr*>(a));
      if ((a->type == Type::Void && !histogram) || a->type == Type::Stats)
        elab_.diags.report(DiagId::SemInvalidType, a->loc, type_name(a->type));
    }
  }
  if (c->fn && c->fn->type == Type::Unknown) c->fn->type = Type::Void;
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
  for (FunctionDecl* f : elab.prog.functions) checks.visit(static_cast<Stmt*>(f->body));
  for (Script* script : elab.prog.scripts)
    for (ProbeDecl* p : script->probes) checks.visit(static_cast<Stmt*>(p->body));
  check_foreach_calls(elab);
  // As stap: a global of the user's that is read but nothing assigns (no
  // initializer, no -G value), at its declaration.
  for (Symbol* g : elab.prog.globals) {
    bool given = std::any_of(elab.opts.global_values.begin(), elab.opts.global_values.end(),
                             [&](const auto& nv) { return nv.first == g->name; });
    if (!g->assigned && !g->init && !given && elab.referenced.count(g) && elab.in_user_code(g->decl))
      elab.diags.report(DiagId::WarnNeverAssignedGlobal, g->decl, g->name);
  }
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
