// Pass 2. Order of work (each step needs the previous one):
//   1. collect globals and functions (duplicates are errors);
//   2. resolve probe points through the probe families;
//   3. resolve names in every body: globals, then params, else a new local
//      of the enclosing probe or function (stap's rule);
//   4. infer types to a fixpoint across probes, functions and globals;
//   5. check what inference could not settle, and compute each probe's
//      transitive global reads/writes (for the runtime's locks).
#include "translator/elaborate/elaborate.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <ostream>
#include <set>


#include "frontend/ast_clone.h"
#include "frontend/ast_visitor.h"
#include "support/glob.h"
#include "support/strings.h"
#include "translator/builtins/builtins.h"
#include "translator/builtins/format.h"
#include "translator/elaborate/tapsets.h"
#include "translator/probes/probe_env.h"
#include "translator/similar.h"

namespace stapx {

using namespace ast;

namespace {

constexpr int kMaxKeys = 9;

// stap's user-space stack and symbol functions (tapset::ucontext-unwind,
// ucontext-symbols): stapx walks and names kernel stacks only, so these
// are reported as not implemented rather than as unknown functions.
bool is_user_stack_function(std::string_view name) {
  static const std::set<std::string, std::less<>> names = {
      "ubacktrace",   "print_ubacktrace", "print_ubacktrace_brief", "print_ubacktrace_fileline",
      "sprint_ubacktrace", "ucallers",    "print_ustack",           "sprint_ustack",
      "print_usyms",  "sprint_usyms",     "usymname",               "usymdata",
      "umodname",     "uaddr",            "usymfile",               "usymline",
      "usymfileline"};
  return names.count(name) != 0;
}

class Elaborator {
 public:
  Elaborator(Program& prog, Arena& arena, DiagSink& diags) : prog_(prog), arena_(arena), diags_(diags) {}

  void run(const ElaborateOptions& opts);

 private:
  // --- step 1 ---
  void collect();
  // --- step 2 ---
  void expand_aliases();
  void expand_probe(ProbeDecl* p, std::vector<ProbeDecl*>& out, int depth);
  void resolve_probes();
  std::vector<std::string> similar_components(const ProbePoint& point) const;
  ProbeContext probe_ctx_;
  void lower_conditions();
  std::set<const Expr*> conditions_;
  std::set<const Symbol*> referenced_;  // globals some body names
  void drop_unreferenced_globals();
  void elide_dead_code();
  void apply_global_values(const std::vector<std::pair<std::string, std::string>>& values);  // the guards lower_conditions() made
  bool in_condition_ = false;
  // --- step 3 ---
  struct Scope {
    std::map<std::string, Symbol*, std::less<>> names;
    std::vector<Symbol*>* locals;
    FunctionDecl* fn;  // the function, or the probe body's pseudo-function
    ProbeDecl* decl = nullptr;  // the probe whose body this is
    int loop_depth = 0;
    bool probe = false;
  };
  Symbol* new_symbol(std::string_view name, Symbol::Scope scope, SourceLoc loc);
  void resolve_stmt(Stmt* s, Scope& sc);
  void resolve_expr(Expr* e, Scope& sc, bool as_array = false);
  Symbol* lookup(VarRef* v, Scope& sc, bool as_array, int arity = 1);
  void set_arity(Symbol* sym, int arity, SourceLoc loc);
  void mark_write(Expr* lvalue, Scope& sc, SourceLoc op = {});
  static void touch(Symbol* sym, Scope& sc, bool write);
  static bool is_stat_read(const AtOpExpr* a);
  static bool is_histogram(const AtOpExpr* a);
  static bool is_bucket_read(const AtOpExpr* a);
  void histogram_of(AtOpExpr* a, Symbol* sym);
  void variance_of(AtOpExpr* a, Symbol* sym);
  bool printing_ = false;  // resolving the arguments of print/println
  bool taking_address_ = false;  // resolving X of &@cast(...)/&@var(...)
  void check_foreach_modification(VarRef* v);
  // --- step 4 ---
  void infer_all();
  Type infer(Expr* e);
  void compile_regex(const BinaryExpr* b);
  void compile_submatch();
  std::map<std::string, const BinaryExpr*> regex_sites_;  // each pattern's first =~
  void infer_stmt(Stmt* s, FunctionDecl* fn);
  void unify(Expr* e, Type t);
  void unify_symbol(Symbol* sym, Type t, SourceLoc site);
  void unify_key(Symbol* sym, size_t i, Type t, SourceLoc site);
  // --- step 5 ---
  void check_stmt(Stmt* s);
  void check_expr(Expr* e);
  void compute_access();
  void mark_target_write(ast::TargetExpr* t, SourceLoc op);
  void resolve_indices(std::span<ast::TargetComponent> components, Scope& sc);
  void infer_indices(std::span<ast::TargetComponent> components);
  void relocate_link_addresses();

  void split_for_targets(Script* script, std::vector<ProbeSpec>& specs);
  void resolve_target_expr(TargetExpr* t, Scope& sc);
  void resolve_entry_expr(AtOpExpr* a, Scope& sc);
  void resolve_defined(AtOpExpr* a, Scope& sc);
  bool resolves_here(const Expr* e, Scope& sc);
  debug::DebugInfo* cast_debuginfo(const AtOpExpr& a, DiagSink& sink);
  void resolve_address_of(UnaryExpr* u, Scope& sc);
  // Warnings are about the user's code: a library alias's prologue that
  // sets variables this probe never reads is elided without a word.
  bool in_user_code(SourceLoc loc) const {
    return !loc.valid() || !diags_.sources().file(diags_.sources().resolve(loc).first.file).is_tapset;
  }
  // 1 or 0 for a condition made of @defined(...) (with !, &&, ||), else -1.
  int constant_condition(const Expr* e) const;

  Program& prog_;
  ProbeEnv own_env_;  // a bare target, when the caller gives none
  std::map<const ProbeDecl*, const ProbeSpec*> target_specs_;  // probes with debug sites
  std::set<const ProbeDecl*> return_decls_;  // probes whose every point is a .return (kretprobe)
  // @entry(expr) of script expressions: the pseudo-function their accesses
  // were recorded on, checked once all functions are resolved.
  std::vector<std::pair<AtOpExpr*, FunctionDecl*>> entry_exprs_;
  bool in_entry_expr_ = false;
  void check_entry_exprs();
  Arena& arena_;
  DiagSink& diags_;
  std::map<std::string, Symbol*, std::less<>> globals_;
  // Every function, by name; an overload (same name, another parameter
  // count) is filed as "NAME/N".
  std::map<std::string, FunctionDecl*> functions_;
  std::map<std::string, std::map<size_t, FunctionDecl*>, std::less<>> overloads_;  // name -> arity -> decl
  bool changed_ = false;
  std::set<const void*> reported_;
  // Each probe body records its accesses and calls on a pseudo-function.
  std::deque<FunctionDecl> pseudo_fns_;
  std::map<ProbeDecl*, FunctionDecl*> probe_bodies_;
  std::vector<Symbol*> foreach_arrays_;  // arrays of the foreach loops being resolved
  // Calls made inside foreach loops, with the arrays being iterated there:
  // checked once every function is resolved (check_foreach_calls).
  struct ForeachCall {
    CallExpr* call;
    std::vector<Symbol*> arrays;
  };
  std::vector<ForeachCall> foreach_calls_;
  bool stapusr_ = false;  // --privilege=stapusr
  const TapsetIndex* library_ = nullptr;
  // What --privilege=stapusr refuses, found while resolving; reported for
  // probe bodies and the functions they reach only (report_privileged).
  struct Privileged {
    FunctionDecl* in;  // the probe body's pseudo-function, or the function
    DiagId id;
    SourceLoc loc;
    std::string what;  // "@cast", ...; empty for SemFunctionNeedsPrivilege
  };
  std::vector<Privileged> privileged_;
  void check_unprivileged_call(CallExpr* c, FunctionDecl* in);
  void note_kernel_memory(Expr* e, const std::string& what, Scope& sc);
  void report_privileged();
  void check_foreach_calls();
  std::set<FunctionDecl*> foreach_in_functions_;
};

Symbol* Elaborator::new_symbol(std::string_view name, Symbol::Scope scope, SourceLoc loc) {
  Symbol& s = prog_.symbols.emplace_back();
  s.name = name;
  s.scope = scope;
  s.decl = loc;
  return &s;
}

void Elaborator::collect() {
  for (Script* script : prog_.scripts) {
    for (GlobalDecl* g : script->globals) {
      if (globals_.count(g->name)) {
        diags_.report(DiagId::SemDuplicateGlobal, g->loc, g->name);
        continue;
      }
      Symbol* sym = new_symbol(g->name, Symbol::Scope::Global, g->loc);
      sym->index = static_cast<int>(prog_.globals.size());
      if (g->sized) {
        sym->arity = -2;  // an array of unknown arity
        sym->max_entries = g->max_entries;
      }
      sym->wrap = g->wrap;
      if (g->init) {
        if (g->init->kind == ExprKind::Number || g->init->kind == ExprKind::String ||
            (g->init->kind == ExprKind::Unary &&
             static_cast<UnaryExpr*>(g->init)->operand->kind == ExprKind::Number)) {
          sym->init = g->init;
          sym->arity = 0;
          sym->assigned = true;
          Type t = g->init->kind == ExprKind::String ? Type::String : Type::Long;
          sym->type = t;
          sym->type_site = g->init->loc;
          sym->fixed_type = true;
        } else {
          diags_.report(DiagId::SemBadInitializer, g->init->loc);
        }
      }
      g->sym = sym;
      globals_[g->name] = sym;
      prog_.globals.push_back(sym);
    }
    for (FunctionDecl* f : script->functions) {
      auto& by_arity = overloads_[f->name];
      if (by_arity.count(f->params.size()) || find_builtin(f->name)) {
        diags_.report(DiagId::SemDuplicateFunction, f->loc, f->name);
        continue;
      }
      if (by_arity.empty()) {
        functions_[f->name] = f;
      } else {
        functions_[f->name + "/" + std::to_string(f->params.size())] = f;
        f->c_name = f->name + "__" + std::to_string(f->params.size());
        for (auto& [n, other] : by_arity)
          if (other->c_name.empty()) other->c_name = other->name + "__" + std::to_string(n);
      }
      by_arity[f->params.size()] = f;
    }
  }
}

namespace {

// Does a probe point written in a probe match an alias's name? Component
// by component: names may use wildcards in the probe, arguments must agree.
bool matches_alias(const ProbePoint& point, const ProbePoint& name) {
  if (point.components.size() != name.components.size()) return false;
  for (size_t i = 0; i < point.components.size(); ++i) {
    const ProbePointComponent& p = point.components[i];
    const ProbePointComponent& n = name.components[i];
    if (!support::glob_match(p.name, n.name)) return false;
    if (!p.arg != !n.arg) return false;
    if (p.arg && p.arg->kind != n.arg->kind) return false;
    if (p.arg && p.arg->kind == ExprKind::Number &&
        static_cast<NumberLit*>(p.arg)->value != static_cast<NumberLit*>(n.arg)->value)
      return false;
    if (p.arg && p.arg->kind == ExprKind::String &&
        static_cast<StringLit*>(p.arg)->value != static_cast<StringLit*>(n.arg)->value)
      return false;
  }
  return true;
}

}  // namespace

// A probe on an alias becomes a probe on the alias's points whose body is
// the alias prologue, the probe's body, then the alias epilogue (each a
// copy, since every instance gets its own locals). Aliases may name
// aliases; the chain is bounded.
void Elaborator::expand_probe(ProbeDecl* p, std::vector<ProbeDecl*>& out, int depth) {
  std::vector<ProbePoint*> direct;
  for (ProbePoint* point : p->points) {
    std::vector<std::pair<AliasDecl*, ProbePoint*>> found;  // alias, the name matched
    for (Script* script : prog_.scripts)
      for (AliasDecl* a : script->aliases)
        for (ProbePoint* name : a->names)
          if (matches_alias(*point, *name)) found.emplace_back(a, name);
    if (found.empty()) {
      direct.push_back(point);
      continue;
    }
    if (depth >= 32) {
      diags_.report(DiagId::SemAliasDepth, point->loc, point->to_string());
      continue;
    }
    for (auto [a, name] : found) {
      auto* derived = arena_.make<ProbeDecl>(p->loc);
      derived->pn = p->pn.empty() ? name->to_string() : p->pn;
      for (ProbePoint* target : a->targets) {
        auto* copy = arena_.make<ProbePoint>(target->loc, *target);
        // "probe alias?" makes every point it stands for optional.
        copy->optional = copy->optional || point->optional;
        derived->points.push_back(arena_, copy);
      }
      auto* body = arena_.make<BlockStmt>(p->body->loc);
      BlockStmt* user = clone(arena_, p->body);
      if (a->epilogue) {
        body->stmts.assign(arena_, {user, clone(arena_, a->body)});
      } else {
        body->stmts.assign(arena_, {clone(arena_, a->body), user});
        if (a->second) body->stmts.push_back(arena_, clone(arena_, a->second));
      }
      derived->body = body;
      expand_probe(derived, out, depth + 1);
    }
  }
  if (direct.size() == p->points.size()) {
    out.push_back(p);
  } else if (!direct.empty()) {
    auto* rest = arena_.make<ProbeDecl>(p->loc);
    rest->points.assign(arena_, direct);
    rest->body = p->body;
    rest->pn = p->pn;
    out.push_back(rest);
  }
}

void Elaborator::expand_aliases() {
  bool any = false;
  for (Script* script : prog_.scripts) any = any || !script->aliases.empty();
  if (!any) return;
  for (Script* script : prog_.scripts) {
    std::vector<ProbeDecl*> expanded;
    for (ProbeDecl* p : script->probes) expand_probe(p, expanded, 0);
    script->probes = std::move(expanded);
  }
}

namespace {

// Whether a body reads a target variable ($var...) anywhere.
struct MentionsTarget : Visitor<MentionsTarget, true> {
  bool found = false;
  void visit_target(const TargetExpr*) { found = true; }
};

bool mentions_target(const Stmt* s) {
  MentionsTarget m;
  m.visit(s);
  return m.found;
}

}  // namespace

// Probes whose body reads target variables need one body per probed
// address, since $x may live in a different place at each: every spec
// after the first of such a probe gets its own copy of the body.
void Elaborator::split_for_targets(Script* script, std::vector<ProbeSpec>& specs) {
  std::map<ProbeDecl*, int> seen;
  std::map<ProbeDecl*, bool> uses;
  for (ProbeSpec& spec : specs) {
    if (!spec.site) continue;
    ProbeDecl* decl = spec.decl;
    auto it = uses.find(decl);
    if (it == uses.end()) it = uses.emplace(decl, mentions_target(decl->body)).first;
    if (it->second && seen[decl]++ > 0) {
      auto* copy = arena_.make<ProbeDecl>(decl->loc);
      copy->points.assign(arena_, decl->points);
      copy->body = clone(arena_, decl->body);
      copy->pn = decl->pn;
      script->probes.push_back(copy);
      spec.decl = copy;
    }
  }
}

// "probe P if (cond) { body }" runs body only while cond holds: each point
// with a condition becomes its own probe whose body starts with
// "if (!(cond)) next". The condition may read globals only.
void Elaborator::lower_conditions() {
  for (Script* script : prog_.scripts) {
    std::vector<ProbeDecl*> out;
    for (ProbeDecl* p : script->probes) {
      std::vector<ProbePoint*> plain;
      for (ProbePoint* point : p->points) {
        if (!point->condition) {
          plain.push_back(point);
          continue;
        }
        auto* d = arena_.make<ProbeDecl>(p->loc);
        auto* copy = arena_.make<ProbePoint>(point->loc, *point);
        copy->condition = nullptr;
        d->points.assign(arena_, {copy});
        d->pn = p->pn;
        auto* guard = arena_.make<IfStmt>(point->condition->loc);
        auto* neg = arena_.make<UnaryExpr>(point->condition->loc);
        neg->op = Op::Not;
        neg->operand = clone(arena_, point->condition);
        guard->cond = neg;
        guard->then = arena_.make<SimpleStmt>(point->condition->loc, StmtKind::Next);
        conditions_.insert(neg->operand);
        auto* body = arena_.make<BlockStmt>(p->body->loc);
        body->stmts.assign(arena_, {guard, clone(arena_, p->body)});
        d->body = body;
        out.push_back(d);
      }
      if (plain.size() == p->points.size()) {
        out.push_back(p);
      } else if (!plain.empty()) {
        auto* rest = arena_.make<ProbeDecl>(p->loc);
        rest->points.assign(arena_, plain);
        rest->body = p->body;
        rest->pn = p->pn;
        out.push_back(rest);
      }
    }
    script->probes = std::move(out);
  }
}

void Elaborator::resolve_probes() {
  for (Script* script : prog_.scripts) {
    std::vector<ProbeSpec> specs;
    for (ProbeDecl* decl : script->probes) {
      for (ProbePoint* point : decl->points) {
        ProbeSpec tmpl;
        tmpl.decl = decl;
        tmpl.point = point;
        tmpl.pp = point->to_string();
        bool claimed = false;
        diags_.set_context(DiagId::SemWhileResolving, point->loc);
        size_t first_spec = specs.size();
        for (const ProbeFamily* fam : probe_families()) {
          if (fam->expand(*point, tmpl, probe_ctx_, specs, diags_)) {
            claimed = true;
            break;
          }
        }
        // stap points at the point's last component.
        if (stapusr_ && specs.size() > first_spec && !specs[first_spec].family->unprivileged())
          diags_.report(DiagId::SemProbeNeedsPrivilege, point->components.back().loc, "stapusr");
        // An optional point ("?") that names nothing is simply left out.
        if (!claimed && !point->optional) {
          std::string similar = support::join(similar_components(*point));
          diags_.report(DiagId::SemBadProbePoint, point->loc,
                        "unknown probe point '" + tmpl.pp + "'" + (similar.empty() ? "" : " (similar: " + similar + ")"));
        }
        diags_.clear_context();
      }
    }
    split_for_targets(script, specs);
    for (ProbeSpec& spec : specs) {
      spec.index = static_cast<int>(prog_.probes.size());
      prog_.probes.push_back(std::move(spec));
    }
  }
  std::map<const ProbeDecl*, bool> all_return;
  for (const ProbeSpec& spec : prog_.probes) {
    if (spec.site) target_specs_.emplace(spec.decl, &spec);
    auto [it, fresh] = all_return.try_emplace(spec.decl, spec.is_return);
    if (!fresh) it->second = it->second && spec.is_return;
  }
  for (const auto& [decl, ret] : all_return)
    if (ret) return_decls_.insert(decl);
}

// For a point no family or alias takes: the names nearest the first of
// its components that no probe family or alias name has at that place,
// among the names that do (syscall.opn: open).
std::vector<std::string> Elaborator::similar_components(const ProbePoint& point) const {
  std::vector<std::string> dotted;
  for (const ProbeFamily* fam : probe_families()) dotted.emplace_back(fam->name());
  for (const char* name : {"begin", "end", "error"}) dotted.emplace_back(name);
  if (library_)
    for (std::string_view name : library_->alias_names()) dotted.emplace_back(name);
  for (const Script* script : prog_.scripts)
    for (const AliasDecl* a : script->aliases)
      for (const ProbePoint* name : a->names) {
        std::string d;
        for (const ProbePointComponent& c : name->components) d += (d.empty() ? "" : ".") + c.name;
        dotted.push_back(std::move(d));
      }
  std::vector<std::vector<std::string>> split;
  for (const std::string& d : dotted) {
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
      size_t dot = d.find('.', at);
      parts.push_back(d.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
      if (dot == std::string::npos) break;
      at = dot + 1;
    }
    split.push_back(std::move(parts));
  }
  // Narrow the names component by component while the point's own match.
  std::vector<const std::vector<std::string>*> live;
  for (const auto& parts : split) live.push_back(&parts);
  for (size_t k = 0; k < point.components.size(); ++k) {
    const std::string want = point.components[k].name.str();
    std::vector<const std::vector<std::string>*> next;
    std::vector<std::string_view> here;
    for (const auto* parts : live) {
      if (parts->size() <= k) continue;
      here.push_back((*parts)[k]);
      if (support::glob_match(want, (*parts)[k]) || support::glob_match((*parts)[k], want))
        next.push_back(parts);
    }
    if (next.empty()) return support::is_glob(want) ? std::vector<std::string>{} : similar_names(here, want, 5);
    live = std::move(next);
  }
  return {};
}

// @defined(EXPR): 1 if EXPR is a literal or a target expression that
// resolves here ($var..., @cast, @var, @entry, &...), else 0. As in stap,
// any other expression ($x + 1, a script variable, a call) is 0, and only
// EXPR itself is tried, not @cast's pointer or an index inside it. EXPR is
// never evaluated: it is resolved on trial, reporting and recording
// nothing, and dropped once its value is known.
void Elaborator::resolve_defined(AtOpExpr* a, Scope& sc) {
  a->type = Type::Long;
  bool ok = a->args.size() == 1 && resolves_here(a->args[0], sc);
  a->args.clear();
  TargetAccess value;
  value.value = debug::loc_const(ok ? 1 : 0);
  prog_.targets[a] = std::move(value);
}

bool Elaborator::resolves_here(const Expr* e, Scope& sc) {
  std::ostream null_out(nullptr);
  DiagSink scratch(diags_.sources(), null_out);
  auto it = sc.probe ? target_specs_.find(sc.decl) : target_specs_.end();
  const ProbeSpec* spec = it == target_specs_.end() ? nullptr : it->second;
  std::vector<TargetAccess> saves;  // what an entry save would need: dropped
  auto cast_or_var = [&](const AtOpExpr& at, bool address) {
    debug::DebugInfo* di = cast_debuginfo(at, scratch);
    if (!di) return false;
    return (at.name == "cast" ? resolve_cast(at, *di, scratch, address) : resolve_var(at, *di, scratch, address))
        .has_value();
  };
  switch (e->kind) {
    case ExprKind::Number:
    case ExprKind::String:
      return true;
    case ExprKind::Target:
      return spec &&
             resolve_target(*static_cast<const TargetExpr*>(e), *spec->site, spec->is_return, &saves, scratch);
    case ExprKind::Unary: {
      const auto* u = static_cast<const UnaryExpr*>(e);
      if (u->op != Op::AddressOf) return false;
      if (u->operand->kind == ExprKind::Target)
        return spec && !spec->is_return &&
               resolve_address(*static_cast<const TargetExpr*>(u->operand), *spec->site, scratch);
      const auto* at = u->operand->kind == ExprKind::AtOp ? static_cast<const AtOpExpr*>(u->operand) : nullptr;
      return at && (at->name == "cast" || at->name == "var") && cast_or_var(*at, true);
    }
    case ExprKind::AtOp: {
      const auto* at = static_cast<const AtOpExpr*>(e);
      if (at->name == "defined") return true;  // itself a literal once resolved
      if (at->name == "cast" || at->name == "var") return cast_or_var(*at, false);
      if (at->name != "entry") return false;
      if (!sc.probe || !return_decls_.count(sc.decl) || at->args.size() != 1 || !at->components.empty() ||
          !at->pretty.empty())
        return false;
      if (at->args[0]->kind != ExprKind::Target) return true;  // a script expression, saved at entry
      return spec && resolve_entry(*static_cast<const TargetExpr*>(at->args[0]), *spec->site, saves, scratch);
    }
    default:
      return false;
  }
}

// The debug information @cast/@var reads: the kernel's, or that of the
// module @cast's third argument names. Null, reported to `sink`, if there
// is none; a module list, path, header or wildcard is reported as not
// implemented whoever asks.
debug::DebugInfo* Elaborator::cast_debuginfo(const AtOpExpr& a, DiagSink& sink) {
  std::string module = a.name == "cast" ? cast_module(a) : "";
  if (module.empty()) return probe_ctx_.env->debuginfo(sink, a.loc);
  if (module.find_first_of(":/<*?[") != std::string::npos) {
    diags_.report(DiagId::SemUnsupported, a.args[2]->loc,
                  "@cast into a list of modules, a path, a header or a wildcard");
    return nullptr;
  }
  auto found = probe_ctx_.env->module_debuginfo(module, sink, a.args[2]->loc);
  return found.empty() ? nullptr : found[0].second;
}

// 1 or 0 for a condition whose value is known now: @defined, with !, &&
// and || (either side known to be 0 makes && 0, and so on). Literals do
// not count: as in stap, `1 ? 2 : "three"` is still a type error.
int Elaborator::constant_condition(const Expr* e) const {
  switch (e->kind) {
    case ExprKind::AtOp: {
      if (static_cast<const AtOpExpr*>(e)->name != "defined") return -1;
      auto it = prog_.targets.find(e);
      return it == prog_.targets.end() ? -1 : static_cast<int>(it->second.value->value);
    }
    case ExprKind::Unary: {
      const auto* u = static_cast<const UnaryExpr*>(e);
      if (u->op != Op::Not) return -1;
      int inner = constant_condition(u->operand);
      return inner < 0 ? -1 : !inner;
    }
    case ExprKind::Binary: {
      const auto* b = static_cast<const BinaryExpr*>(e);
      if (b->op != Op::LogAnd && b->op != Op::LogOr) return -1;
      int l = constant_condition(b->lhs), r = constant_condition(b->rhs);
      int absorbing = b->op == Op::LogAnd ? 0 : 1;  // decides alone, on either side
      if (l == absorbing || r == absorbing) return absorbing;
      return l < 0 || r < 0 ? -1 : !absorbing;
    }
    default:
      return -1;
  }
}

// &$expr: the address of a target expression that lives in memory.
void Elaborator::resolve_address_of(UnaryExpr* u, Scope& sc) {
  auto* t = static_cast<TargetExpr*>(u->operand);
  auto it = sc.probe ? target_specs_.find(sc.decl) : target_specs_.end();
  if (it == target_specs_.end()) {
    if (sc.probe)
      diags_.report(DiagId::SemTargetContext, t->loc);
    else
      diags_.report(DiagId::SemTargetInFunction, t->loc, sc.fn ? sc.fn->name : "");
    return;
  }
  if (it->second->is_return) {
    diags_.report(DiagId::SemUnsupported, u->loc, "'&' on a target variable in a .return probe");
    return;
  }
  std::optional<TargetAccess> access = resolve_address(*t, *it->second->site, diags_);
  if (!access) return;
  u->type = t->type = Type::Long;
  prog_.targets[u] = std::move(*access);
}

// @entry(expr): only in .return probes. A target expression is resolved
// at the function's entry; any other expression is evaluated there.
void Elaborator::resolve_entry_expr(AtOpExpr* a, Scope& sc) {
  if (!sc.probe || !return_decls_.count(sc.decl)) {
    diags_.report(DiagId::SemEntryContext, a->loc);
    return;
  }
  if (a->args.size() != 1 || !a->components.empty() || !a->pretty.empty()) {
    diags_.report(DiagId::SemEntryArgs, a->loc);
    return;
  }
  auto it = target_specs_.find(sc.decl);
  if (a->args[0]->kind != ExprKind::Target || it == target_specs_.end()) {
    // A script expression, evaluated when the function is entered; what
    // it touches is recorded apart, to check that it reads no global.
    auto& pseudo = pseudo_fns_.emplace_back();
    Scope entry = sc;
    entry.fn = &pseudo;
    in_entry_expr_ = true;
    resolve_expr(a->args[0], entry);
    in_entry_expr_ = false;
    sc.fn->callees.insert(sc.fn->callees.end(), pseudo.callees.begin(), pseudo.callees.end());
    std::vector<TargetAccess>& saves = prog_.entry_saves[sc.decl];
    TargetAccess save;
    save.entry_expr = a->args[0];
    TargetAccess read;
    read.entry_slot = static_cast<int>(saves.size());
    saves.push_back(std::move(save));
    prog_.targets[a] = std::move(read);
    entry_exprs_.emplace_back(a, &pseudo);  // typed as the expression (infer)
    return;
  }
  const ProbeSpec& spec = *it->second;
  std::optional<TargetAccess> access =
      resolve_entry(*static_cast<TargetExpr*>(a->args[0]), *spec.site, prog_.entry_saves[sc.decl], diags_);
  if (!access) return;
  a->type = access->yields_string() ? Type::String : Type::Long;
  a->args[0]->type = a->type;
  prog_.targets[a] = std::move(*access);
}

// $var[i], @cast(...)[i]: an index the script computes is an expression
// of its own (a number needs nothing).
void Elaborator::resolve_indices(std::span<TargetComponent> components, Scope& sc) {
  for (TargetComponent& c : components)
    if (c.index && c.index->kind != ExprKind::Number) resolve_expr(c.index, sc);
}

void Elaborator::resolve_target_expr(TargetExpr* t, Scope& sc) {
  if (!sc.probe) {
    diags_.report(DiagId::SemTargetInFunction, t->loc, sc.fn ? sc.fn->name : "");
    return;
  }
  auto it = target_specs_.find(sc.decl);
  if (it == target_specs_.end()) {
    diags_.report(DiagId::SemTargetContext, t->loc);
    return;
  }
  const ProbeSpec& spec = *it->second;
  // Inside @entry(expr) a parameter is read where it is at the entry.
  bool ret = spec.is_return && !in_entry_expr_;
  std::optional<TargetAccess> access =
      resolve_target(*t, *spec.site, ret, ret ? &prog_.entry_saves[sc.decl] : nullptr, diags_);
  if (!access) return;
  t->type = access->yields_string() ? Type::String : Type::Long;
  prog_.targets[t] = std::move(*access);
}

void Elaborator::set_arity(Symbol* sym, int arity, SourceLoc loc) {
  if (sym->arity == -1 || (sym->arity == -2 && arity > 0)) {
    sym->arity = arity;
    sym->key_types.assign(std::max(arity, 0), Type::Unknown);
    sym->key_sites.assign(std::max(arity, 0), SourceLoc{});
    return;
  }
  if (sym->arity == -2 && arity == 0) {
    diags_.report(DiagId::SemNotScalar, loc, 1);
    return;
  }
  if (sym->arity == arity) return;
  if (sym->arity == 0)
    diags_.report(DiagId::SemNotArray, loc, arity);
  else if (arity == 0)
    diags_.report(DiagId::SemNotScalar, loc, sym->arity);
  else
    diags_.report(DiagId::SemArityMismatch, loc, sym->arity, arity);
}

Symbol* Elaborator::lookup(VarRef* v, Scope& sc, bool as_array, int arity) {
  if (in_condition_ && !globals_.count(v->name)) {
    diags_.report(DiagId::SemCondLocal, v->loc);
    return nullptr;
  }
  // Locals and parameters are scalars: an array must be a global.
  if (auto it = sc.names.find(v->name); it != sc.names.end() && !as_array) return it->second;
  if (auto it = globals_.find(v->name); it != globals_.end()) {
    referenced_.insert(it->second);
    return it->second;
  }
  if (as_array) {
    diags_.report(DiagId::SemLocalArray, v->loc, arity, v->name);
    return nullptr;
  }
  Symbol* sym = new_symbol(v->name, Symbol::Scope::Local, v->loc);
  sym->arity = 0;
  sym->index = static_cast<int>(sc.locals->size());
  sc.locals->push_back(sym);
  sc.names.insert_or_assign(v->name.str(), sym);
  return sym;
}

bool Elaborator::is_histogram(const AtOpExpr* a) {
  return (a->name == "hist_log" && a->args.size() == 1) || (a->name == "hist_linear" && a->args.size() == 4);
}

// @hist_log(s)[i], @hist_linear(s, lo, hi, step)[i]: one bucket's count.
bool Elaborator::is_bucket_read(const AtOpExpr* a) {
  return is_histogram(a) && a->components.size() == 1 && a->components[0].field.empty() &&
         a->components[0].index && a->pretty.empty();
}

// A statistic has one histogram shape; @hist_linear's bounds are literals.
void Elaborator::histogram_of(AtOpExpr* a, Symbol* sym) {
  Symbol::Hist kind = a->name == "hist_log" ? Symbol::Hist::Log : Symbol::Hist::Linear;
  int64_t v[3] = {0, 0, 0};
  if (kind == Symbol::Hist::Linear) {
    for (int i = 0; i < 3; ++i) {
      Expr* arg = a->args[i + 1];
      bool neg = arg->kind == ExprKind::Unary && static_cast<UnaryExpr*>(arg)->op == Op::Neg;
      Expr* lit = neg ? static_cast<UnaryExpr*>(arg)->operand : arg;
      if (lit->kind != ExprKind::Number) {
        diags_.report(DiagId::SemHistArgs, arg->loc, "its bounds and step must be number literals");
        return;
      }
      v[i] = neg ? -static_cast<NumberLit*>(lit)->value : static_cast<NumberLit*>(lit)->value;
    }
    if (v[2] <= 0 || v[1] <= v[0]) {
      diags_.report(DiagId::SemHistArgs, a->loc, "it needs low < high and a positive step");
      return;
    }
    if ((v[1] - v[0]) / v[2] > 1024) {
      diags_.report(DiagId::SemHistArgs, a->loc, "it would have more than 1024 buckets");
      return;
    }
  }
  if (sym->hist != Symbol::Hist::None &&
      (sym->hist != kind || sym->hist_lo != v[0] || sym->hist_hi != v[1] || sym->hist_step != v[2])) {
    diags_.report(DiagId::SemHistArgs, a->loc, "a statistic has one histogram shape in a script");
    return;
  }
  sym->hist = kind;
  sym->hist_lo = v[0];
  sym->hist_hi = v[1];
  sym->hist_step = v[2];
  sym->hist_site = a->loc;
}

bool Elaborator::is_stat_read(const AtOpExpr* a) {
  static const std::set<std::string, std::less<>> ops = {"count", "sum", "min", "max", "avg"};
  return (ops.count(a->name) && a->args.size() == 1) ||
         (a->name == "variance" && (a->args.size() == 1 || a->args.size() == 2));
}

// @variance(s[, shift]): one literal shift (0..62) per statistic.
void Elaborator::variance_of(AtOpExpr* a, Symbol* sym) {
  int64_t shift = 0;
  if (a->args.size() == 2) {
    if (a->args[1]->kind != ExprKind::Number || static_cast<NumberLit*>(a->args[1])->value < 0 ||
        static_cast<NumberLit*>(a->args[1])->value > 62) {
      diags_.report(DiagId::SemHistArgs, a->args[1]->loc, "@variance's bit-shift is a number from 0 to 62");
      return;
    }
    shift = static_cast<NumberLit*>(a->args[1])->value;
  }
  if (sym->variance && sym->variance_shift != shift) {
    diags_.report(DiagId::SemHistArgs, a->loc, "a statistic has one @variance bit-shift in a script");
    return;
  }
  sym->variance = true;
  sym->variance_shift = static_cast<int>(shift);
}

void Elaborator::touch(Symbol* sym, Scope& sc, bool write) {
  if (!sym || sym->scope != Symbol::Scope::Global) return;
  (write ? sc.fn->global_writes : sc.fn->global_reads).push_back(sym->index);
}

void Elaborator::mark_write(Expr* lvalue, Scope& sc, SourceLoc op) {
  VarRef* v = nullptr;
  if (lvalue->kind == ExprKind::Target) {
    mark_target_write(static_cast<TargetExpr*>(lvalue), op.valid() ? op : lvalue->loc);
    return;
  }
  if (lvalue->kind == ExprKind::Var) v = static_cast<VarRef*>(lvalue);
  if (lvalue->kind == ExprKind::Index) v = static_cast<IndexExpr*>(lvalue)->array;
  if (!v) {
    diags_.report(DiagId::SemNotLvalue, op.valid() ? op : lvalue->loc);
    return;
  }
  if (v->sym) {
    v->sym->assigned = true;
    touch(v->sym, sc, true);
    check_foreach_modification(v);
  }
}

// `$var = ...` (guru mode): the resolved access must name an integer in a
// register or in memory.
void Elaborator::mark_target_write(TargetExpr* t, SourceLoc op) {
  // Tapset code is privileged, as embedded C in it is.
  if (!probe_ctx_.guru && in_user_code(t->loc)) {
    diags_.report(DiagId::SemTargetWrite, t->loc, t->base);
    return;
  }
  auto it = prog_.targets.find(t);
  if (it == prog_.targets.end()) return;  // reported when resolved
  if (const char* why = target_write_problem(it->second)) diags_.report(DiagId::SemTargetNotWritable, op, t->base, why);
}

void Elaborator::check_foreach_modification(VarRef* v) {
  for (Symbol* a : foreach_arrays_)
    if (a == v->sym) diags_.report(DiagId::SemForeachModify, v->loc, v->name);
}

void Elaborator::resolve_expr(Expr* e, Scope& sc, bool) {
  switch (e->kind) {
    case ExprKind::Number:
    case ExprKind::String:
      break;
    case ExprKind::Target:
      note_kernel_memory(e, "a target variable", sc);
      resolve_indices(static_cast<TargetExpr*>(e)->components, sc);
      resolve_target_expr(static_cast<TargetExpr*>(e), sc);
      break;
    case ExprKind::AtOp: {
      auto* a = static_cast<AtOpExpr*>(e);
      if (a->name == "cast" || a->name == "var") {
        note_kernel_memory(e, "@" + a->name, sc);
        resolve_indices(a->components, sc);
      }
      if (a->name == "entry") {
        resolve_entry_expr(a, sc);
        break;
      }
      if (a->name == "defined") {
        resolve_defined(a, sc);
        break;
      }
      if (a->name == "cast" || a->name == "var") {
        bool address = taking_address_;
        taking_address_ = false;
        if (a->name == "cast" && !a->args.empty()) resolve_expr(a->args[0], sc);
        if (debug::DebugInfo* di = cast_debuginfo(*a, diags_)) {
          std::optional<TargetAccess> access =
              a->name == "cast" ? resolve_cast(*a, *di, diags_, address)
                                : resolve_var(*a, *di, diags_, address);
          if (access) {
            a->type = access->yields_string() ? Type::String : Type::Long;
            prog_.targets[a] = std::move(*access);
          }
        }
        break;
      }
      if (is_histogram(a) && !printing_ && !is_bucket_read(a)) {
        diags_.report(DiagId::SemHistOnlyPrinted, e->loc, a->name, a->name);
        break;
      }
      if (!is_stat_read(a) && !is_histogram(a)) {
        diags_.report(DiagId::SemUnsupported, e->loc, "@" + a->name);
        break;
      }
      if (is_bucket_read(a))
        resolve_expr(a->components[0].index, sc);
      else if (!a->components.empty() || !a->pretty.empty())
        diags_.report(DiagId::SemUnsupported, e->loc, "'->', '[' or '$' after @" + a->name);
      Expr* arg = a->args[0];
      if (arg->kind != ExprKind::Var && arg->kind != ExprKind::Index) {
        diags_.report(DiagId::SemStatOperand, arg->loc, a->name);
        break;
      }
      resolve_expr(arg, sc);
      // Reading a statistic merges every CPU's part: exclusive access.
      VarRef* v = arg->kind == ExprKind::Var ? static_cast<VarRef*>(arg) : static_cast<IndexExpr*>(arg)->array;
      // A local here is reported by inference: it is not a statistic.
      touch(v->sym, sc, true);
      if (is_histogram(a) && v->sym) histogram_of(a, v->sym);
      if (a->name == "variance" && v->sym) variance_of(a, v->sym);
      break;
    }
    case ExprKind::Embedded:
      diags_.report(DiagId::SemUnsupported, e->loc, "embedded C");
      break;
    case ExprKind::Member:
      diags_.report(DiagId::SemUnsupported, e->loc, "'->' on a typed pointer");
      break;
    case ExprKind::Wildcard:
      diags_.report(DiagId::SemUnsupported, e->loc, "a '*' array key");
      break;
    case ExprKind::Var: {
      auto* v = static_cast<VarRef*>(e);
      v->sym = lookup(v, sc, false);
      if (v->sym) {
        set_arity(v->sym, 0, v->loc);
        v->sym->used = true;
        touch(v->sym, sc, false);
      }
      break;
    }
    case ExprKind::Index: {
      auto* ix = static_cast<IndexExpr*>(e);
      if (ix->keys.size() > kMaxKeys) diags_.report(DiagId::SemTooManyKeys, ix->loc, kMaxKeys);
      ix->array->sym = lookup(ix->array, sc, true, static_cast<int>(ix->keys.size()));
      if (ix->array->sym) {
        set_arity(ix->array->sym, static_cast<int>(ix->keys.size()), ix->loc);
        ix->array->sym->used = true;
        touch(ix->array->sym, sc, false);
      }
      for (Expr* k : ix->keys) resolve_expr(k, sc);
      break;
    }
    case ExprKind::InArray: {
      auto* in = static_cast<InArrayExpr*>(e);
      in->array->sym = lookup(in->array, sc, true, static_cast<int>(in->keys.size()));
      if (in->array->sym) {
        set_arity(in->array->sym, static_cast<int>(in->keys.size()), in->array->loc);
        touch(in->array->sym, sc, false);
      }
      for (Expr* k : in->keys) resolve_expr(k, sc);
      break;
    }
    case ExprKind::Call: {
      auto* c = static_cast<CallExpr*>(e);
      if (const BuiltinInfo* b = find_builtin(c->name)) {
        c->builtin = b->id;
        int n = static_cast<int>(c->args.size());
        if (n < b->min_args || (b->max_args >= 0 && n > b->max_args))
          diags_.report(DiagId::SemArgCount, c->loc, c->name,
                        b->max_args == b->min_args ? std::to_string(b->min_args)
                                                   : "at least " + std::to_string(b->min_args),
                        n);
      } else if (auto it = overloads_.find(c->name); it != overloads_.end() && !it->second.empty()) {
        // By argument count; a count no overload takes is reported against
        // the one with the most parameters.
        auto fit = it->second.find(c->args.size());
        c->fn = fit != it->second.end() ? fit->second : std::prev(it->second.end())->second;
        if (c->args.size() != c->fn->params.size())
          diags_.report(DiagId::SemFnArity, c->loc, c->name, c->fn->params.size());
        // Tapset functions marked /* guru */ act on the kernel directly:
        // only guru mode, or other tapset code, may call them.
        if (!probe_ctx_.guru && in_user_code(c->loc) && c->fn->has_pragma("guru"))
          diags_.report(DiagId::SemFunctionNeedsGuru, c->loc);
        if (stapusr_) check_unprivileged_call(c, sc.fn);
        sc.fn->callees.push_back(c->fn);
        if (!foreach_arrays_.empty()) foreach_calls_.push_back({c, foreach_arrays_});
      } else if (is_user_stack_function(c->name)) {
        diags_.report(DiagId::SemUnsupported, c->loc, c->name + "() (user-space stacks and symbols)");
      } else {
        std::vector<std::string_view> names = builtin_names();
        if (library_) {
          std::vector<std::string_view> lib = library_->function_names();
          names.insert(names.end(), lib.begin(), lib.end());
        }
        for (const auto& [name, by_arity] : overloads_) names.push_back(name);
        std::string similar = support::join(similar_names(names, c->name, 5));
        if (similar.empty())
          diags_.report(DiagId::SemUnknownFunction, c->loc, c->name);
        else
          diags_.report(DiagId::SemUnknownFunctionSimilar, c->loc, c->name, similar);
      }
      // Histograms may only be printed: print(@hist_log(s)).
      for (Expr* a : c->args) {
        printing_ = c->builtin == Builtin::Print || c->builtin == Builtin::Println;
        resolve_expr(a, sc);
        printing_ = false;
      }
      break;
    }
    case ExprKind::Unary: {
      auto* u = static_cast<UnaryExpr*>(e);
      if (u->op == Op::AddressOf && u->operand->kind == ExprKind::Target) {
        resolve_address_of(u, sc);
        break;
      }
      auto* at = u->operand->kind == ExprKind::AtOp ? static_cast<AtOpExpr*>(u->operand) : nullptr;
      if (u->op == Op::AddressOf && at && (at->name == "cast" || at->name == "var")) {
        // &@cast(...)->field: the access resolved for its address moves to the '&'.
        taking_address_ = true;
        resolve_expr(u->operand, sc);
        taking_address_ = false;
        if (auto it = prog_.targets.find(u->operand); it != prog_.targets.end()) {
          prog_.targets[u] = std::move(it->second);
          prog_.targets.erase(it);
          u->type = u->operand->type = Type::Long;
        }
        break;
      }
      resolve_expr(u->operand, sc);
      if (u->op == Op::PreInc || u->op == Op::PreDec || u->op == Op::PostInc || u->op == Op::PostDec)
        mark_write(u->operand, sc);
      break;
    }
    case ExprKind::Binary: {
      auto* b = static_cast<BinaryExpr*>(e);
      resolve_expr(b->lhs, sc);
      // @defined($x) && $x->y: a constant left side that decides alone
      // drops the right side unresolved (it may name what does not exist).
      if (b->op == Op::LogAnd || b->op == Op::LogOr) {
        int known = constant_condition(b->lhs);
        if (known == (b->op == Op::LogAnd ? 0 : 1)) {
          b->rhs = b->lhs;
          break;
        }
      }
      resolve_expr(b->rhs, sc);
      break;
    }
    case ExprKind::Ternary: {
      auto* t = static_cast<TernaryExpr*>(e);
      resolve_expr(t->cond, sc);
      // @defined($x) ? $x : 0: the branch a constant condition never takes
      // is dropped unresolved (it may name what does not exist).
      int known = constant_condition(t->cond);
      if (known == 0) t->then = t->els;
      if (known == 1) t->els = t->then;
      resolve_expr(t->then, sc);
      if (t->els != t->then) resolve_expr(t->els, sc);
      break;
    }
    case ExprKind::Assign: {
      auto* a = static_cast<AssignExpr*>(e);
      resolve_expr(a->rhs, sc);
      if (a->op == Op::AggregateInto) {
        // "<<<" adds to this CPU's part of a statistic: shared access.
        resolve_expr(a->lhs, sc);
        VarRef* v = a->lhs->kind == ExprKind::Var     ? static_cast<VarRef*>(a->lhs)
                    : a->lhs->kind == ExprKind::Index ? static_cast<IndexExpr*>(a->lhs)->array
                                                      : nullptr;
        if (!v)
          diags_.report(DiagId::SemNotLvalue, a->lhs->loc);
        else if (v->sym && v->sym->scope != Symbol::Scope::Global)
          diags_.report(DiagId::SemStatLocal, v->loc);
        else if (v->sym) {
          v->sym->assigned = true;
          if (sc.fn) sc.fn->global_adds.push_back(v->sym->index);
          check_foreach_modification(v);
        }
        break;
      }
      if (a->op == Op::Assign && a->lhs->kind == ExprKind::Var) {
        // A plain store does not read its target.
        auto* v = static_cast<VarRef*>(a->lhs);
        v->sym = lookup(v, sc, false);
        if (v->sym) set_arity(v->sym, 0, v->loc);
      } else {
        resolve_expr(a->lhs, sc);
      }
      mark_write(a->lhs, sc, a->op_loc);
      break;
    }
  }
}

void Elaborator::resolve_stmt(Stmt* s, Scope& sc) {
  switch (s->kind) {
    case StmtKind::Block:
      for (Stmt* st : static_cast<BlockStmt*>(s)->stmts) resolve_stmt(st, sc);
      break;
    case StmtKind::Expr:
      resolve_expr(static_cast<ExprStmt*>(s)->expr, sc);
      break;
    case StmtKind::If: {
      auto* i = static_cast<IfStmt*>(s);
      bool guard = i->cond->kind == ExprKind::Unary && conditions_.count(static_cast<UnaryExpr*>(i->cond)->operand);
      in_condition_ = guard;
      resolve_expr(i->cond, sc);
      in_condition_ = false;
      int known = constant_condition(i->cond);
      if (known == 0) i->then = arena_.make<BlockStmt>(i->then->loc);
      if (known == 1) i->els = nullptr;
      resolve_stmt(i->then, sc);
      if (i->els) resolve_stmt(i->els, sc);
      break;
    }
    case StmtKind::While: {
      auto* w = static_cast<WhileStmt*>(s);
      resolve_expr(w->cond, sc);
      ++sc.loop_depth;
      resolve_stmt(w->body, sc);
      --sc.loop_depth;
      break;
    }
    case StmtKind::For: {
      auto* f = static_cast<ForStmt*>(s);
      if (f->init) resolve_expr(f->init, sc);
      if (f->cond) resolve_expr(f->cond, sc);
      if (f->incr) resolve_expr(f->incr, sc);
      ++sc.loop_depth;
      resolve_stmt(f->body, sc);
      --sc.loop_depth;
      break;
    }
    case StmtKind::Foreach: {
      auto* f = static_cast<ForeachStmt*>(s);
      if (f->histogram) {
        // foreach (b in @hist_log(s)): b runs over the bucket indices.
        auto* h = f->histogram->kind == ExprKind::AtOp ? static_cast<AtOpExpr*>(f->histogram) : nullptr;
        if (!h || !is_histogram(h) || !h->components.empty() || f->keys.size() != 1 || f->value ||
            !f->aggregate.empty() || f->sort_column < 0) {
          diags_.report(DiagId::SemUnsupported, f->histogram->loc,
                        "this form of foreach over a histogram (use foreach (b in @hist_log(s)))");
          break;
        }
        printing_ = true;  // the histogram is not read here: its buckets are counted
        resolve_expr(h, sc);
        printing_ = false;
        VarRef* k = f->keys[0];
        k->sym = lookup(k, sc, false);
        if (k->sym) {
          set_arity(k->sym, 0, k->loc);
          k->sym->assigned = true;
          touch(k->sym, sc, true);
        }
        if (f->limit) resolve_expr(f->limit, sc);
        ++sc.loop_depth;
        resolve_stmt(f->body, sc);
        --sc.loop_depth;
        break;
      }
      if (!f->slice.empty()) diags_.report(DiagId::SemUnsupported, f->slice[0]->loc, "a foreach slice");
      f->array->sym = lookup(f->array, sc, true, static_cast<int>(f->keys.size()));
      if (f->array->sym) {
        set_arity(f->array->sym, static_cast<int>(f->keys.size()), f->array->loc);
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
      if (f->limit) resolve_expr(f->limit, sc);
      if (sc.fn && sc.fn->name.size() && f->array->sym) foreach_in_functions_.insert(sc.fn);
      foreach_arrays_.push_back(f->array->sym);
      ++sc.loop_depth;
      resolve_stmt(f->body, sc);
      --sc.loop_depth;
      foreach_arrays_.pop_back();
      break;
    }
    case StmtKind::Try: {
      auto* t = static_cast<TryStmt*>(s);
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
      break;
    }
    case StmtKind::Next:
      if (!sc.probe) diags_.report(DiagId::SemJumpOutside, s->loc, "next", "a probe handler");
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
      if (sc.loop_depth == 0)
        diags_.report(DiagId::SemJumpOutside, s->loc, s->kind == StmtKind::Break ? "break" : "continue",
                      "a loop");
      break;
    case StmtKind::Return: {
      auto* r = static_cast<ReturnStmt*>(s);
      if (sc.probe) diags_.report(DiagId::SemJumpOutside, s->loc, "return", "a function");
      if (r->value) resolve_expr(r->value, sc);
      break;
    }
    case StmtKind::Delete: {
      auto* d = static_cast<DeleteStmt*>(s);
      if (d->target->kind == ExprKind::Var) {
        // "delete a" clears a whole array or resets a scalar.
        auto* v = static_cast<VarRef*>(d->target);
        v->sym = lookup(v, sc, false);
        if (v->sym) v->sym->assigned = true;
        touch(v->sym, sc, true);
        if (v->sym) check_foreach_modification(v);
      } else if (d->target->kind == ExprKind::Index) {
        resolve_expr(d->target, sc);
        mark_write(d->target, sc);
      } else {
        diags_.report(DiagId::SemDeleteOperand, d->target->loc);
      }
      break;
    }
    case StmtKind::Null:
      break;
  }
}

// ---- type inference ----

// A reference at `site` needs `sym` to be of type t. Like stap, a conflict
// names the type this use wants, and where the symbol got its type; a type
// fixed by a declaration or initializer reads "expected X but found Y".
void Elaborator::unify_symbol(Symbol* sym, Type t, SourceLoc site) {
  if (t == Type::Unknown || !sym) return;
  if (sym->type == Type::Unknown) {
    sym->type = t;
    sym->type_site = site;
    changed_ = true;
  } else if (sym->type != t && reported_.insert(sym).second) {
    if (sym->fixed_type) {
      diags_.report(DiagId::SemTypeExpected, site, type_name(t), type_name(sym->type));
    } else {
      diags_.report(DiagId::SemTypeMismatch, site, type_name(t));
      diags_.report(DiagId::SemTypeMismatchHere, sym->type_site, type_name(sym->type));
    }
  }
}

void Elaborator::unify_key(Symbol* sym, size_t i, Type t, SourceLoc site) {
  if (!sym || t == Type::Unknown || i >= sym->key_types.size()) return;
  Type& k = sym->key_types[i];
  if (k == Type::Unknown) {
    k = t;
    sym->key_sites[i] = site;
    changed_ = true;
  } else if (k != t && reported_.insert(sym->key_sites.data() + i).second) {
    diags_.report(DiagId::SemKeyTypeMismatch, site, i, type_name(t));
    diags_.report(DiagId::SemTypeMismatchHere, sym->key_sites[i], type_name(k));
  }
}

// Pushes an expected type down into an expression whose type comes from a
// symbol or function.
// Pushes an expected type t down into e: symbols and functions whose type
// is still unknown take it; a conflict is reported at e (see unify_symbol).
void Elaborator::unify(Expr* e, Type t) {
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
      } else if (c->fn->type != t && c->fn->type != Type::Void && reported_.insert(c->fn).second) {
        if (c->fn->declared != Type::Unknown) {
          diags_.report(DiagId::SemTypeExpected, e->loc, type_name(t), type_name(c->fn->type));
        } else {
          diags_.report(DiagId::SemTypeMismatch, e->loc, type_name(t));
          diags_.report(DiagId::SemTypeMismatchHere, c->fn->type_site, type_name(c->fn->type));
        }
      }
      return;
    }
    case ExprKind::Ternary:
      unify(static_cast<TernaryExpr*>(e)->then, t);
      unify(static_cast<TernaryExpr*>(e)->els, t);
      return;
    case ExprKind::Assign:
      unify(static_cast<AssignExpr*>(e)->lhs, t);
      unify(static_cast<AssignExpr*>(e)->rhs, t);
      return;
    case ExprKind::AtOp: {
      // @entry(expr) has the type of expr.
      auto* a = static_cast<AtOpExpr*>(e);
      if (a->name == "entry" && a->args.size() == 1 && a->args[0]->kind != ExprKind::Target) {
        unify(a->args[0], t);
        return;
      }
      break;
    }
    default:
      break;
  }
  Type have = infer(e);
  if (have != Type::Unknown && have != Type::Void && have != t && reported_.insert(e).second)
    diags_.report(DiagId::SemTypeExpected, e->loc, type_name(t), type_name(have));
}

// Compiles the pattern of `=~`/`!~` into the program's DFAs once per
// pattern; a bad one is reported at its string (once per site).
void Elaborator::compile_regex(const BinaryExpr* b) {
  const std::string pattern = static_cast<const StringLit*>(b->rhs)->value.str();
  if (prog_.regexes.count(pattern)) return;
  regex::Dfa dfa;
  if (auto err = regex::compile(pattern, dfa)) {
    if (reported_.insert(b).second) diags_.report(DiagId::SemRegex, b->rhs->loc, err->pos, err->message);
    return;
  }
  prog_.regexes.emplace(pattern, std::move(dfa));
  regex_sites_.emplace(pattern, b);
}

// A script that reads sub-matches needs each pattern's sub-match program,
// which has a tighter bound than the DFA (memory per CPU).
void Elaborator::compile_submatch() {
  prog_.submatch = std::any_of(prog_.functions.begin(), prog_.functions.end(), [](const FunctionDecl* f) {
    return f->is_embedded && f->embedded_code.find("pragma:submatch") != std::string::npos;
  });
  if (!prog_.submatch) return;
  for (const auto& [pattern, site] : regex_sites_) {
    regex::Prog p;
    if (auto err = regex::compile_submatch(pattern, p))
      diags_.report(DiagId::SemRegex, site->rhs->loc, err->pos, err->message);
    else
      prog_.submatch_progs.emplace(pattern, std::move(p));
  }
}

void Elaborator::infer_indices(std::span<TargetComponent> components) {
  for (TargetComponent& c : components)
    if (c.index && c.index->kind != ExprKind::Number) {
      infer(c.index);
      unify(c.index, Type::Long);
    }
}

Type Elaborator::infer(Expr* e) {
  Type t = Type::Unknown;
  switch (e->kind) {
    case ExprKind::AtOp: {
      auto* a = static_cast<AtOpExpr*>(e);
      if (a->name == "entry" && !a->args.empty() && a->args[0]->kind != ExprKind::Target) {
        t = infer(a->args[0]);  // a number or a string, saved at entry
        break;
      }
      if (a->name == "entry" || a->name == "defined") {
        t = e->type;  // set when resolved
        break;
      }
      if (a->name == "cast") {
        if (!a->args.empty()) unify(a->args[0], Type::Long);
        infer_indices(a->components);
        t = e->type;
        break;
      }
      if (a->name == "var") {
        infer_indices(a->components);
        t = e->type;
        break;
      }
      if (!is_stat_read(a) && !is_histogram(a)) break;  // reported as unsupported during resolution
      infer(a->args[0]);
      unify(a->args[0], Type::Stats);
      // A histogram is printed, or one bucket of it read.
      t = is_histogram(a) && !is_bucket_read(a) ? Type::Void : Type::Long;
      if (is_bucket_read(a)) {
        infer(a->components[0].index);
        unify(a->components[0].index, Type::Long);
      }
      break;
    }
    case ExprKind::Target:
      infer_indices(static_cast<TargetExpr*>(e)->components);
      t = e->type;  // set when resolved; Unknown after an error
      break;
    case ExprKind::Embedded:
    case ExprKind::Member:
    case ExprKind::Wildcard:
      break;  // reported as unsupported during resolution
    case ExprKind::Number:
      t = Type::Long;
      break;
    case ExprKind::String:
      t = Type::String;
      break;
    case ExprKind::Var: {
      auto* v = static_cast<VarRef*>(e);
      t = v->sym ? v->sym->type : Type::Unknown;
      break;
    }
    case ExprKind::Index: {
      auto* ix = static_cast<IndexExpr*>(e);
      Symbol* sym = ix->array->sym;
      for (size_t i = 0; i < ix->keys.size(); ++i) {
        Type kt = infer(ix->keys[i]);
        unify_key(sym, i, kt, ix->keys[i]->loc);
        if (sym && i < sym->key_types.size() && kt == Type::Unknown)
          unify(ix->keys[i], sym->key_types[i]);
      }
      t = sym ? sym->type : Type::Unknown;
      break;
    }
    case ExprKind::InArray: {
      auto* in = static_cast<InArrayExpr*>(e);
      Symbol* sym = in->array->sym;
      for (size_t i = 0; i < in->keys.size(); ++i) {
        Type kt = infer(in->keys[i]);
        unify_key(sym, i, kt, in->keys[i]->loc);
        if (sym && i < sym->key_types.size() && kt == Type::Unknown)
          unify(in->keys[i], sym->key_types[i]);
      }
      t = Type::Long;
      break;
    }
    case ExprKind::Call: {
      auto* c = static_cast<CallExpr*>(e);
      if (c->builtin != Builtin::None) {
        for (Expr* a : c->args) infer(a);
        // The format, or the delimiter, is a string.
        if (c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf || c->builtin == Builtin::Printd ||
            c->builtin == Builtin::Printdln || c->builtin == Builtin::Sprintd || c->builtin == Builtin::Sprintdln) {
          if (!c->args.empty()) unify(c->args[0], Type::String);
        }
        t = find_builtin(c->name)->result;
      } else if (c->fn) {
        for (size_t i = 0; i < c->args.size() && i < c->fn->param_syms.size(); ++i) {
          Symbol* p = c->fn->param_syms[i];
          unify_symbol(p, infer(c->args[i]), c->args[i]->loc);
          unify(c->args[i], p->type);
        }
        t = c->fn->type;
      }
      break;
    }
    case ExprKind::Unary: {
      auto* u = static_cast<UnaryExpr*>(e);
      infer(u->operand);
      unify(u->operand, Type::Long);
      t = Type::Long;
      break;
    }
    case ExprKind::Binary: {
      auto* b = static_cast<BinaryExpr*>(e);
      Type l = infer(b->lhs), r = infer(b->rhs);
      switch (b->op) {
        case Op::Concat:
          unify(b->lhs, Type::String);
          unify(b->rhs, Type::String);
          t = Type::String;
          break;
        case Op::Eq:
        case Op::Ne:
        case Op::Lt:
        case Op::Le:
        case Op::Gt:
        case Op::Ge:
          if (r != Type::Unknown) l = r;  // stap checks the left against the right
          unify(b->lhs, l);
          unify(b->rhs, l);
          t = Type::Long;
          break;
        case Op::RegexMatch:
        case Op::RegexNoMatch:
          unify(b->lhs, Type::String);
          compile_regex(b);
          t = Type::Long;
          break;
        default:
          unify(b->lhs, Type::Long);
          unify(b->rhs, Type::Long);
          t = Type::Long;
      }
      break;
    }
    case ExprKind::Ternary: {
      auto* te = static_cast<TernaryExpr*>(e);
      infer(te->cond);
      unify(te->cond, Type::Long);
      Type a = infer(te->then), b = infer(te->els);
      t = a != Type::Unknown ? a : b;
      unify(te->then, t);
      unify(te->els, t);
      break;
    }
    case ExprKind::Assign: {
      auto* a = static_cast<AssignExpr*>(e);
      Type r = infer(a->rhs), l = infer(a->lhs);
      if (a->op == Op::AggregateInto) {
        unify(a->lhs, Type::Stats);
        unify(a->rhs, Type::Long);
        t = Type::Long;
        break;
      }
      if (a->op == Op::Assign) {
        // A statistic is not a value: it does not type what it is assigned to.
        t = l != Type::Unknown ? l : r == Type::Stats ? Type::Unknown : r;
        const Symbol* target = a->lhs->kind == ExprKind::Var     ? static_cast<VarRef*>(a->lhs)->sym
                               : a->lhs->kind == ExprKind::Index ? static_cast<IndexExpr*>(a->lhs)->array->sym
                                                                 : nullptr;
        if (l != Type::Unknown && r != Type::Unknown && l != r && target && r != Type::Void &&
            r != Type::Stats && reported_.insert(a->rhs).second) {
          reported_.insert(target);
          if (target->fixed_type) {
            diags_.report(DiagId::SemTypeExpected, a->lhs->loc, type_name(r), type_name(l));
          } else {
            diags_.report(DiagId::SemTypeMismatch, a->lhs->loc, type_name(r));
            diags_.report(DiagId::SemTypeMismatchHere, target->type_site, type_name(l));
          }
        }
      } else {
        t = a->op == Op::Concat ? Type::String : Type::Long;
      }
      unify(a->lhs, t);
      unify(a->rhs, t);
      break;
    }
  }
  if (t == Type::Void && e->type != Type::Void) changed_ = true;
  e->type = t;
  return t;
}

void Elaborator::infer_stmt(Stmt* s, FunctionDecl* fn) {
  switch (s->kind) {
    case StmtKind::Block:
      for (Stmt* st : static_cast<BlockStmt*>(s)->stmts) infer_stmt(st, fn);
      break;
    case StmtKind::Expr:
      infer(static_cast<ExprStmt*>(s)->expr);
      break;
    case StmtKind::If: {
      auto* i = static_cast<IfStmt*>(s);
      infer(i->cond);
      unify(i->cond, Type::Long);
      infer_stmt(i->then, fn);
      if (i->els) infer_stmt(i->els, fn);
      break;
    }
    case StmtKind::While: {
      auto* w = static_cast<WhileStmt*>(s);
      infer(w->cond);
      unify(w->cond, Type::Long);
      infer_stmt(w->body, fn);
      break;
    }
    case StmtKind::For: {
      auto* f = static_cast<ForStmt*>(s);
      if (f->init) infer(f->init);
      if (f->cond) {
        infer(f->cond);
        unify(f->cond, Type::Long);
      }
      if (f->incr) infer(f->incr);
      infer_stmt(f->body, fn);
      break;
    }
    case StmtKind::Return: {
      auto* r = static_cast<ReturnStmt*>(s);
      if (!fn || !r->value) break;
      Type t = infer(r->value);
      if (fn->type == Type::Unknown && t != Type::Unknown) {
        fn->type = t;
        fn->type_site = r->value->loc;
        changed_ = true;
      } else if (t != Type::Unknown && t != fn->type && fn->type != Type::Void &&
                 reported_.insert(r->value).second) {
        // The function's type is the symbol in conflict: name this value's type.
        reported_.insert(fn);
        if (fn->declared != Type::Unknown) {
          diags_.report(DiagId::SemTypeExpected, r->value->loc, type_name(t), type_name(fn->type));
        } else {
          diags_.report(DiagId::SemTypeMismatch, r->value->loc, type_name(t));
          diags_.report(DiagId::SemTypeMismatchHere, fn->type_site, type_name(fn->type));
        }
      }
      unify(r->value, fn->type);
      break;
    }
    case StmtKind::Delete: {
      auto* d = static_cast<DeleteStmt*>(s);
      if (d->target->kind == ExprKind::Index) infer(d->target);
      break;
    }
    case StmtKind::Try: {
      auto* t = static_cast<TryStmt*>(s);
      infer_stmt(t->body, fn);
      if (t->var && t->var->sym) unify_symbol(t->var->sym, Type::String, t->var->loc);
      infer_stmt(t->handler, fn);
      break;
    }
    case StmtKind::Foreach: {
      auto* f = static_cast<ForeachStmt*>(s);
      if (f->histogram) {
        infer(f->histogram);
        if (!f->keys.empty() && f->keys[0]->sym) unify_symbol(f->keys[0]->sym, Type::Long, f->keys[0]->loc);
        if (f->limit) {
          infer(f->limit);
          unify(f->limit, Type::Long);
        }
        infer_stmt(f->body, fn);
        break;
      }
      Symbol* a = f->array ? f->array->sym : nullptr;
      if (!a) break;
      for (size_t i = 0; i < f->keys.size() && i < a->key_types.size(); ++i) {
        Symbol* k = f->keys[i]->sym;
        if (!k) continue;
        unify_key(a, i, k->type, f->keys[i]->loc);
        unify_symbol(k, a->key_types[i], f->keys[i]->loc);
      }
      if (!f->aggregate.empty()) unify_symbol(a, Type::Stats, f->loc);
      if (f->limit) {
        infer(f->limit);
        unify(f->limit, Type::Long);
      }
      infer_stmt(f->body, fn);
      // stap binds the value variable after typing the body.
      if (f->value && f->value->sym) {
        unify_symbol(f->value->sym, a->type, f->value->loc);
        unify_symbol(a, f->value->sym->type, f->value->loc);
      }
      break;
    }
    default:
      break;
  }
}

void Elaborator::infer_all() {
  for (int round = 0; round < 100; ++round) {
    changed_ = false;
    // Probe conditions first: stap types them before any body.
    for (const Expr* c : conditions_) {
      infer(const_cast<Expr*>(c));
      unify(const_cast<Expr*>(c), Type::Long);
    }
    for (FunctionDecl* f : prog_.functions) infer_stmt(f->body, f);
    for (Script* script : prog_.scripts)
      for (ProbeDecl* p : script->probes) infer_stmt(p->body, nullptr);
    if (!changed_) break;
  }
}

// ---- checks after inference ----

void Elaborator::check_expr(Expr* e) {
  auto unresolved = [&](SourceLoc loc, const void* key) {
    if (reported_.insert(key).second) diags_.report(DiagId::SemUnresolvedType, loc);
  };
  switch (e->kind) {
    case ExprKind::Var: {
      auto* v = static_cast<VarRef*>(e);
      if (v->sym && v->sym->type == Type::Unknown) {
        if (!v->sym->assigned && v->sym->scope == Symbol::Scope::Local &&
            reported_.insert(&v->sym->assigned).second)
          if (in_user_code(v->loc)) diags_.report(DiagId::WarnNeverAssigned, v->loc, v->name);
        unresolved(v->loc, v->sym);
      }
      if (v->sym && v->sym->type == Type::Stats && v->sym->scope != Symbol::Scope::Global &&
          reported_.insert(v->sym).second)
        diags_.report(DiagId::SemStatLocal, v->loc);
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
          diags_.report(DiagId::SemFormatArgs, c->args[0]->loc, "format string must be a literal");
          break;
        }
        ParsedFormat pf = parse_format(static_cast<StringLit*>(c->args[0])->value.str());
        if (!pf.error.empty()) {
          diags_.report(DiagId::SemFormatArgs, c->args[0]->loc, pf.error);
          break;
        }
        if (pf.conversions.size() != c->args.size() - 1) {
          diags_.report(DiagId::SemPrintArgCount, c->loc);
          break;
        }
        for (size_t i = 0; i < pf.conversions.size(); ++i) {
          Expr* a = c->args[i + 1];
          Type want = pf.conversions[i].type;
          if (a->type == Type::Unknown || a->type == want) continue;
          if (a->kind == ExprKind::Var || a->kind == ExprKind::Index || a->kind == ExprKind::Call)
            diags_.report(DiagId::SemTypeMismatch, a->loc, type_name(want));
          else
            diags_.report(DiagId::SemTypeExpected, a->loc, type_name(want), type_name(a->type));
        }
      } else {
        for (Expr* a : c->args) {
          bool histogram = a->kind == ExprKind::AtOp && is_histogram(static_cast<AtOpExpr*>(a));
          if ((a->type == Type::Void && !histogram) || a->type == Type::Stats)
            diags_.report(DiagId::SemInvalidType, a->loc, type_name(a->type));
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
          reported_.insert(a->rhs).second) {
        diags_.report(DiagId::SemInvalidType, a->rhs->loc, type_name(a->rhs->type));
        if (a->lhs->kind == ExprKind::Var) reported_.insert(static_cast<VarRef*>(a->lhs)->sym);
      }
      check_expr(a->lhs);
      check_expr(a->rhs);
      break;
    }
    default:
      break;
  }
}

void Elaborator::check_stmt(Stmt* s) {
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
        diags_.report(DiagId::SemUnsupported, f->value->loc,
                      "a value variable in a foreach over statistics (use @count(a[k]) ...)");
      if (f->limit) check_expr(f->limit);
      check_stmt(f->body);
      break;
    }
    default:
      break;
  }
}

// --privilege=stapusr: an embedded-C function (only tapsets have them then)
// is usable only if it says it is safe for an unprivileged user:
// /* unprivileged */, or /* myproc-unprivileged */ (it may only look at the
// user's own processes, which the module checks when it is called). As
// stap, the error points at the function, once.
void Elaborator::check_unprivileged_call(CallExpr* c, FunctionDecl* in) {
  const FunctionDecl* f = c->fn;
  if (!f->is_embedded || f->has_pragma("unprivileged")) return;
  if (f->has_pragma("myproc-unprivileged")) {
    c->check_myproc = true;
    return;
  }
  privileged_.push_back({in, DiagId::SemFunctionNeedsPrivilege, f->name_loc.valid() ? f->name_loc : f->loc, ""});
}

void Elaborator::note_kernel_memory(Expr* e, const std::string& what, Scope& sc) {
  if (stapusr_) privileged_.push_back({sc.fn, DiagId::SemKernelMemoryNeedsPrivilege, e->loc, what});
}

// After compute_access has marked what the probes reach: library
// functions nothing calls may use anything.
void Elaborator::report_privileged() {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const Privileged& p : privileged_) {
    if (p.in && !p.in->name.empty() && !p.in->used) continue;
    if (!seen.insert({p.loc.file, p.loc.offset}).second) continue;
    if (p.what.empty())
      diags_.report(p.id, p.loc, "stapusr");
    else
      diags_.report(p.id, p.loc, p.what, "stapusr");
  }
}

// A function called inside a foreach may not change the array being
// iterated (stap's rule, which looks at what the called function itself
// writes or adds to, not at the functions it calls in turn).
void Elaborator::check_foreach_calls() {
  for (const ForeachCall& fc : foreach_calls_) {
    const FunctionDecl* f = fc.call->fn;
    for (Symbol* a : fc.arrays) {
      if (!a) continue;
      auto has = [&](const std::vector<int>& v) { return std::find(v.begin(), v.end(), a->index) != v.end(); };
      if (has(f->global_writes) || has(f->global_adds)) {
        diags_.report(DiagId::SemForeachCallModify, fc.call->loc, a->name);
        break;
      }
    }
  }
}

// A probe's lock set is what its body touches plus what every function it
// can reach touches.
void Elaborator::compute_access() {
  struct Collector {
    std::set<int> reads, writes;
    std::set<FunctionDecl*> seen;
    void fn(FunctionDecl* f) {
      if (!seen.insert(f).second) return;
      reads.insert(f->global_reads.begin(), f->global_reads.end());
      writes.insert(f->global_writes.begin(), f->global_writes.end());
      for (FunctionDecl* c : f->callees) fn(c);
    }
  };
  for (Script* script : prog_.scripts) {
    for (ProbeDecl* p : script->probes) {
      // The probe body's own accesses were recorded on a pseudo-function.
      Collector col;
      FunctionDecl* body = probe_bodies_.at(p);
      col.fn(body);
      p->global_reads.assign(col.reads.begin(), col.reads.end());
      p->global_writes.assign(col.writes.begin(), col.writes.end());
      for (FunctionDecl* f : col.seen)
        if (f != body) f->used = true;
    }
  }
}

// A global no probe or function names is left out, as stap does (even
// with -u). Globals are renumbered; only named ones have been touched.
void Elaborator::drop_unreferenced_globals() {
  std::vector<int> renumber(prog_.globals.size(), -1);
  std::vector<Symbol*> kept;
  for (Symbol* g : prog_.globals) {
    if (!referenced_.count(g)) continue;
    renumber[g->index] = static_cast<int>(kept.size());
    g->index = static_cast<int>(kept.size());
    kept.push_back(g);
  }
  if (kept.size() == prog_.globals.size()) return;
  auto remap = [&](std::vector<int>& v) {
    for (int& i : v) i = renumber[i];
  };
  for (auto& [name, f] : functions_) {
    remap(f->global_reads);
    remap(f->global_writes);
  }
  for (FunctionDecl& f : pseudo_fns_) {
    remap(f.global_reads);
    remap(f.global_writes);
  }
  prog_.globals = std::move(kept);
}

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
    default:
      return false;
  }
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
    default:
      break;
  }
}

// Every symbol an expression or statement names.
void named_symbols(const Expr* e, std::set<const Symbol*>& out) {
  if (!e) return;
  auto all = [&](std::span<Expr* const> v) {
    for (const Expr* x : v) named_symbols(x, out);
  };
  switch (e->kind) {
    case ExprKind::Var:
      out.insert(static_cast<const VarRef*>(e)->sym);
      break;
    case ExprKind::Index:
      out.insert(static_cast<const IndexExpr*>(e)->array->sym);
      all(static_cast<const IndexExpr*>(e)->keys);
      break;
    case ExprKind::InArray:
      out.insert(static_cast<const InArrayExpr*>(e)->array->sym);
      all(static_cast<const InArrayExpr*>(e)->keys);
      break;
    case ExprKind::Call:
      all(static_cast<const CallExpr*>(e)->args);
      break;
    case ExprKind::AtOp:
      all(static_cast<const AtOpExpr*>(e)->args);
      for (const TargetComponent& c : static_cast<const AtOpExpr*>(e)->components) named_symbols(c.index, out);
      break;
    case ExprKind::Target:
      for (const TargetComponent& c : static_cast<const TargetExpr*>(e)->components) named_symbols(c.index, out);
      break;
    case ExprKind::Unary:
      named_symbols(static_cast<const UnaryExpr*>(e)->operand, out);
      break;
    case ExprKind::Binary:
      named_symbols(static_cast<const BinaryExpr*>(e)->lhs, out);
      named_symbols(static_cast<const BinaryExpr*>(e)->rhs, out);
      break;
    case ExprKind::Ternary:
      named_symbols(static_cast<const TernaryExpr*>(e)->cond, out);
      named_symbols(static_cast<const TernaryExpr*>(e)->then, out);
      named_symbols(static_cast<const TernaryExpr*>(e)->els, out);
      break;
    case ExprKind::Assign:
      named_symbols(static_cast<const AssignExpr*>(e)->lhs, out);
      named_symbols(static_cast<const AssignExpr*>(e)->rhs, out);
      break;
    case ExprKind::Member:
      named_symbols(static_cast<const MemberExpr*>(e)->base, out);
      break;
    default:
      break;
  }
}

// reads_only: leave out the variable a plain "x = ..." statement stores to.
void named_symbols(Stmt* s, std::set<const Symbol*>& out, bool reads_only = false) {
  each_stmt(s, [&](Stmt*& st) {
    switch (st->kind) {
      case StmtKind::Expr: {
        Expr* e = static_cast<ExprStmt*>(st)->expr;
        if (reads_only && e->kind == ExprKind::Assign && static_cast<AssignExpr*>(e)->op == Op::Assign &&
            static_cast<AssignExpr*>(e)->lhs->kind == ExprKind::Var)
          e = static_cast<AssignExpr*>(e)->rhs;
        named_symbols(e, out);
        break;
      }
      case StmtKind::If:
        named_symbols(static_cast<IfStmt*>(st)->cond, out);
        break;
      case StmtKind::While:
        named_symbols(static_cast<WhileStmt*>(st)->cond, out);
        break;
      case StmtKind::For: {
        auto* f = static_cast<ForStmt*>(st);
        named_symbols(f->init, out);
        named_symbols(f->cond, out);
        named_symbols(f->incr, out);
        break;
      }
      case StmtKind::Foreach: {
        auto* f = static_cast<ForeachStmt*>(st);
        if (f->value) out.insert(f->value->sym);
        for (const VarRef* k : f->keys) out.insert(k->sym);
        if (f->array) out.insert(f->array->sym);
        named_symbols(f->limit, out);
        named_symbols(f->histogram, out);
        for (const Expr* x : f->slice) named_symbols(x, out);
        break;
      }
      case StmtKind::Return:
        named_symbols(static_cast<ReturnStmt*>(st)->value, out);
        break;
      case StmtKind::Delete:
        named_symbols(static_cast<DeleteStmt*>(st)->target, out);
        break;
      case StmtKind::Try:
        if (static_cast<TryStmt*>(st)->var) out.insert(static_cast<TryStmt*>(st)->var->sym);
        break;
      default:
        break;
    }
  });
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
void Elaborator::elide_dead_code() {
  std::vector<Stmt**> bodies;
  for (Script* script : prog_.scripts)
    for (ProbeDecl* p : script->probes) bodies.push_back(reinterpret_cast<Stmt**>(&p->body));
  for (FunctionDecl* f : prog_.functions)
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
        if (a->op != Op::Assign || a->lhs->kind != ExprKind::Var) return;
        Symbol* sym = static_cast<VarRef*>(a->lhs)->sym;
        if (!sym || sym->scope != Symbol::Scope::Local || (round ? reads.count(sym) > 0 : sym->used)) return;
        if (in_user_code(a->op_loc)) diags_.report(DiagId::WarnElideAssign, a->op_loc, sym->name);
        es->expr = a->rhs;
        es->loc = a->lhs->loc;
        changed = true;
      });
    }
    for (Stmt** body : bodies) {
      each_stmt(*body, [&](Stmt*& s) {
        if (s->kind != StmtKind::Expr || !side_effect_free(static_cast<ExprStmt*>(s)->expr, !in_user_code(s->loc)))
          return;
        if (in_user_code(s->loc)) diags_.report(DiagId::WarnElideExpr, s->loc);
        s = arena_.make<SimpleStmt>(s->loc, StmtKind::Null);
        changed = true;
      });
    }
    if (!changed) break;
  }
  for (Script* script : prog_.scripts)
    for (ProbeDecl* p : script->probes) drop_unnamed_locals(p->body, p->locals);
  for (FunctionDecl* f : prog_.functions)
    if (!f->is_embedded && f->body) drop_unnamed_locals(f->body, f->locals);
}

// -G NAME=VALUE replaces NAME's initializer, as stap's module parameters do:
// a number for a long global, the text for a string one. Like stap, a name
// that is no global of the script is ignored, and -G types nothing.
void Elaborator::apply_global_values(const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    auto it = globals_.find(name);
    if (it == globals_.end() || !referenced_.count(it->second)) continue;
    Symbol* g = it->second;
    if (g->arity > 0) {
      diags_.report(DiagId::SemGlobalValue, g->decl, name, "it is an array");
      continue;
    }
    if (g->type == Type::String) {
      auto* lit = arena_.make<StringLit>(g->decl);
      lit->value = arena_.keep(value);
      g->init = lit;
    } else if (g->type == Type::Long) {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(value.c_str(), &end, 0);
      if (*end || errno) {
        diags_.report(DiagId::SemGlobalValue, g->decl, name, "'" + value + "' is not a number");
        continue;
      }
      auto* lit = arena_.make<NumberLit>(g->decl);
      lit->value = v;
      g->init = lit;
    } else {
      continue;  // unresolved: reported below
    }
    g->assigned = true;
  }
}

// @entry(expr) runs at the function's entry, where the probe holds no
// lock on globals: the expression (and what it calls) may read none. What
// is saved is a number or a string.
void Elaborator::check_entry_exprs() {
  for (auto [a, pseudo] : entry_exprs_) {
    Type t = a->args[0]->type;
    if (t != Type::Long && t != Type::String && reported_.insert(a).second)
      diags_.report(DiagId::SemUnresolvedType, a->args[0]->loc);
    std::set<int> globals(pseudo->global_reads.begin(), pseudo->global_reads.end());
    globals.insert(pseudo->global_writes.begin(), pseudo->global_writes.end());
    std::set<FunctionDecl*> seen;
    std::vector<FunctionDecl*> todo(pseudo->callees.begin(), pseudo->callees.end());
    while (!todo.empty()) {
      FunctionDecl* f = todo.back();
      todo.pop_back();
      if (!seen.insert(f).second) continue;
      globals.insert(f->global_reads.begin(), f->global_reads.end());
      globals.insert(f->global_writes.begin(), f->global_writes.end());
      todo.insert(todo.end(), f->callees.begin(), f->callees.end());
    }
    if (!globals.empty())
      diags_.report(DiagId::SemEntryGlobal, a->loc, prog_.globals.at(*globals.begin())->name);
  }
}

// Static variables and @var are read at link-time addresses; the module
// moves them as KASLR moved the kernel, measured on init_task.
void Elaborator::relocate_link_addresses() {
  std::optional<SourceLoc> first;
  for (const auto& [e, access] : prog_.targets)
    if (!first && uses_link_address(access)) first = e->loc;
  for (const auto& [decl, saves] : prog_.entry_saves)
    for (const TargetAccess& access : saves)
      if (!first && uses_link_address(access)) first = decl->loc;
  if (!first) return;
  debug::DebugInfo* di = probe_ctx_.env->debuginfo(diags_, *first);
  if (!di) return;
  prog_.kaslr_anchor = di->symbol_address("init_task");
  if (!prog_.kaslr_anchor)
    diags_.report(DiagId::SemTargetLocation, *first, "a static variable", 0,
                  "a link-time address, and the kernel's symbol table lacks init_task to relocate it");
}

void Elaborator::run(const ElaborateOptions& opts) {
  probe_ctx_ = opts.probes;
  stapusr_ = opts.stapusr;
  library_ = opts.library;
  if (!probe_ctx_.env) probe_ctx_.env = &own_env_;
  collect();
  expand_aliases();
  lower_conditions();
  size_t errors = diags_.errors();
  resolve_probes();
  // A probe point that does not resolve ends pass 2 there, as in stap: its
  // body's $vars would only be reported again as unresolved.
  if (diags_.errors() > errors) return;

  // Function parameters are symbols before any body is resolved, so that
  // calls can unify argument types with them.
  for (auto& [name, f] : functions_) {
    for (const Param& p : f->params) {
      Symbol* sym = new_symbol(p.name, Symbol::Scope::Param, p.loc);
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
    prog_.functions.push_back(f);
  }
  // Probe bodies first, then functions: stap's order, so that a conflict
  // (an array's arity) is reported where stap reports it.
  for (Script* script : prog_.scripts) {
    for (ProbeDecl* p : script->probes) {
      // Accesses are recorded through a pseudo-function standing for the body.
      auto& pseudo = pseudo_fns_.emplace_back();
      probe_bodies_[p] = &pseudo;
      Scope sc{{}, &p->locals, &pseudo};
      sc.probe = true;
      sc.decl = p;
      resolve_stmt(p->body, sc);
    }
  }
  for (FunctionDecl* f : prog_.functions) {
    Scope sc{{}, &f->locals, f};
    for (Symbol* p : f->param_syms) sc.names[p->name] = p;
    resolve_stmt(f->body, sc);
  }
  infer_all();
  for (FunctionDecl* f : prog_.functions) check_stmt(f->body);
  for (Script* script : prog_.scripts)
    for (ProbeDecl* p : script->probes) check_stmt(p->body);
  check_foreach_calls();
  if (!opts.keep_unused && diags_.errors() == 0) elide_dead_code();
  drop_unreferenced_globals();
  apply_global_values(opts.global_values);
  for (Symbol* g : prog_.globals) {
    if (g->arity < 0) {
      g->arity = 0;  // declared but never used: a scalar
    }
    if (g->type == Type::Unknown && reported_.insert(g).second)
      diags_.report(DiagId::SemUnresolvedType, g->decl);
  }
  compute_access();
  report_privileged();
  check_entry_exprs();
  relocate_link_addresses();
  if (!opts.keep_unused)
    std::erase_if(prog_.functions, [](FunctionDecl* f) { return !f->used; });
  compile_submatch();

  // Call depth bounds MAXNESTING: recursion gets ten extra levels, as stap.
  std::map<FunctionDecl*, int> depth;
  std::function<int(FunctionDecl*, std::set<FunctionDecl*>&)> walk =
      [&](FunctionDecl* f, std::set<FunctionDecl*>& stack) -> int {
    if (stack.count(f)) {
      prog_.recursive = true;
      return 0;
    }
    if (auto it = depth.find(f); it != depth.end()) return it->second;
    stack.insert(f);
    int d = 0;
    for (FunctionDecl* c : f->callees) d = std::max(d, walk(c, stack));
    stack.erase(f);
    return depth[f] = d + 1;
  };
  int deepest = 0;
  for (auto& [p, body] : probe_bodies_) {
    std::set<FunctionDecl*> stack;
    for (FunctionDecl* c : body->callees) deepest = std::max(deepest, walk(c, stack));
  }
  prog_.max_nesting = std::max(1, deepest) + (prog_.recursive ? 10 : 0);
  for (FunctionDecl* f : foreach_in_functions_) {
    std::set<FunctionDecl*> stack;
    std::function<bool(FunctionDecl*)> reaches = [&](FunctionDecl* g) {
      for (FunctionDecl* c : g->callees) {
        if (c == f) return true;
        if (stack.insert(c).second && reaches(c)) return true;
      }
      return false;
    };
    if (reaches(f)) diags_.report(DiagId::SemUnsupported, f->loc, "foreach in a recursive function");
  }

  if (prog_.probes.empty() && diags_.errors() == 0) diags_.report(DiagId::SemNoProbes, SourceLoc{});
}

}  // namespace

Program elaborate(std::vector<Script*> scripts, const ElaborateOptions& opts, Arena& arena, DiagSink& diags) {
  Program prog;
  prog.scripts = std::move(scripts);
  Elaborator(prog, arena, diags).run(opts);
  return prog;
}

}  // namespace stapx
