// Dead code, as stap elides it without -u: stores into locals nothing
// reads and statements whose evaluation changes nothing (each a warning in
// the user's code); and globals no probe or function names.
#include "translator/elaborate/elaboration.h"

#include "frontend/ast_visitor.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace stapx::elab {

using namespace ast;

namespace {

// No call, store or increment anywhere in e: evaluating it changes nothing.
bool side_effect_free(const Expr* e, bool pure_calls) {
  switch (e->kind) {
    case ExprKind::Number:
    case ExprKind::String:
    case ExprKind::Var:
      return true;
    case ExprKind::Index: {
      for (const Expr* k : static_cast<const IndexExpr*>(e)->keys)
        if (!side_effect_free(k, pure_calls)) return false;
      return true;
    }
    case ExprKind::Unary: {
      auto* u = static_cast<const UnaryExpr*>(e);
      return u->op != Op::PreInc && u->op != Op::PreDec && u->op != Op::PostInc && u->op != Op::PostDec &&
             side_effect_free(u->operand, pure_calls);
    }
    case ExprKind::Binary: {
      auto* b = static_cast<const BinaryExpr*>(e);
      // Division may fail at run time, which is an effect.
      return b->op != Op::Div && b->op != Op::Mod && side_effect_free(b->lhs, pure_calls) &&
             side_effect_free(b->rhs, pure_calls);
    }
    case ExprKind::Ternary: {
      auto* t = static_cast<const TernaryExpr*>(e);
      return side_effect_free(t->cond, pure_calls) && side_effect_free(t->then, pure_calls) &&
             side_effect_free(t->els, pure_calls);
    }
    case ExprKind::Call: {
      // An embedded-C function that says /* pure */ has no effect but its
      // value, counted so only in library code (an alias's prologue sets
      // many variables; a probe reads few): in the user's code a call
      // stays, since its run-time error may be what the script is after.
      auto* c = static_cast<const CallExpr*>(e);
      bool pure = c->builtin == Builtin::Sprintf || c->builtin == Builtin::Sprint ||
                  c->builtin == Builtin::Sprintln || c->builtin == Builtin::Sprintd ||
                  c->builtin == Builtin::Sprintdln ||
                  (c->fn && c->fn->has_pragma("pure"));
      if (!pure_calls || !pure) return false;
      for (const Expr* a : c->args)
        if (!side_effect_free(a, pure_calls)) return false;
      return true;
    }
    case ExprKind::Embedded:
      // As an embedded-C function: /* pure */ counts in library code only.
      return pure_calls && static_cast<const EmbeddedExpr*>(e)->has_pragma("pure");
    case ExprKind::Assign:
    case ExprKind::InArray:
    case ExprKind::Target:
    case ExprKind::AtOp:
    case ExprKind::Member:
    case ExprKind::Wildcard:
      return false;
  }
  return false;  // not a kind
}

template <typename F>
void each_stmt(Stmt*& s, const F& f) {
  if (!s) return;
  f(s);
  switch (s->kind) {
    case StmtKind::Block:
      for (Stmt*& st : static_cast<BlockStmt*>(s)->stmts) each_stmt(st, f);
      break;
    case StmtKind::If:
      each_stmt(static_cast<IfStmt*>(s)->then, f);
      each_stmt(static_cast<IfStmt*>(s)->els, f);
      break;
    case StmtKind::While:
      each_stmt(static_cast<WhileStmt*>(s)->body, f);
      break;
    case StmtKind::For:
      each_stmt(static_cast<ForStmt*>(s)->body, f);
      break;
    case StmtKind::Foreach:
      each_stmt(static_cast<ForeachStmt*>(s)->body, f);
      break;
    case StmtKind::Try: {
      auto* t = static_cast<TryStmt*>(s);
      for (BlockStmt* b : {t->body, t->handler})
        if (b)
          for (Stmt*& st : b->stmts) each_stmt(st, f);
      break;
    }
    case StmtKind::Expr:
    case StmtKind::Next:
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Return:
    case StmtKind::Delete:
    case StmtKind::Null:
      break;
  }
}

// Every symbol a statement names; with reads_only, not the variable a
// plain "x = ..." statement stores to.
struct NamedSymbols : Visitor<NamedSymbols, true> {
  std::set<const Symbol*>& out;
  bool reads_only;
  NamedSymbols(std::set<const Symbol*>& o, bool r) : out(o), reads_only(r) {}
  void visit_var(const VarRef* v) { out.insert(v->sym); }
  void visit_expr_stmt(const ExprStmt* st) {
    const Expr* e = st->expr;
    if (reads_only && e->kind == ExprKind::Assign && static_cast<const AssignExpr*>(e)->op == Op::Assign &&
        static_cast<const AssignExpr*>(e)->lhs->kind == ExprKind::Var)
      e = static_cast<const AssignExpr*>(e)->rhs;
    visit(e);
  }
};

void named_symbols(const Stmt* s, std::set<const Symbol*>& out, bool reads_only = false) {
  NamedSymbols(out, reads_only).visit(s);
}

// Drops the locals a body no longer names; the others are renumbered.
void drop_unnamed_locals(Stmt* body, std::vector<Symbol*>& locals) {
  std::set<const Symbol*> named;
  named_symbols(body, named);
  std::erase_if(locals, [&](Symbol* s) { return s->scope == Symbol::Scope::Local && !named.count(s); });
  for (size_t i = 0; i < locals.size(); ++i) locals[i]->index = static_cast<int>(i);
}

}  // namespace

// Without -u, as stap: a store into a local that nothing reads is dropped
// (its value is still computed if that has effects), then statements whose
// evaluation changes nothing are dropped. Both are reported as warnings.
void elide_dead_code(Elaboration& elab) {
  std::vector<Stmt**> bodies;
  for (Script* script : elab.prog.scripts)
    for (ProbeDecl* p : script->probes) bodies.push_back(reinterpret_cast<Stmt**>(&p->body));
  for (FunctionDecl* f : elab.prog.functions)
    if (!f->is_embedded && f->body) bodies.push_back(reinterpret_cast<Stmt**>(&f->body));
  // Rounds until nothing changes: eliding "argstr = sprintf(..., x)" in an
  // alias's prologue leaves x unread, and so on. The first round judges by
  // what resolution saw read; later ones by what is still read.
  for (int round = 0; round < 32; ++round) {
    bool changed = false;
    for (Stmt** body : bodies) {
      std::set<const Symbol*> reads;
      if (round) named_symbols(*body, reads, /*reads_only=*/true);
      each_stmt(*body, [&](Stmt*& s) {
        if (s->kind != StmtKind::Expr) return;
        auto* es = static_cast<ExprStmt*>(s);
        if (es->expr->kind != ExprKind::Assign) return;
        auto* a = static_cast<AssignExpr*>(es->expr);
        if ((a->op != Op::Assign && a->op != Op::AggregateInto) || a->lhs->kind != ExprKind::Var) return;
        Symbol* sym = static_cast<VarRef*>(a->lhs)->sym;
        if (!sym || sym->scope != Symbol::Scope::Local || (round ? reads.count(sym) > 0 : sym->used)) return;
        changed = true;
        if (sym->in_defined && side_effect_free(a->rhs, !elab.in_user_code(s->loc))) {
          // As stap: a variable @defined looked at goes quietly.
          s = elab.arena.make<SimpleStmt>(s->loc, StmtKind::Null);
          return;
        }
        if (elab.in_user_code(a->op_loc) && !sym->in_defined)
          elab.diags.report(DiagId::WarnElideAssign, a->op_loc, sym->name);
        es->expr = a->rhs;
        es->loc = a->lhs->loc;
      });
    }
    for (Stmt** body : bodies) {
      each_stmt(*body, [&](Stmt*& s) {
        if (s->kind != StmtKind::Expr || !side_effect_free(static_cast<ExprStmt*>(s)->expr, !elab.in_user_code(s->loc)))
          return;
        if (elab.in_user_code(s->loc)) elab.diags.report(DiagId::WarnElideExpr, s->loc);
        s = elab.arena.make<SimpleStmt>(s->loc, StmtKind::Null);
        changed = true;
      });
    }
    if (!changed) break;
  }
  for (Script* script : elab.prog.scripts)
    for (ProbeDecl* p : script->probes) drop_unnamed_locals(p->body, p->locals);
  for (FunctionDecl* f : elab.prog.functions)
    if (!f->is_embedded && f->body) drop_unnamed_locals(f->body, f->locals);
}

namespace {

// Does nothing once dead code is gone: empty blocks, and ifs whose branch
// that can run does nothing (a constant condition picks one; another must
// have no effect itself).
bool does_nothing(const Stmt* s) {
  if (!s) return true;
  switch (s->kind) {
    case StmtKind::Null:
      return true;
    case StmtKind::Block:
      for (const Stmt* st : static_cast<const BlockStmt*>(s)->stmts)
        if (!does_nothing(st)) return false;
      return true;
    case StmtKind::If: {
      auto* i = static_cast<const IfStmt*>(s);
      if (i->cond->kind == ExprKind::Number)
        return does_nothing(static_cast<const NumberLit*>(i->cond)->value ? i->then : i->els);
      return side_effect_free(i->cond, false) && does_nothing(i->then) && does_nothing(i->els);
    }
    default:
      return false;
  }
}

}  // namespace

std::set<const ProbeDecl*> probes_on_busy_aliases(const Elaboration& elab) {
  std::set<const ProbeDecl*> out;
  for (const ProbeSpec& spec : elab.prog.probes)
    if (spec.decl && !spec.decl->pn.empty() && !does_nothing(spec.decl->body)) out.insert(spec.decl);
  return out;
}

// Without -u, as stap: a probe whose body does nothing once dead code is
// gone is left out, with a warning for each point of its declaration that
// names the point's first component ("Probe 'kernel' has been elided") at
// the declaration; when none is left, pass 2 says "no probes found".
// `keep`: probes on aliases whose prologue or epilogue does something
// before dead code goes (probes_on_busy_aliases()): stap's alias prologues
// call functions with effects (user_string_quoted() and the like), so stap
// keeps "probe syscall.read {}", where ours could be found to do nothing.
void elide_empty_probes(Elaboration& elab, const std::set<const ProbeDecl*>& keep) {
  std::vector<std::pair<const ProbeDecl*, const ProbePoint*>> said;
  std::set<const ProbeDecl*> empty;
  for (const ProbeSpec& spec : elab.prog.probes) {
    if (!spec.decl || keep.count(spec.decl) || !does_nothing(spec.decl->body)) continue;
    // A perf counter's point is what @perf reads: it stays, as in stap.
    if (spec.point && std::any_of(spec.point->components.begin(), spec.point->components.end(),
                                  [](const ProbePointComponent& c) { return c.name == "counter"; }))
      continue;
    empty.insert(spec.decl);
    std::pair<const ProbeDecl*, const ProbePoint*> point{spec.decl, spec.point};
    if (std::find(said.begin(), said.end(), point) != said.end()) continue;
    said.push_back(point);
    std::string name = spec.point && !spec.point->components.empty() ? std::string(spec.point->components[0].name)
                                                                     : spec.pp.substr(0, spec.pp.find_first_of(".("));
    // (At the declaration, or where it names the alias that made it.)
    SourceLoc at = spec.decl->alias_at.valid() ? spec.decl->alias_at : spec.decl->loc;
    if (elab.in_user_code(spec.decl->loc)) elab.diags.report(DiagId::WarnElideProbe, at, name);
  }
  std::erase_if(elab.prog.probes, [&](const ProbeSpec& spec) { return empty.count(spec.decl) > 0; });
}

// A global no probe or function names is left out, as stap does (even
// with -u). Globals are renumbered; only named ones have been touched.
void drop_unreferenced_globals(Elaboration& elab) {
  std::vector<int> renumber(elab.prog.globals.size(), -1);
  std::vector<Symbol*> kept;
  for (Symbol* g : elab.prog.globals) {
    if (!elab.referenced.count(g)) continue;
    renumber[g->index] = static_cast<int>(kept.size());
    g->index = static_cast<int>(kept.size());
    kept.push_back(g);
  }
  if (kept.size() == elab.prog.globals.size()) return;
  auto remap = [&](std::vector<int>& v) {
    for (int& i : v) i = renumber[i];
  };
  for (auto& [name, f] : elab.functions) {
    remap(f->global_reads);
    remap(f->global_writes);
  }
  for (FunctionDecl& f : elab.pseudo_fns) {
    remap(f.global_reads);
    remap(f.global_writes);
  }
  elab.prog.globals = std::move(kept);
}

}  // namespace stapx::elab
