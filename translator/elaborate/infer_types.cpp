// Type inference: types flow between expressions, symbols and functions
// to a fixpoint across every probe and function (stap's rule: a use that
// disagrees is reported at the use, with where the type came from).
#include "translator/elaborate/elaboration.h"

#include <algorithm>
#include <span>
#include <string>

#include "frontend/ast_visitor.h"
#include "frontend/format.h"
#include "translator/builtins/builtins.h"

namespace stapx::elab {

using namespace ast;

namespace {

// infer(e) gives e's type and records it on e; visit_X does the work for
// one kind of node, typing its children through infer() and unify().
// Statements are typed for the function whose body they are in (fn_, null
// in a probe).
class TypeInference : public Visitor<TypeInference, false, Type, void> {
 public:
  static constexpr bool kEveryNode = true;

  explicit TypeInference(Elaboration& elab) : elab_(elab) {}
  void infer_all();

  Type visit_number(NumberLit*) { return Type::Long; }
  Type visit_string(StringLit*) { return Type::String; }
  Type visit_var(VarRef* v) { return v->sym ? v->sym->type : Type::Unknown; }
  Type visit_index(IndexExpr* ix);
  Type visit_call(CallExpr* c);
  Type visit_unary(UnaryExpr* u);
  Type visit_binary(BinaryExpr* b);
  bool invalid_operator(const Expr* e, Type want);
  Type visit_ternary(TernaryExpr* te);
  Type visit_assign(AssignExpr* a);
  Type visit_in_array(InArrayExpr* in);
  Type visit_target(TargetExpr* t) {
    infer_indices(t->components);
    return t->type;  // set when resolved; Unknown after an error
  }
  Type visit_at_op(AtOpExpr* a);
  Type visit_embedded(EmbeddedExpr* e) { return e->type; }  // set when resolved
  Type visit_member(MemberExpr* m) {
    infer_long(m->base);  // a pointer
    infer_indices(m->components);
    return m->type;  // set when resolved; Unknown after an error
  }
  // Reported during resolution.
  Type visit_wildcard(WildcardExpr*) { return Type::Unknown; }

  void visit_block(BlockStmt* b) {
    for (Stmt* st : b->stmts) visit(st);
  }
  void visit_expr_stmt(ExprStmt* s) { infer(s->expr); }
  void visit_if(IfStmt* i);
  void visit_while(WhileStmt* w);
  void visit_for(ForStmt* f);
  void visit_foreach(ForeachStmt* f);
  void visit_return(ReturnStmt* r);
  void visit_delete(DeleteStmt* d) {
    if (d->target->kind == ExprKind::Index) infer(d->target);
  }
  void visit_try(TryStmt* t);
  void visit_next(SimpleStmt*) {}
  void visit_break(SimpleStmt*) {}
  void visit_continue(SimpleStmt*) {}
  void visit_null(SimpleStmt*) {}

 private:
  Type infer(Expr* e);
  Type infer_keys(Symbol* sym, List<Expr*>& keys);
  void infer_long(Expr* e);
  void infer_indices(std::span<TargetComponent> components);
  void unify(Expr* e, Type t);
  void unify_symbol(Symbol* sym, Type t, SourceLoc site);
  void unify_key(Symbol* sym, size_t i, Type t, SourceLoc site);
  void compile_regex(const BinaryExpr* b);
  Elaboration& elab_;
  FunctionDecl* fn_ = nullptr;  // whose body is being typed
  bool changed_ = false;        // this round typed something new
};

}  // namespace

// A reference at `site` needs `sym` to be of type t. Like stap, a conflict
// names the type this use wants, and where the symbol got its type; a type
// fixed by a declaration or initializer reads "expected X but found Y".
void TypeInference::unify_symbol(Symbol* sym, Type t, SourceLoc site) {
  if (t == Type::Unknown || !sym) return;
  if (sym->type == Type::Unknown) {
    sym->type = t;
    sym->type_site = site;
    changed_ = true;
  } else if (sym->type != t && elab_.reported.insert(sym).second) {
    if (sym->fixed_type) {
      elab_.diags.report(DiagId::SemTypeExpected, site, type_name(t), type_name(sym->type));
    } else {
      elab_.diags.report(DiagId::SemTypeMismatch, site, type_name(t));
      elab_.diags.report(DiagId::SemTypeMismatchHere, sym->type_site, type_name(sym->type));
    }
  }
}

void TypeInference::unify_key(Symbol* sym, size_t i, Type t, SourceLoc site) {
  if (!sym || t == Type::Unknown || i >= sym->key_types.size()) return;
  Type& k = sym->key_types[i];
  if (k == Type::Unknown) {
    k = t;
    sym->key_sites[i] = site;
    changed_ = true;
  } else if (k != t && elab_.reported.insert(sym->key_sites.data() + i).second) {
    elab_.diags.report(DiagId::SemKeyTypeMismatch, site, i, type_name(t));
    elab_.diags.report(DiagId::SemTypeMismatchHere, sym->key_sites[i], type_name(k));
  }
}

// Pushes an expected type t down into e: symbols and functions whose type
// is still unknown take it; a conflict is reported at e (see unify_symbol).
void TypeInference::unify(Expr* e, Type t) {
  if (t == Type::Unknown) return;
  switch (e->kind) {
    case ExprKind::Var:
      unify_symbol(static_cast<VarRef*>(e)->sym, t, e->loc);
      return;
    case ExprKind::Index:
      unify_symbol(static_cast<IndexExpr*>(e)->array->sym, t, e->loc);
      return;
    case ExprKind::Call: {
      auto* c = static_cast<CallExpr*>(e);
      if (!c->fn) break;
      if (c->fn->type == Type::Unknown) {
        c->fn->type = t;
        c->fn->type_site = e->loc;
        changed_ = true;
      } else if (c->fn->type != t && c->fn->type != Type::Void && elab_.reported.insert(c->fn).second) {
        if (c->fn->declared != Type::Unknown) {
          elab_.diags.report(DiagId::SemTypeExpected, e->loc, type_name(t), type_name(c->fn->type));
        } else {
          elab_.diags.report(DiagId::SemTypeMismatch, e->loc, type_name(t));
          elab_.diags.report(DiagId::SemTypeMismatchHere, c->fn->type_site, type_name(c->fn->type));
        }
      }
      return;
    }
    case ExprKind::Ternary:
      unify(static_cast<TernaryExpr*>(e)->then, t);
      unify(static_cast<TernaryExpr*>(e)->els, t);
      return;
    case ExprKind::Assign: {
      auto* a = static_cast<AssignExpr*>(e);
      if (a->op == Op::AggregateInto) break;  // s <<< v is the number v, whatever s is
      unify(a->lhs, t);
      unify(a->rhs, t);
      return;
    }
    case ExprKind::AtOp: {
      // @entry(expr) has the type of expr.
      auto* a = static_cast<AtOpExpr*>(e);
      if (a->op == At::Entry && a->args.size() == 1 && a->args[0]->kind != ExprKind::Target) {
        unify(a->args[0], t);
        return;
      }
      break;
    }
    case ExprKind::Number:
    case ExprKind::String:
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::InArray:
    case ExprKind::Target:
    case ExprKind::Embedded:
    case ExprKind::Member:
    case ExprKind::Wildcard:
      break;
  }
  // Every caller has just inferred e, and these kinds' types do not depend
  // on any symbol's: inferring e again would only walk its subtree again
  // (twice per level of a chain like a + b + c + ..., exponential).
  Type have = e->type;
  if (have != Type::Unknown && have != Type::Void && have != t && elab_.reported.insert(e).second)
    elab_.diags.report(DiagId::SemTypeExpected, type_error_site(e), type_name(t), type_name(have));
}

// Compiles the pattern of `=~`/`!~` into the program's DFAs once per
// pattern; a bad one is reported at its string (once per site).
void TypeInference::compile_regex(const BinaryExpr* b) {
  const std::string pattern = static_cast<const StringLit*>(b->rhs)->value.str();
  if (elab_.prog.regexes.count(pattern)) return;
  regex::Dfa dfa;
  if (auto err = regex::compile(pattern, dfa)) {
    if (elab_.reported.insert(b).second) elab_.diags.report(DiagId::SemRegex, b->rhs->loc, err->describe());
    return;
  }
  elab_.prog.regexes.emplace(pattern, std::move(dfa));
  elab_.regex_sites.emplace(pattern, b);
}

void TypeInference::infer_indices(std::span<TargetComponent> components) {
  for (TargetComponent& c : components)
    if (c.index && c.index->kind != ExprKind::Number) infer_long(c.index);
}

Type TypeInference::infer(Expr* e) {
  Type t = visit(e);
  if (t == Type::Void && e->type != Type::Void) changed_ = true;
  e->type = t;
  return t;
}

// infer(e), which must be a number.
void TypeInference::infer_long(Expr* e) {
  infer(e);
  unify(e, Type::Long);
}

// The keys of an index into sym (an array): each types sym's key, or takes
// the key's type when it has none of its own.
Type TypeInference::infer_keys(Symbol* sym, List<Expr*>& keys) {
  for (size_t i = 0; i < keys.size(); ++i) {
    Type kt = infer(keys[i]);
    unify_key(sym, i, kt, keys[i]->loc);
    if (sym && i < sym->key_types.size() && kt == Type::Unknown) unify(keys[i], sym->key_types[i]);
  }
  return sym ? sym->type : Type::Unknown;
}

Type TypeInference::visit_at_op(AtOpExpr* a) {
  if (a->op == At::Entry && !a->args.empty() && a->args[0]->kind != ExprKind::Target)
    return infer(a->args[0]);  // a number or a string, saved at entry
  if (a->op == At::Entry || a->op == At::Defined || a->op == At::Perf) return a->type;  // set when resolved
  if (a->op == At::Cast) {
    if (!a->args.empty()) infer_long(a->args[0]);
    infer_indices(a->components);
    return a->type;
  }
  if (a->op == At::Var) {
    infer_indices(a->components);
    return a->type;
  }
  if (!is_stat_read(a) && !is_histogram(a)) return Type::Unknown;  // reported as unsupported during resolution
  infer(a->args[0]);
  unify(a->args[0], Type::Stats);
  // A histogram is printed, or one bucket of it read.
  if (!is_bucket_read(a)) return is_histogram(a) ? Type::Void : Type::Long;
  infer_long(a->components[0].index);
  return Type::Long;
}

Type TypeInference::visit_index(IndexExpr* ix) { return infer_keys(ix->array->sym, ix->keys); }

Type TypeInference::visit_in_array(InArrayExpr* in) {
  infer_keys(in->array->sym, in->keys);
  return Type::Long;
}

Type TypeInference::visit_call(CallExpr* c) {
  if (c->builtin != Builtin::None) {
    std::vector<Type> types;
    for (Expr* a : c->args) types.push_back(infer(a));
    // The format, or the delimiter, is a string.
    if (c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf || c->builtin == Builtin::Printd ||
        c->builtin == Builtin::Printdln || c->builtin == Builtin::Sprintd || c->builtin == Builtin::Sprintdln) {
      if (!c->args.empty()) unify(c->args[0], Type::String);
    }
    // An argument nothing else types takes its conversion's type, as in
    // stap: printf("%s %d", k, n) makes k a string and n a long (a global
    // that is only printed, foreach ([k, n] in never_assigned)).
    if ((c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf) && !c->args.empty() &&
        c->args[0]->kind == ExprKind::String) {
      ParsedFormat f = parse_format(std::string(static_cast<const StringLit*>(c->args[0])->value.view()));
      for (size_t i = 0; f.error.empty() && i < f.conversions.size() && i + 1 < c->args.size(); ++i)
        if (types[i + 1] == Type::Unknown) unify(c->args[i + 1], f.conversions[i].type);
    }
    return find_builtin(c->name)->result;
  }
  if (!c->fn) return Type::Unknown;
  for (size_t i = 0; i < c->args.size() && i < c->fn->param_syms.size(); ++i) {
    Symbol* p = c->fn->param_syms[i];
    unify_symbol(p, infer(c->args[i]), c->args[i]->loc);
    unify(c->args[i], p->type);
  }
  return c->fn->type;
}

Type TypeInference::visit_unary(UnaryExpr* u) {
  infer_long(u->operand);
  return Type::Long;
}

// What an operator expression `e` yields whatever its operands (a string
// for '.', a number for the others); Unknown if e is no such expression.
Type operator_yields(const Expr* e) {
  if (e->kind == ExprKind::Unary) return Type::Long;
  if (e->kind != ExprKind::Binary) return Type::Unknown;
  return static_cast<const BinaryExpr*>(e)->op == Op::Concat ? Type::String : Type::Long;
}

// stap's "invalid operator": an operator expression `e` whose context
// wants what its operator cannot yield (a '.' operand of arithmetic, a
// comparison returned from a string function), reported at the operator
// before anything else about e. True if reported.
bool TypeInference::invalid_operator(const Expr* e, Type want) {
  Type yields = operator_yields(e);
  if (yields == Type::Unknown || want == Type::Unknown || want == Type::Void || want == yields ||
      !elab_.reported.insert(e).second)
    return false;
  elab_.diags.report(DiagId::SemInvalidOperator, type_error_site(e));
  return true;
}

Type TypeInference::visit_binary(BinaryExpr* b) {
  Type l = infer(b->lhs), r = infer(b->rhs);
  switch (b->op) {
    case Op::Concat:
      unify(b->lhs, Type::String);
      unify(b->rhs, Type::String);
      return Type::String;
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      if (r != Type::Unknown) l = r;  // stap checks the left against the right
      if (b->lhs->kind == ExprKind::Binary) invalid_operator(b->lhs, l);
      unify(b->lhs, l);
      unify(b->rhs, l);
      return Type::Long;
    case Op::RegexMatch:
    case Op::RegexNoMatch:
      unify(b->lhs, Type::String);
      compile_regex(b);
      return Type::Long;
    default:
      for (Expr* operand : {b->lhs, b->rhs})
        if (operand->kind == ExprKind::Binary) invalid_operator(operand, Type::Long);
      unify(b->lhs, Type::Long);
      unify(b->rhs, Type::Long);
      return Type::Long;
  }
}

Type TypeInference::visit_ternary(TernaryExpr* te) {
  infer_long(te->cond);
  Type a = infer(te->then), b = infer(te->els);
  Type t = a != Type::Unknown ? a : b;
  unify(te->then, t);
  unify(te->els, t);
  return t;
}

Type TypeInference::visit_assign(AssignExpr* a) {
  Type r = infer(a->rhs), l = infer(a->lhs);
  if (a->op == Op::AggregateInto) {
    unify(a->lhs, Type::Stats);
    unify(a->rhs, Type::Long);
    return Type::Long;
  }
  Type t;
  if (a->op == Op::Assign) {
    // A statistic is not a value: it does not type what it is assigned to.
    t = l != Type::Unknown ? l : r == Type::Stats ? Type::Unknown : r;
    const Symbol* target = a->lhs->kind == ExprKind::Var     ? static_cast<VarRef*>(a->lhs)->sym
                           : a->lhs->kind == ExprKind::Index ? static_cast<IndexExpr*>(a->lhs)->array->sym
                                                             : nullptr;
    if (l != Type::Unknown && r != Type::Unknown && l != r && target && r != Type::Void && r != Type::Stats &&
        elab_.reported.insert(a->rhs).second) {
      elab_.reported.insert(target);
      if (target->fixed_type) {
        elab_.diags.report(DiagId::SemTypeExpected, a->lhs->loc, type_name(r), type_name(l));
      } else {
        elab_.diags.report(DiagId::SemTypeMismatch, a->lhs->loc, type_name(r));
        elab_.diags.report(DiagId::SemTypeMismatchHere, target->type_site, type_name(l));
      }
    }
  } else {
    t = a->op == Op::Concat ? Type::String : Type::Long;
  }
  unify(a->lhs, t);
  unify(a->rhs, t);
  return t;
}

void TypeInference::visit_if(IfStmt* i) {
  infer_long(i->cond);
  visit(i->then);
  visit(i->els);
}

void TypeInference::visit_while(WhileStmt* w) {
  infer_long(w->cond);
  visit(w->body);
}

void TypeInference::visit_for(ForStmt* f) {
  if (f->init) infer(f->init);
  if (f->cond) infer_long(f->cond);
  if (f->incr) infer(f->incr);
  visit(f->body);
}

void TypeInference::visit_return(ReturnStmt* r) {
  FunctionDecl* fn = fn_;
  if (!fn || !r->value) return;
  // An operator that cannot yield the function's type is named first, as
  // stap gives the value its function's type before looking inside.
  bool invalid = invalid_operator(r->value, fn->type);
  Type t = infer(r->value);
  if (fn->type == Type::Unknown && t != Type::Unknown) {
    fn->type = t;
    fn->type_site = r->value->loc;
    changed_ = true;
  } else if (t != Type::Unknown && t != fn->type && fn->type != Type::Void &&
             (invalid || elab_.reported.insert(r->value).second)) {
    // The function's type is the symbol in conflict: name this value's type.
    elab_.reported.insert(fn);
    if (fn->declared != Type::Unknown) {
      elab_.diags.report(DiagId::SemTypeExpected, invalid ? type_error_site(r->value) : r->value->loc, type_name(t),
                         type_name(fn->type));
    } else {
      elab_.diags.report(DiagId::SemTypeMismatch, r->value->loc, type_name(t));
      elab_.diags.report(DiagId::SemTypeMismatchHere, fn->type_site, type_name(fn->type));
    }
  }
  unify(r->value, fn->type);
}

void TypeInference::visit_try(TryStmt* t) {
  visit(static_cast<Stmt*>(t->body));
  if (t->var && t->var->sym) unify_symbol(t->var->sym, Type::String, t->var->loc);
  visit(static_cast<Stmt*>(t->handler));
}

void TypeInference::visit_foreach(ForeachStmt* f) {
  if (f->histogram) {
    infer(f->histogram);
    if (!f->keys.empty() && f->keys[0]->sym) unify_symbol(f->keys[0]->sym, Type::Long, f->keys[0]->loc);
    if (f->value && f->value->sym) unify_symbol(f->value->sym, Type::Long, f->value->loc);
    if (f->limit) infer_long(f->limit);
    visit(f->body);
    return;
  }
  Symbol* a = f->array ? f->array->sym : nullptr;
  if (!a) return;
  for (size_t i = 0; i < f->keys.size() && i < a->key_types.size(); ++i) {
    Symbol* k = f->keys[i]->sym;
    if (!k) continue;
    unify_key(a, i, k->type, f->keys[i]->loc);
    unify_symbol(k, a->key_types[i], f->keys[i]->loc);
  }
  if (!f->aggregate.empty()) unify_symbol(a, Type::Stats, f->loc);
  infer_keys(a, f->slice);  // a '*' has no type, and takes none
  if (f->limit) infer_long(f->limit);
  visit(f->body);
  // stap binds the value variable after typing the body.
  if (f->value && f->value->sym) {
    unify_symbol(f->value->sym, a->type, f->value->loc);
    unify_symbol(a, f->value->sym->type, f->value->loc);
  }
}

void TypeInference::infer_all() {
  for (int round = 0; round < 100; ++round) {
    changed_ = false;
    // Probe conditions first: stap types them before any body.
    for (const Expr* c : elab_.conditions) {
      infer(const_cast<Expr*>(c));
      unify(const_cast<Expr*>(c), Type::Long);
    }
    for (FunctionDecl* f : elab_.prog.functions) {
      fn_ = f;
      visit(f->body);
    }
    fn_ = nullptr;
    for (Script* script : elab_.prog.scripts)
      for (ProbeDecl* p : script->probes) visit(p->body);
    if (!changed_) break;
  }
}

void infer_types(Elaboration& elab) { TypeInference(elab).infer_all(); }

// A script that reads sub-matches needs each pattern's sub-match program,
// which has a tighter bound than the DFA (memory per CPU).
void compile_submatches(Elaboration& elab) {
  elab.prog.submatch = std::any_of(elab.prog.functions.begin(), elab.prog.functions.end(), [](const FunctionDecl* f) {
    return f->is_embedded && f->embedded_code.find("pragma:submatch") != std::string::npos;
  });
  if (!elab.prog.submatch) return;
  for (const auto& [pattern, site] : elab.regex_sites) {
    regex::Prog p;
    if (auto err = regex::compile_submatch(pattern, p))
      elab.diags.report(DiagId::SemRegex, site->rhs->loc, err->describe());
    else
      elab.prog.submatch_progs.emplace(pattern, std::move(p));
  }
}

}  // namespace stapx::elab
