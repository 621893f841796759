// Name resolution's walk (resolver.h): every name, call and statement of
// the probe bodies and functions, with the checks that need the scope
// (jumps outside loops, locals as arrays, statistics operators).
#include "translator/elaborate/resolver.h"

#include <set>
#include <string>
#include <vector>

#include "support/strings.h"
#include "translator/builtins/builtins.h"
#include "translator/elaborate/tapsets.h"
#include "translator/probes/probe_family.h"
#include "translator/similar.h"

namespace stapx::elab {

using namespace ast;

bool is_histogram(const AtOpExpr* a) {
  return (a->op == At::HistLog && a->args.size() == 1) || (a->op == At::HistLinear && a->args.size() == 4);
}

// @hist_log(s)[i], @hist_linear(s, lo, hi, step)[i]: one bucket's count.
bool is_bucket_read(const AtOpExpr* a) {
  return is_histogram(a) && a->components.size() == 1 && a->components[0].field.empty() &&
         a->components[0].index && a->pretty.empty();
}

bool is_stat_read(const AtOpExpr* a) {
  switch (a->op) {
    case At::Count:
    case At::Sum:
    case At::Min:
    case At::Max:
    case At::Avg: return a->args.size() == 1;
    case At::Variance: return a->args.size() == 1 || a->args.size() == 2;
    case At::Cast:
    case At::Defined:
    case At::Entry:
    case At::Var:
    case At::Const:
    case At::Kregister:
    case At::Perf:
    case At::HistLog:
    case At::HistLinear:
    case At::Other: return false;
  }
  return false;
}

void Resolver::set_arity(Symbol* sym, int arity, SourceLoc loc) {
  if (sym->arity == -1 || (sym->arity == -2 && arity > 0)) {
    sym->arity = arity;
    sym->key_types.assign(std::max(arity, 0), Type::Unknown);
    sym->key_sites.assign(std::max(arity, 0), SourceLoc{});
    return;
  }
  if (sym->arity == -2 && arity == 0) {
    elab_.diags.report(DiagId::SemNotScalar, loc, 1);
    return;
  }
  if (sym->arity == arity) return;
  if (sym->arity == 0)
    elab_.diags.report(DiagId::SemNotArray, loc, arity);
  else if (arity == 0)
    elab_.diags.report(DiagId::SemNotScalar, loc, sym->arity);
  else
    elab_.diags.report(DiagId::SemArityMismatch, loc, sym->arity, arity);
}

Symbol* Resolver::lookup(VarRef* v, Scope& sc, bool as_array, int arity) {
  if (in_condition_ && !elab_.globals.count(v->name)) {
    elab_.diags.report(DiagId::SemCondLocal, v->loc);
    return nullptr;
  }
  // Locals and parameters are scalars: an array must be a global.
  if (auto it = sc.names.find(v->name); it != sc.names.end() && !as_array) return it->second;
  if (auto it = elab_.globals.find(v->name); it != elab_.globals.end()) {
    elab_.referenced.insert(it->second);
    return it->second;
  }
  if (as_array) {
    elab_.diags.report(DiagId::SemLocalArray, v->loc, arity, v->name);
    return nullptr;
  }
  Symbol* sym = elab_.new_symbol(v->name, Symbol::Scope::Local, v->loc);
  sym->arity = 0;
  sym->index = static_cast<int>(sc.locals->size());
  sc.locals->push_back(sym);
  sc.names.insert_or_assign(v->name.str(), sym);
  return sym;
}

// A statistic has one histogram shape; @hist_linear's bounds are literals.
void Resolver::histogram_of(AtOpExpr* a, Symbol* sym) {
  Symbol::Hist kind = a->op == At::HistLog ? Symbol::Hist::Log : Symbol::Hist::Linear;
  int64_t v[3] = {0, 0, 0};
  if (kind == Symbol::Hist::Linear) {
    for (int i = 0; i < 3; ++i) {
      Expr* arg = a->args[i + 1];
      bool neg = arg->kind == ExprKind::Unary && static_cast<UnaryExpr*>(arg)->op == Op::Neg;
      Expr* lit = neg ? static_cast<UnaryExpr*>(arg)->operand : arg;
      if (lit->kind != ExprKind::Number) {
        elab_.diags.report(DiagId::SemHistArgs, arg->loc, "its bounds and step must be number literals");
        return;
      }
      v[i] = neg ? -static_cast<NumberLit*>(lit)->value : static_cast<NumberLit*>(lit)->value;
    }
    if (v[2] <= 0 || v[1] <= v[0]) {
      elab_.diags.report(DiagId::SemHistArgs, a->loc, "it needs low < high and a positive step");
      return;
    }
    if ((v[1] - v[0]) / v[2] > 1024) {
      elab_.diags.report(DiagId::SemHistArgs, a->loc, "it would have more than 1024 buckets");
      return;
    }
  }
  if (sym->hist != Symbol::Hist::None &&
      (sym->hist != kind || sym->hist_lo != v[0] || sym->hist_hi != v[1] || sym->hist_step != v[2])) {
    elab_.diags.report(DiagId::SemHistArgs, a->loc, "a statistic has one histogram shape in a script");
    return;
  }
  sym->hist = kind;
  sym->hist_lo = v[0];
  sym->hist_hi = v[1];
  sym->hist_step = v[2];
  sym->hist_site = a->loc;
}

// @variance(s[, shift]): one literal shift (0..62) per statistic.
void Resolver::variance_of(AtOpExpr* a, Symbol* sym) {
  int64_t shift = 0;
  if (a->args.size() == 2) {
    if (a->args[1]->kind != ExprKind::Number || static_cast<NumberLit*>(a->args[1])->value < 0 ||
        static_cast<NumberLit*>(a->args[1])->value > 62) {
      elab_.diags.report(DiagId::SemHistArgs, a->args[1]->loc, "@variance's bit-shift is a number from 0 to 62");
      return;
    }
    shift = static_cast<NumberLit*>(a->args[1])->value;
  }
  if (sym->variance && sym->variance_shift != shift) {
    elab_.diags.report(DiagId::SemHistArgs, a->loc, "a statistic has one @variance bit-shift in a script");
    return;
  }
  sym->variance = true;
  sym->variance_shift = static_cast<int>(shift);
}

void Resolver::touch(Symbol* sym, Scope& sc, bool write) {
  if (!sym || sym->scope != Symbol::Scope::Global) return;
  (write ? sc.fn->global_writes : sc.fn->global_reads).push_back(sym->index);
}

void Resolver::mark_write(Expr* lvalue, Scope& sc, SourceLoc op) {
  VarRef* v = nullptr;
  if (lvalue->kind == ExprKind::Target) {
    mark_target_write(static_cast<TargetExpr*>(lvalue), op.valid() ? op : lvalue->loc);
    return;
  }
  if (lvalue->kind == ExprKind::Member) {
    mark_member_write(static_cast<MemberExpr*>(lvalue), op.valid() ? op : lvalue->loc);
    return;
  }
  if (lvalue->kind == ExprKind::AtOp) {
    auto* at = static_cast<AtOpExpr*>(lvalue);
    if (at->op == At::Cast || at->op == At::Var) {
      mark_at_write(at, op.valid() ? op : lvalue->loc);
      return;
    }
  }
  if (lvalue->kind == ExprKind::Var) v = static_cast<VarRef*>(lvalue);
  if (lvalue->kind == ExprKind::Index) v = static_cast<IndexExpr*>(lvalue)->array;
  if (!v) {
    elab_.diags.report(DiagId::SemNotLvalue, op.valid() ? op : lvalue->loc);
    return;
  }
  if (v->sym) {
    v->sym->assigned = true;
    touch(v->sym, sc, true);
    check_foreach_modification(v);
  }
}

void Resolver::check_foreach_modification(VarRef* v) {
  for (Symbol* a : foreach_arrays_)
    if (a == v->sym) elab_.diags.report(DiagId::SemForeachModify, v->loc, v->name);
}

void Resolver::resolve_expr(Expr* e, Scope& sc, bool) {
  Scope* outer = sc_;
  sc_ = &sc;
  visit(e);
  sc_ = outer;
}

void Resolver::visit_number(NumberLit*) {}
void Resolver::visit_string(StringLit*) {}

void Resolver::visit_target(TargetExpr* e) {
  Scope& sc = *sc_;
  // (In a process probe, a $var is the probed process's own memory, which
  // the probe only reaches in the user's processes.)
  if (!sc.probe || !elab_.user_decls.count(sc.decl)) note_kernel_memory(e, "a target variable", sc);
  bool store = assigning_;
  assigning_ = false;  // an index is read
  resolve_indices(e->components, sc);
  assigning_ = store;
  resolve_target_expr(e, sc);
}

// @perf("NAME"): the current thread's count of the perf counter declared
// as NAME (probe perf....counter("NAME") {}), a number.
void Resolver::resolve_perf(AtOpExpr* a) {
  a->type = Type::Long;
  if (a->args.size() != 1 || a->args[0]->kind != ExprKind::String) return;  // (pass 1 said so)
  const std::string name(static_cast<const StringLit*>(a->args[0])->value);
  int slot = 0;
  for (const ProbeSpec& spec : elab_.prog.probes) {
    if (spec.family != &perf_family()) continue;
    if (perf_counter_name(spec) == name) {
      elab_.prog.perf_reads[a] = slot;
      return;
    }
    ++slot;
  }
  elab_.diags.report(DiagId::SemPerfUnknown, a->args[0]->loc, name, name);
}

void Resolver::visit_at_op(AtOpExpr* a) {
  Scope& sc = *sc_;
  if (a->op == At::Cast || a->op == At::Var) {
    note_kernel_memory(a, "@" + a->name, sc);
    resolve_indices(a->components, sc);
  }
  if (a->op == At::Entry) {
    resolve_entry_expr(a, sc);
    return;
  }
  if (a->op == At::Defined) {
    resolve_defined(a, sc);
    return;
  }
  if (a->op == At::Perf) {
    resolve_perf(a);
    return;
  }
  if (a->op == At::Cast || a->op == At::Var) {
    bool address = taking_address_;
    taking_address_ = false;
    if (a->op == At::Cast && !a->args.empty()) resolve_expr(a->args[0], sc);
    bool user = false;
    if (debug::DebugInfo* di = cast_debuginfo(*a, elab_.diags, &user)) {
      std::optional<TargetAccess> access =
          a->op == At::Cast ? resolve_cast(*a, *di, elab_.diags, address, user)
                            : resolve_var(*a, *di, elab_.diags, address, user);
      if (access) {
        a->type = access->yields_string() ? Type::String : Type::Long;
        elab_.prog.targets[a] = std::move(*access);
      }
    }
    return;
  }
  if (is_histogram(a) && !printing_ && !is_bucket_read(a)) {
    elab_.diags.report(DiagId::SemHistOnlyPrinted, a->loc, a->name, a->name);
    return;
  }
  if (!is_stat_read(a) && !is_histogram(a)) {
    elab_.diags.report(DiagId::SemUnsupported, a->loc, "@" + a->name);
    return;
  }
  if (is_bucket_read(a))
    resolve_expr(a->components[0].index, sc);
  else if (!a->components.empty() || !a->pretty.empty())
    elab_.diags.report(DiagId::SemUnsupported, a->loc, "'->', '[' or '$' after @" + a->name);
  Expr* arg = a->args[0];
  if (arg->kind != ExprKind::Var && arg->kind != ExprKind::Index) {
    elab_.diags.report(DiagId::SemStatOperand, arg->loc, a->name);
    return;
  }
  resolve_expr(arg, sc);
  // Reading a statistic merges every CPU's part: exclusive access.
  VarRef* v = arg->kind == ExprKind::Var ? static_cast<VarRef*>(arg) : static_cast<IndexExpr*>(arg)->array;
  // A local here is reported by inference: it is not a statistic.
  touch(v->sym, sc, true);
  if (is_histogram(a) && v->sym) histogram_of(a, v->sym);
  if (a->op == At::Variance && v->sym) variance_of(a, v->sym);
}

// %{ CODE %} as a value (pass 1 admits it only with -g or in a tapset):
// a number, or a string with /* string */.
void Resolver::visit_embedded(EmbeddedExpr* e) { e->type = e->has_pragma("string") ? Type::String : Type::Long; }

// base->field... (autocast): resolved once every store has told what C
// type each variable holds (resolve_autocasts).
void Resolver::visit_member(MemberExpr* e) {
  Scope& sc = *sc_;
  note_kernel_memory(e, "'->'", sc);
  resolve_expr(e->base, sc);
  resolve_indices(e->components, sc);
  elab_.derefs.push_back({e, e, {}});
}

void Resolver::visit_wildcard(WildcardExpr* e) {
  elab_.diags.report(DiagId::SemUnsupported, e->loc, "a '*' array key");
}

void Resolver::visit_var(VarRef* v) {
  Scope& sc = *sc_;
  v->sym = lookup(v, sc, false);
  if (v->sym) {
    set_arity(v->sym, 0, v->loc);
    v->sym->used = true;
    touch(v->sym, sc, false);
  }
}

void Resolver::visit_index(IndexExpr* ix) {
  Scope& sc = *sc_;
  if (ix->keys.size() > kMaxKeys) elab_.diags.report(DiagId::SemTooManyKeys, ix->loc, kMaxKeys);
  ix->array->sym = lookup(ix->array, sc, true, static_cast<int>(ix->keys.size()));
  if (ix->array->sym) {
    set_arity(ix->array->sym, static_cast<int>(ix->keys.size()), ix->loc);
    ix->array->sym->used = true;
    touch(ix->array->sym, sc, false);
  }
  bool deleting = deleting_;  // delete a[*, k]: any first key
  deleting_ = false;
  bool reported = false;
  for (Expr* k : ix->keys) {
    if (k->kind != ExprKind::Wildcard)
      resolve_expr(k, sc);
    else if (!deleting && !reported) {  // a[*] reads no one value (stap says so at the array)
      elab_.diags.report(DiagId::SemWildcardIndex, ix->array->loc);
      reported = true;
    }
  }
}

void Resolver::visit_in_array(InArrayExpr* in) {
  Scope& sc = *sc_;
  in->array->sym = lookup(in->array, sc, true, static_cast<int>(in->keys.size()));
  if (in->array->sym) {
    set_arity(in->array->sym, static_cast<int>(in->keys.size()), in->array->loc);
    touch(in->array->sym, sc, false);
  }
  for (Expr* k : in->keys)
    if (k->kind != ExprKind::Wildcard) resolve_expr(k, sc);  // [*, k] in a: any first key
}

void Resolver::report_unknown_function(const CallExpr* c) {
  std::vector<std::string_view> names = builtin_names();
  if (elab_.library) {
    std::vector<std::string_view> lib = elab_.library->function_names();
    names.insert(names.end(), lib.begin(), lib.end());
  }
  for (const auto& [name, by_arity] : elab_.overloads) names.push_back(name);
  std::string similar = support::join(similar_names(names, c->name, 5));
  if (similar.empty())
    elab_.diags.report(DiagId::SemUnknownFunction, c->loc, c->name);
  else
    elab_.diags.report(DiagId::SemUnknownFunctionSimilar, c->loc, c->name, similar);
}

namespace {
// The calls in code that is dropped unresolved (if (0) ...).
struct DroppedCalls : Visitor<DroppedCalls, true> {
  std::vector<const CallExpr*> calls;
  void visit_call(const CallExpr* c) {
    calls.push_back(c);
    walk(c);
  }
};
}  // namespace

// if (0) {...} and the like are dropped before their target variables and
// types are looked at, as in stap; but as there, a call in them must name
// a function. Code that `cond` drops through @defined is not looked into.
void Resolver::drop_dead(const Node* dead, bool is_stmt, const Expr* cond) {
  if (!dead || constant_condition(cond) >= 0) return;
  DroppedCalls d;
  if (is_stmt)
    d.visit(static_cast<const Stmt*>(dead));
  else
    d.visit(static_cast<const Expr*>(dead));
  for (const CallExpr* c : d.calls)
    if (!find_builtin(c->name) && !elab_.overloads.count(c->name))
      report_unknown_function(c);
}

void Resolver::visit_call(CallExpr* c) {
  Scope& sc = *sc_;
  if (const BuiltinInfo* b = find_builtin(c->name)) {
    c->builtin = b->id;
    int n = static_cast<int>(c->args.size());
    if (n < b->min_args || (b->max_args >= 0 && n > b->max_args))
      elab_.diags.report(DiagId::SemArgCount, c->loc, c->name,
                    b->max_args == b->min_args ? std::to_string(b->min_args)
                                               : "at least " + std::to_string(b->min_args),
                    n);
  } else if (auto it = elab_.overloads.find(c->name); it != elab_.overloads.end() && !it->second.empty()) {
    // By argument count; a count no overload takes is reported against
    // the one with the most parameters.
    auto fit = it->second.find(c->args.size());
    c->fn = fit != it->second.end() ? fit->second : std::prev(it->second.end())->second;
    if (c->args.size() != c->fn->params.size())
      elab_.diags.report(DiagId::SemFnArity, c->loc, c->name, c->fn->params.size());
    // Tapset functions marked /* guru */ act on the kernel directly:
    // only guru mode, or other tapset code, may call them.
    if (!elab_.probe_ctx.guru && elab_.in_user_code(c->loc) && c->fn->has_pragma("guru"))
      elab_.diags.report(DiagId::SemFunctionNeedsGuru, c->loc);
    if (elab_.stapusr) check_unprivileged_call(c, sc.fn);
    sc.fn->callees.push_back(c->fn);
    if (!foreach_arrays_.empty()) elab_.foreach_calls.push_back({c, foreach_arrays_});
  } else {
    report_unknown_function(c);
  }
  // Histograms may only be printed: print(@hist_log(s)), or drawn into a
  // string: sprint(@hist_log(s)).
  for (Expr* a : c->args) {
    printing_ = c->builtin == Builtin::Print || c->builtin == Builtin::Println || c->builtin == Builtin::Sprint ||
                c->builtin == Builtin::Sprintln;
    resolve_expr(a, sc);
    printing_ = false;
  }
}

void Resolver::visit_unary(UnaryExpr* u) {
  Scope& sc = *sc_;
  if (u->op == Op::AddressOf && u->operand->kind == ExprKind::Target) {
    resolve_address_of(u, sc);
    return;
  }
  if (u->op == Op::AddressOf && u->operand->kind == ExprKind::Member) {
    resolve_expr(u->operand, sc);
    elab_.derefs.back().node = u;  // the operand's, pushed last
    return;
  }
  auto* at = u->operand->kind == ExprKind::AtOp ? static_cast<AtOpExpr*>(u->operand) : nullptr;
  if (u->op == Op::AddressOf && at && (at->op == At::Cast || at->op == At::Var)) {
    // &@cast(...)->field: the access resolved for its address moves to the '&'.
    taking_address_ = true;
    resolve_expr(u->operand, sc);
    taking_address_ = false;
    if (auto it = elab_.prog.targets.find(u->operand); it != elab_.prog.targets.end()) {
      elab_.prog.targets[u] = std::move(it->second);
      elab_.prog.targets.erase(it);
      u->type = u->operand->type = Type::Long;
    }
    return;
  }
  resolve_expr(u->operand, sc);
  if (u->op == Op::PreInc || u->op == Op::PreDec || u->op == Op::PostInc || u->op == Op::PostDec)
    mark_write(u->operand, sc);
}

void Resolver::visit_binary(BinaryExpr* b) {
  Scope& sc = *sc_;
  resolve_expr(b->lhs, sc);
  // @defined($x) && $x->y: a constant left side that decides alone
  // drops the right side unresolved (it may name what does not exist).
  if (b->op == Op::LogAnd || b->op == Op::LogOr) {
    int known = constant_condition(b->lhs, true);
    if (known == (b->op == Op::LogAnd ? 0 : 1)) {
      drop_dead(b->rhs, false, b->lhs);
      b->rhs = b->lhs;
      return;
    }
  }
  resolve_expr(b->rhs, sc);
}

void Resolver::visit_ternary(TernaryExpr* t) {
  Scope& sc = *sc_;
  resolve_expr(t->cond, sc);
  // @defined($x) ? $x : 0: the branch a constant condition never takes
  // is dropped unresolved (it may name what does not exist).
  int known = constant_condition(t->cond);
  if (known == 0) t->then = t->els;
  if (known == 1) t->els = t->then;
  resolve_expr(t->then, sc);
  if (t->els != t->then) resolve_expr(t->els, sc);
}

void Resolver::visit_assign(AssignExpr* a) {
  Scope& sc = *sc_;
  resolve_expr(a->rhs, sc);
  if (a->op == Op::AggregateInto) {
    // "<<<" adds to this CPU's part of a statistic: shared access. Into a
    // local it is a store, not a read: stap elides it when nothing reads
    // the local, and refuses the local where something does (check_types).
    if (a->lhs->kind == ExprKind::Var) {
      auto* v = static_cast<VarRef*>(a->lhs);
      v->sym = lookup(v, sc, false);
      if (v->sym && v->sym->scope != Symbol::Scope::Global) {
        set_arity(v->sym, 0, v->loc);
        v->sym->assigned = true;
        return;
      }
    }
    resolve_expr(a->lhs, sc);
    VarRef* v = a->lhs->kind == ExprKind::Var     ? static_cast<VarRef*>(a->lhs)
                : a->lhs->kind == ExprKind::Index ? static_cast<IndexExpr*>(a->lhs)->array
                                                  : nullptr;
    if (!v)
      elab_.diags.report(DiagId::SemNotLvalue, a->op_loc);  // at the '<<<', as stap
    else if (v->sym && v->sym->scope != Symbol::Scope::Global)
      elab_.diags.report(DiagId::SemStatLocal, v->loc);
    else if (v->sym) {
      v->sym->assigned = true;
      if (sc.fn) sc.fn->global_adds.push_back(v->sym->index);
      check_foreach_modification(v);
    }
    return;
  }
  if (a->op == Op::Assign && a->lhs->kind == ExprKind::Var) {
    // A plain store does not read its target.
    auto* v = static_cast<VarRef*>(a->lhs);
    v->sym = lookup(v, sc, false);
    if (v->sym) {
      set_arity(v->sym, 0, v->loc);
      elab_.stores.push_back({v->sym, a->rhs});  // it may carry a C type
    }
  } else {
    assigning_ = a->lhs->kind == ExprKind::Target;  // $value .= s stores, and reads only what it stored
    resolve_expr(a->lhs, sc);
    assigning_ = false;
  }
  mark_write(a->lhs, sc, a->op_loc);
}

void Resolver::resolve_stmt(Stmt* s, Scope& sc) {
  Scope* outer = sc_;
  sc_ = &sc;
  visit(s);
  sc_ = outer;
}

void Resolver::visit_block(BlockStmt* b) {
  for (Stmt* st : b->stmts) visit(st);
}

void Resolver::visit_expr_stmt(ExprStmt* s) { resolve_expr(s->expr, *sc_); }

void Resolver::visit_if(IfStmt* i) {
  Scope& sc = *sc_;
  bool guard = i->cond->kind == ExprKind::Unary && elab_.conditions.count(static_cast<UnaryExpr*>(i->cond)->operand);
  in_condition_ = guard;
  resolve_expr(i->cond, sc);
  in_condition_ = false;
  int known = constant_condition(i->cond, true);
  if (known == 0) {
    drop_dead(i->then, true, i->cond);
    i->then = elab_.arena.make<BlockStmt>(i->then->loc);
  }
  if (known == 1) {
    drop_dead(i->els, true, i->cond);
    i->els = nullptr;
  }
  resolve_stmt(i->then, sc);
  if (i->els) resolve_stmt(i->els, sc);
}

void Resolver::visit_while(WhileStmt* w) {
  Scope& sc = *sc_;
  resolve_expr(w->cond, sc);
  if (constant_condition(w->cond, true) == 0) {  // while (0)
    drop_dead(w->body, true, w->cond);
    w->body = elab_.arena.make<BlockStmt>(w->body->loc);
  }
  ++sc.loop_depth;
  resolve_stmt(w->body, sc);
  --sc.loop_depth;
}

void Resolver::visit_for(ForStmt* f) {
  Scope& sc = *sc_;
  if (f->init) resolve_expr(f->init, sc);
  if (f->cond) resolve_expr(f->cond, sc);
  if (f->incr) resolve_expr(f->incr, sc);
  ++sc.loop_depth;
  resolve_stmt(f->body, sc);
  --sc.loop_depth;
}

void Resolver::visit_foreach(ForeachStmt* f) {
  Scope& sc = *sc_;
  if (f->histogram) {
    // foreach ([v =] b in @hist_log(s)): b runs over the bucket indices,
    // v is the bucket's count.
    auto* h = f->histogram->kind == ExprKind::AtOp ? static_cast<AtOpExpr*>(f->histogram) : nullptr;
    if (!h || !is_histogram(h) || !h->components.empty() || f->keys.size() != 1 || !f->aggregate.empty() ||
        f->sort_column < 0) {
      elab_.diags.report(DiagId::SemUnsupported, f->histogram->loc,
                    "this form of foreach over a histogram (use foreach (b in @hist_log(s)))");
      return;
    }
    printing_ = true;  // a whole histogram may stand here
    resolve_expr(h, sc);
    printing_ = false;
    for (VarRef* k : {f->keys[0], f->value}) {
      if (!k) continue;
      k->sym = lookup(k, sc, false);
      if (k->sym) {
        set_arity(k->sym, 0, k->loc);
        k->sym->assigned = true;
        touch(k->sym, sc, true);
      }
    }
    if (f->limit) resolve_expr(f->limit, sc);
    ++sc.loop_depth;
    resolve_stmt(f->body, sc);
    --sc.loop_depth;
    return;
  }
  f->array->sym = lookup(f->array, sc, true, static_cast<int>(f->keys.size()));
  if (f->array->sym) {
    set_arity(f->array->sym, static_cast<int>(f->keys.size()), f->array->loc);
    // "in a[k, *]": only the entries whose keys match; '*' matches any.
    if (!f->slice.empty()) set_arity(f->array->sym, static_cast<int>(f->slice.size()), f->array->loc);
    f->array->sym->used = true;
    // Exclusive: a statistics array is merged into a shared view first.
    touch(f->array->sym, sc, true);
  }
  auto bind = [&](VarRef* v) {
    v->sym = lookup(v, sc, false);
    if (!v->sym) return;
    set_arity(v->sym, 0, v->loc);
    v->sym->assigned = true;
    touch(v->sym, sc, true);
  };
  for (VarRef* k : f->keys) bind(k);
  if (f->value) bind(f->value);
  for (Expr* k : f->slice)
    if (k->kind != ExprKind::Wildcard) resolve_expr(k, sc);
  if (f->limit) resolve_expr(f->limit, sc);
  if (sc.fn && sc.fn->name.size() && f->array->sym) elab_.foreach_in_functions.insert(sc.fn);
  foreach_arrays_.push_back(f->array->sym);
  ++sc.loop_depth;
  resolve_stmt(f->body, sc);
  --sc.loop_depth;
  foreach_arrays_.pop_back();
}

void Resolver::visit_try(TryStmt* t) {
  Scope& sc = *sc_;
  resolve_stmt(t->body, sc);
  if (t->var) {
    t->var->sym = lookup(t->var, sc, false);
    if (t->var->sym) {
      set_arity(t->var->sym, 0, t->var->loc);
      t->var->sym->assigned = true;
      touch(t->var->sym, sc, true);
    }
  }
  resolve_stmt(t->handler, sc);
}

void Resolver::visit_next(SimpleStmt* s) {
  Scope& sc = *sc_;
  if (!sc.probe) elab_.diags.report(DiagId::SemJumpOutside, s->loc, "next", "a probe handler");
}

void Resolver::visit_break(SimpleStmt* s) {
  if (sc_->loop_depth == 0) elab_.diags.report(DiagId::SemJumpOutside, s->loc, "break", "a loop");
}

void Resolver::visit_continue(SimpleStmt* s) {
  if (sc_->loop_depth == 0) elab_.diags.report(DiagId::SemJumpOutside, s->loc, "continue", "a loop");
}

void Resolver::visit_return(ReturnStmt* r) {
  Scope& sc = *sc_;
  if (sc.probe) elab_.diags.report(DiagId::SemJumpOutside, r->loc, "return", "a function");
  if (r->value) resolve_expr(r->value, sc);
}

void Resolver::visit_delete(DeleteStmt* d) {
  Scope& sc = *sc_;
  if (d->target->kind == ExprKind::Var) {
    // "delete a" clears a whole array or resets a scalar.
    auto* v = static_cast<VarRef*>(d->target);
    v->sym = lookup(v, sc, false);
    if (v->sym) v->sym->assigned = true;
    touch(v->sym, sc, true);
    if (v->sym) check_foreach_modification(v);
  } else if (d->target->kind == ExprKind::Index) {
    deleting_ = true;
    resolve_expr(d->target, sc);
    deleting_ = false;
    mark_write(d->target, sc);
  } else {
    elab_.diags.report(DiagId::SemDeleteOperand, d->target->loc);
  }
}

void Resolver::visit_null(SimpleStmt*) {}

void Resolver::run() {
  // Function parameters are symbols before any body is resolved, so that
  // calls can unify argument types with them.
  for (auto& [name, f] : elab_.functions) {
    for (const Param& p : f->params) {
      Symbol* sym = elab_.new_symbol(p.name, Symbol::Scope::Param, p.loc);
      sym->arity = 0;
      sym->assigned = true;
      sym->index = static_cast<int>(f->locals.size());
      if (p.declared != Type::Unknown) {
        sym->type = p.declared;
        sym->type_site = p.loc;
        sym->fixed_type = true;
      }
      f->param_syms.push_back(sym);
      f->locals.push_back(sym);
    }
    if (f->declared != Type::Unknown) {
      f->type = f->declared;
      f->type_site = f->loc;
    } else if (f->is_embedded) {
      f->type = Type::Void;  // embedded C returns a value only if it says so
    }
    elab_.prog.functions.push_back(f);
  }
  // Probe bodies first, then functions: stap's order, so that a conflict
  // (an array's arity) is reported where stap reports it.
  for (Script* script : elab_.prog.scripts) {
    for (ProbeDecl* p : script->probes) {
      // Accesses are recorded through a pseudo-function standing for the body.
      auto& pseudo = elab_.pseudo_fns.emplace_back();
      elab_.probe_bodies[p] = &pseudo;
      Scope sc{{}, &p->locals, &pseudo};
      sc.probe = true;
      sc.decl = p;
      resolve_stmt(p->body, sc);
    }
  }
  // Then the functions the probes reach: as in stap (with -u too), one
  // nothing calls is not looked into, and so is no error. (Listing the
  // library's functions resolves them all.)
  std::set<const FunctionDecl*> reached, resolved;
  for (const ast::FunctionDecl& body : elab_.pseudo_fns) reached.insert(body.callees.begin(), body.callees.end());
  for (bool more = true; more;) {
    more = false;
    for (FunctionDecl* f : elab_.prog.functions) {
      if ((!elab_.opts.every_function && !reached.count(f)) || !resolved.insert(f).second) continue;
      Scope sc{{}, &f->locals, f};
      for (Symbol* p : f->param_syms) sc.names[p->name] = p;
      resolve_stmt(f->body, sc);
      reached.insert(f->callees.begin(), f->callees.end());
      more = true;
    }
  }
  std::erase_if(elab_.prog.functions, [&](const FunctionDecl* f) { return !resolved.count(f); });
}

void resolve_names(Elaboration& elab) { Resolver(elab).run(); }

}  // namespace stapx::elab
