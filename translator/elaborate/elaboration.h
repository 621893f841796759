// Pass 2's sub-passes and what they hand each other. elaborate.cpp runs
// them in order (the one place to read it); each lives in its own file.
// Shared state is the Elaboration below, every field saying which pass
// fills it and which read it; state a pass alone needs stays in that pass.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "translator/elaborate/elaborate.h"
#include "translator/elaborate/program.h"
#include "translator/elaborate/target_access.h"
#include "translator/probes/probe_env.h"

namespace stapx::elab {

constexpr int kMaxKeys = 9;  // keys of an array, as stap

struct Elaboration {
  Elaboration(Program& prog, ast::Arena& arena, DiagSink& diags, const ElaborateOptions& opts);

  Program& prog;
  ast::Arena& arena;
  DiagSink& diags;
  const ElaborateOptions& opts;
  ProbeEnv own_env;  // a bare target, when the caller gives none
  ProbeContext probe_ctx;  // opts.probes, with own_env for a missing env
  bool stapusr;  // --privilege=stapusr
  const TapsetIndex* library;  // may be null

  // declarations: globals by name; every function by name, an overload
  // (same name, another parameter count) filed as "NAME/N"; name -> arity.
  std::map<std::string, ast::Symbol*, std::less<>> globals;
  std::map<std::string, ast::FunctionDecl*> functions;
  std::map<std::string, std::map<size_t, ast::FunctionDecl*>, std::less<>> overloads;
  // lower_probe_conditions: the conditions it turned into guards, read by
  // resolve_names (globals only) and infer_types (typed first).
  std::set<const ast::Expr*> conditions;
  // resolve_probe_points: probes with debug sites, and probes whose every
  // point is a .return (a kretprobe).
  std::map<const ast::ProbeDecl*, const ProbeSpec*> target_specs;
  std::set<const ast::ProbeDecl*> return_decls;
  // Probes whose every point is in user space (a program's or library's
  // file): their $vars read the probed process's memory.
  std::set<const ast::ProbeDecl*> user_decls;
  // Probes whose every point is of a family with $names of its own
  // (procfs's $value), with that point (one per probe after the split).
  std::map<const ast::ProbeDecl*, const ProbeSpec*> context_specs;

  // resolve_names: each probe body records its accesses and calls on a
  // pseudo-function (read by compute_lock_sets and bound_call_depth).
  std::deque<ast::FunctionDecl> pseudo_fns;
  std::map<ast::ProbeDecl*, ast::FunctionDecl*> probe_bodies;
  std::set<const ast::Symbol*> referenced;  // globals some body names
  // Calls made inside foreach loops, with the arrays iterated there
  // (check_types); functions holding a foreach (bound_call_depth).
  struct ForeachCall {
    ast::CallExpr* call;
    std::vector<ast::Symbol*> arrays;
  };
  std::vector<ForeachCall> foreach_calls;
  std::set<ast::FunctionDecl*> foreach_in_functions;
  // @entry(expr) of script expressions, with the pseudo-function their
  // accesses were recorded on and their probe (check_entry_exprs).
  struct EntryExpr {
    ast::AtOpExpr* at;
    ast::FunctionDecl* pseudo;
    const ast::ProbeDecl* probe;
  };
  std::vector<EntryExpr> entry_exprs;
  // resolve_names, for autocast (autocast.cpp): each plain store `v = e`
  // into a scalar, and each `e->field...` waiting for the C type of its
  // base, with the '&' taken of it or the store into it, if any.
  struct Store {
    ast::Symbol* sym;
    const ast::Expr* value;
  };
  struct Deref {
    ast::MemberExpr* m;
    ast::Expr* node;  // m, or &m
    SourceLoc write;  // valid: m is assigned to (guru mode)
  };
  std::vector<Store> stores;
  std::vector<Deref> derefs;
  // What --privilege=stapusr refuses, found while resolving; reported
  // for probe bodies and the functions they reach only (report_privileged).
  struct Privileged {
    ast::FunctionDecl* in;  // the probe body's pseudo-function, or the function
    DiagId id;
    SourceLoc loc;
    std::string what;  // "@cast", ...; empty for SemFunctionNeedsPrivilege
  };
  std::vector<Privileged> privileged;
  // infer_types: each regex pattern's first =~ (compile_submatches).
  std::map<std::string, const ast::BinaryExpr*> regex_sites;
  // Every pass: what has been reported once (a symbol, an expression...).
  std::set<const void*> reported;

  ast::Symbol* new_symbol(std::string_view name, ast::Symbol::Scope scope, SourceLoc loc);
  // Warnings are about the user's code: a library alias's prologue that
  // sets variables this probe never reads is elided without a word.
  bool in_user_code(SourceLoc loc) const {
    return !loc.valid() || !diags.sources().file(diags.sources().resolve(loc).first.file).is_tapset;
  }
};

// The sub-passes, in the order elaborate.cpp runs them.
void collect_declarations(Elaboration& elab);     // declarations.cpp
void cut_after_sufficient(Elaboration& elab);     // sufficient_points.cpp
void expand_aliases(Elaboration& elab);           // probe_aliases.cpp
void lower_probe_conditions(Elaboration& elab);   // probe_aliases.cpp
void resolve_probe_points(Elaboration& elab);     // probe_points.cpp
void resolve_names(Elaboration& elab);            // resolve_names.cpp, resolve_targets.cpp
void resolve_autocasts(Elaboration& elab);        // autocast.cpp
void infer_types(Elaboration& elab);              // infer_types.cpp
void check_types(Elaboration& elab);              // check_types.cpp
void elide_dead_code(Elaboration& elab);          // dead_code.cpp
// (Which probes on aliases to keep is decided before elide_dead_code.)
std::set<const ast::ProbeDecl*> probes_on_busy_aliases(const Elaboration& elab);  // dead_code.cpp
void elide_empty_probes(Elaboration& elab, const std::set<const ast::ProbeDecl*>& keep);  // dead_code.cpp
void drop_unreferenced_globals(Elaboration& elab);  // dead_code.cpp
void apply_global_values(Elaboration& elab);      // declarations.cpp
void check_global_types(Elaboration& elab);       // check_types.cpp
void compute_lock_sets(Elaboration& elab);        // lock_sets.cpp
void report_privileged(Elaboration& elab);        // privilege.cpp
void check_entry_exprs(Elaboration& elab);        // target_checks.cpp
void relocate_link_addresses(Elaboration& elab);  // target_checks.cpp
void kernel_line_table(Elaboration& elab);        // target_checks.cpp
void compile_submatches(Elaboration& elab);       // infer_types.cpp
void bound_call_depth(Elaboration& elab);         // recursion.cpp

// The aliases a probe point written in a probe names, each with the name
// it matched (probe_aliases.cpp): the whole point's, else those of its
// longest beginning that names one; `used` (if given) is told how many
// components that is, the rest being a suffix.
std::vector<std::pair<ast::AliasDecl*, ast::ProbePoint*>> aliases_named(const Elaboration& elab,
                                                                        const ast::ProbePoint& point,
                                                                        size_t* used = nullptr);

// e->field... for @defined (autocast.cpp): what it reads, given the
// stores and '->' recorded so far and `base`, the symbol e names (null if
// e is no variable); nullopt if it does not resolve. Reports nothing.
std::optional<TargetAccess> try_autocast(Elaboration& elab, const ast::MemberExpr& m, const ast::Symbol* base);

// Where a type error in `e` is shown: its first token, for p->f the '->',
// for a binary operation its operator, as stap shows them.
inline SourceLoc type_error_site(const ast::Expr* e) {
  if (e->kind == ast::ExprKind::Member) return static_cast<const ast::MemberExpr*>(e)->components[0].loc;
  if (e->kind == ast::ExprKind::Binary) return static_cast<const ast::BinaryExpr*>(e)->op_loc;
  return e->loc;
}

// Statistics operators (resolve_names.cpp), shared by the passes above.
bool is_histogram(const ast::AtOpExpr* a);    // @hist_log(s), @hist_linear(s, lo, hi, step)
bool is_bucket_read(const ast::AtOpExpr* a);  // @hist_log(s)[i]: one bucket's count
bool is_stat_read(const ast::AtOpExpr* a);    // @count(s) ... @variance(s[, shift])

}  // namespace stapx::elab
