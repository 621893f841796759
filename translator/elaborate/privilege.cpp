// --privilege=stapusr: what name resolution finds an unprivileged user
// may not do (embedded C not marked safe for them, kernel memory through
// $var, @cast or @var), reported once lock sets show what probes reach.
#include "translator/elaborate/resolver.h"

#include <set>
#include <string>
#include <utility>

namespace stapx::elab {

using namespace ast;

// --privilege=stapusr: an embedded-C function (only tapsets have them then)
// is usable only if it says it is safe for an unprivileged user:
// /* unprivileged */, or /* myproc-unprivileged */ (it may only look at the
// user's own processes, which the module checks when it is called). As
// stap, the error points at the function, once.
void Resolver::check_unprivileged_call(CallExpr* c, FunctionDecl* in) {
  const FunctionDecl* f = c->fn;
  if (!f->is_embedded || f->has_pragma("unprivileged")) return;
  if (f->has_pragma("myproc-unprivileged")) {
    c->check_myproc = true;
    return;
  }
  elab_.privileged.push_back({in, DiagId::SemFunctionNeedsPrivilege, f->name_loc.valid() ? f->name_loc : f->loc, ""});
}

void Resolver::note_kernel_memory(Expr* e, const std::string& what, Scope& sc) {
  if (elab_.stapusr) elab_.privileged.push_back({sc.fn, DiagId::SemKernelMemoryNeedsPrivilege, e->loc, what});
}

// After compute_access has marked what the probes reach: library
// functions nothing calls may use anything.
void report_privileged(Elaboration& elab) {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const Elaboration::Privileged& p : elab.privileged) {
    if (p.in && !p.in->name.empty() && !p.in->used) continue;
    if (!seen.insert({p.loc.file, p.loc.offset}).second) continue;
    if (p.what.empty())
      elab.diags.report(p.id, p.loc, "stapusr");
    else
      elab.diags.report(p.id, p.loc, p.what, "stapusr");
  }
}

}  // namespace stapx::elab
