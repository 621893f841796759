// Target checks once every function is resolved: @entry expressions save
// a number or a string, and the globals they use are known; link-time addresses (static
// variables, @var) get the anchor the module relocates them by.
#include "translator/elaborate/elaboration.h"

#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "translator/debuginfo/debuginfo.h"

namespace stapx::elab {

using namespace ast;

// @entry(expr) runs at the function's entry, apart from the probe's
// handler: the globals the expression (and what it calls) reads and
// writes are locked there on their own (Program::entry_globals). What is
// saved is a number or a string.
void check_entry_exprs(Elaboration& elab) {
  for (const Elaboration::EntryExpr& e : elab.entry_exprs) {
    Type t = e.at->args[0]->type;
    if (t != Type::Long && t != Type::String && elab.reported.insert(e.at).second)
      elab.diags.report(DiagId::SemUnresolvedType, e.at->args[0]->loc);
    Program::EntryGlobals& globals = elab.prog.entry_globals[e.probe];
    std::set<FunctionDecl*> seen;
    std::vector<FunctionDecl*> todo{e.pseudo};
    while (!todo.empty()) {
      FunctionDecl* f = todo.back();
      todo.pop_back();
      if (!seen.insert(f).second) continue;
      globals.reads.insert(f->global_reads.begin(), f->global_reads.end());
      globals.writes.insert(f->global_writes.begin(), f->global_writes.end());
      todo.insert(todo.end(), f->callees.begin(), f->callees.end());
    }
    if (globals.reads.empty() && globals.writes.empty()) elab.prog.entry_globals.erase(e.probe);
  }
}

// Static variables and @var are read at link-time addresses, and
// kernel.data("symbol") watches one; the module moves them as KASLR moved
// the kernel, measured on init_task.
void relocate_link_addresses(Elaboration& elab) {
  std::optional<SourceLoc> first;
  for (const auto& [e, access] : elab.prog.targets)
    if (!first && uses_link_address(access)) first = e->loc;
  for (const auto& [decl, saves] : elab.prog.entry_saves)
    for (const TargetAccess& access : saves)
      if (!first && uses_link_address(access)) first = decl->loc;
  for (const ProbeSpec& spec : elab.prog.probes)
    if (!first && spec.link_address) first = spec.point->loc;
  if (!first) return;
  debug::DebugInfo* di = elab.probe_ctx.env->debuginfo(elab.diags, *first);
  if (!di) return;
  elab.prog.kaslr_anchor = di->symbol_address("init_task");
  if (!elab.prog.kaslr_anchor)
    elab.diags.report(DiagId::SemTargetLocation, *first, "a static variable", 0,
                  "a link-time address, and the kernel's symbol table lacks init_task to relocate it");
}

// symfile(), symline(), symfileline() and print_backtrace_fileline() (the
// library functions marked /* stapx:kernel-lines */) read the kernel's
// line table, which the module then holds: read here for a script that
// calls one of them (a few megabytes in the module), with the
// KASLR anchor that moves its addresses. Without DWARF (BTF only) the
// table is empty, and a warning says that addresses stay in hex.
void kernel_line_table(Elaboration& elab) {
  const ast::FunctionDecl* user = nullptr;
  for (const ast::FunctionDecl* f : elab.prog.functions)
    if (!user && f->has_pragma("stapx:kernel-lines")) user = f;
  if (!user || !elab.probe_ctx.env) return;
  auto lines = std::make_shared<Program::KernelLines>();
  elab.prog.kernel_lines = lines;
  debug::DebugInfo* di = elab.probe_ctx.env->debuginfo(elab.diags, user->name_loc);
  if (!di) return;
  lines->rows = di->line_rows(lines->files);
  if (lines->rows.empty()) {
    elab.diags.report(DiagId::WarnNoKernelLines, user->name_loc, user->name, di->source(),
                      elab.probe_ctx.env->release());
    return;
  }
  if (!elab.prog.kaslr_anchor) elab.prog.kaslr_anchor = di->symbol_address("init_task");
  if (!elab.prog.kaslr_anchor) lines->rows.clear();  // (cannot be placed in the running kernel)
}

}  // namespace stapx::elab
