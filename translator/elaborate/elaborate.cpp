// Pass 2: the elaborated program from the parsed scripts, through the
// sub-passes below, in this order (elaboration.h says what each hands on):
//
//   collect_declarations     globals and functions (duplicates are errors)
//   cut_after_sufficient     a list's points after the first "!" one that
//                            resolves are dropped, unresolved
//   expand_aliases           probes on aliases become probes on their points
//   lower_probe_conditions   "probe P if (cond)": a guard at the body's start
//   resolve_probe_points     points through the probe families; a point that
//                            resolves to nothing ends pass 2 there, as in stap
//   resolve_names            every name, call and target expression of the
//                            bodies; what each reads, writes and calls
//   infer_types              types to a fixpoint across probes and functions
//   check_types              what inference could not settle, printf formats
//   elide_dead_code          unread stores and effect-free statements (not -u)
//   elide_empty_probes       probes whose bodies are left doing nothing
//   drop_unreferenced_globals, apply_global_values (-G), check_global_types
//   compute_lock_sets        each probe's transitive global reads and writes
//   report_privileged        --privilege=stapusr, for what probes reach
//   check_entry_exprs, relocate_link_addresses
//   (unused functions dropped, not with -u), compile_submatches
//   bound_call_depth         MAXNESTING from the deepest call chain
//
// Each step needs the ones before it: names need the probe points (a
// $var needs its probe's debug site), types need names, the checks need
// types, lock sets need the dead code gone, privilege reports need to
// know which functions probes reach.
#include "translator/elaborate/elaborate.h"

#include <algorithm>

#include "translator/elaborate/elaboration.h"

namespace stapx {

namespace elab {

Elaboration::Elaboration(Program& prog, ast::Arena& arena, DiagSink& diags, const ElaborateOptions& opts)
    : prog(prog), arena(arena), diags(diags), opts(opts), probe_ctx(opts.probes), stapusr(opts.stapusr),
      library(opts.library) {
  if (!probe_ctx.env) probe_ctx.env = &own_env;
  prog.unprivileged = opts.stapusr;
}

ast::Symbol* Elaboration::new_symbol(std::string_view name, ast::Symbol::Scope scope, SourceLoc loc) {
  ast::Symbol& s = prog.symbols.emplace_back();
  s.name = name;
  s.scope = scope;
  s.decl = loc;
  return &s;
}

namespace {

void run(Elaboration& elab) {
  collect_declarations(elab);
  cut_after_sufficient(elab);
  expand_aliases(elab);
  lower_probe_conditions(elab);
  size_t errors = elab.diags.errors();
  resolve_probe_points(elab);
  // A probe point that does not resolve ends pass 2 there, as in stap: its
  // body's $vars would only be reported again as unresolved.
  if (elab.diags.errors() > errors) return;
  resolve_names(elab);
  resolve_autocasts(elab);
  infer_types(elab);
  check_types(elab);
  if (!elab.opts.keep_unused && elab.diags.errors() == 0) {
    std::set<const ast::ProbeDecl*> busy_aliases = probes_on_busy_aliases(elab);
    elide_dead_code(elab);
    if (!elab.opts.keep_empty_probes) elide_empty_probes(elab, busy_aliases);
  }
  drop_unreferenced_globals(elab);
  apply_global_values(elab);
  check_global_types(elab);
  compute_lock_sets(elab);
  report_privileged(elab);
  check_entry_exprs(elab);
  relocate_link_addresses(elab);
  if (!elab.opts.keep_unused)
    std::erase_if(elab.prog.functions, [](ast::FunctionDecl* f) { return !f->used; });
  kernel_line_table(elab);
  compile_submatches(elab);
  bound_call_depth(elab);
  if (elab.prog.probes.empty() && elab.diags.errors() == 0) elab.diags.report(DiagId::SemNoProbes, SourceLoc{});
}

}  // namespace

}  // namespace elab

Program elaborate(std::vector<ast::Script*> scripts, const ElaborateOptions& opts, ast::Arena& arena,
                  DiagSink& diags) {
  Program prog;
  prog.scripts = std::move(scripts);
  elab::Elaboration state(prog, arena, diags, opts);
  elab::run(state);
  return prog;
}

}  // namespace stapx
