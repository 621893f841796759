// Target expressions (resolver.h): $var, &$var, @cast, @var, @entry and
// @defined, resolved through the probe's debug information into accesses
// that codegen reads.
#include "translator/elaborate/resolver.h"

#include <optional>
#include <ostream>
#include <vector>

#include "translator/debuginfo/debuginfo.h"

namespace stapx::elab {

using namespace ast;

// @defined(EXPR): 1 if EXPR is a literal or a target expression that
// resolves here ($var..., @cast, @var, @entry, &...), else 0. As in stap,
// any other expression ($x + 1, a script variable, a call) is 0, and only
// EXPR itself is tried, not @cast's pointer or an index inside it. EXPR is
// never evaluated: it is resolved on trial, reporting and recording
// nothing, and dropped once its value is known.
void Resolver::resolve_defined(AtOpExpr* a, Scope& sc) {
  a->type = Type::Long;
  bool ok = a->args.size() == 1 && resolves_here(a->args[0], sc);
  if (a->args.size() == 1)
    if (Symbol* v = named_variable(a->args[0], sc)) v->in_defined = true;
  a->args.clear();
  TargetAccess value;
  value.value = debug::loc_const(ok ? 1 : 0);
  elab_.prog.targets[a] = std::move(value);
}

bool Resolver::resolves_here(const Expr* e, Scope& sc) {
  std::ostream null_out(nullptr);
  DiagSink scratch(elab_.diags.sources(), null_out);
  auto it = sc.probe ? elab_.target_specs.find(sc.decl) : elab_.target_specs.end();
  const ProbeSpec* spec = it == elab_.target_specs.end() ? nullptr : it->second;
  std::vector<TargetAccess> saves;  // what an entry save would need: dropped
  auto cast_or_var = [&](const AtOpExpr& at, bool address) {
    bool user = false;
    debug::DebugInfo* di = cast_debuginfo(at, scratch, &user);
    if (!di) return false;
    return (at.op == At::Cast ? resolve_cast(at, *di, scratch, address, user)
                              : resolve_var(at, *di, scratch, address, user))
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
      return at && (at->op == At::Cast || at->op == At::Var) && cast_or_var(*at, true);
    }
    case ExprKind::AtOp: {
      const auto* at = static_cast<const AtOpExpr*>(e);
      if (at->op == At::Defined) return true;  // itself a literal once resolved
      if (at->op == At::Cast || at->op == At::Var) return cast_or_var(*at, false);
      if (at->op != At::Entry) return false;
      if (!sc.probe || !elab_.return_decls.count(sc.decl) || at->args.size() != 1 || !at->components.empty() ||
          !at->pretty.empty())
        return false;
      if (at->args[0]->kind != ExprKind::Target) return true;  // a script expression, saved at entry
      return spec && resolve_entry(*static_cast<const TargetExpr*>(at->args[0]), *spec->site, saves, scratch);
    }
    case ExprKind::Member:
      // v->field: as v's stores so far say (a global's in earlier probes).
      return try_autocast(elab_, *static_cast<const MemberExpr*>(e), named_variable(e, sc)).has_value();
    case ExprKind::Var:
    case ExprKind::Index:
    case ExprKind::Call:
    case ExprKind::Binary:
    case ExprKind::Ternary:
    case ExprKind::Assign:
    case ExprKind::InArray:
    case ExprKind::Embedded:
    case ExprKind::Wildcard:
      return false;
  }
  return false;  // not a kind
}

// The variable known so far that `v` or `v->field...` names, if any; the
// expression is not resolved.
Symbol* Resolver::named_variable(const Expr* e, Scope& sc) const {
  if (e->kind == ExprKind::Member) e = static_cast<const MemberExpr*>(e)->base;
  if (e->kind != ExprKind::Var) return nullptr;
  std::string_view name = static_cast<const VarRef*>(e)->name;
  if (auto it = sc.names.find(name); it != sc.names.end()) return it->second;
  auto g = elab_.globals.find(name);
  return g == elab_.globals.end() ? nullptr : g->second;
}

// The debug information @cast/@var reads: the kernel's, or that of the
// program @var's second argument names, or of the module @cast's third
// argument names, or of the first in a list
// ("kernel:scsi_mod") that has the type. Null, reported to `sink`, if
// there is none; a kernel module's path or a wildcard is reported as not
// implemented whoever asks. A user-space header ("<sys/un.h>") or program
// ("/usr/bin/prog", through its DWARF) gives its types, and sets `*user`:
// the memory they describe is user space's.
debug::DebugInfo* Resolver::cast_debuginfo(const AtOpExpr& a, DiagSink& sink, bool* user) {
  if (a.op == At::Var) {
    // @var("name", "/path/prog"): the program's DWARF, its memory user space's.
    std::string module = var_module(a);
    if (!names_user_binary(module)) return elab_.probe_ctx.env->debuginfo(sink, a.loc);
    if (user) *user = true;
    std::string why;
    debug::DebugInfo* di = elab_.probe_ctx.env->binary_debuginfo(module, why);
    if (!di) sink.report(DiagId::SemVarProgram, a.args[1]->loc, module, why);
    return di;
  }
  std::string module = a.op == At::Cast ? cast_module(a) : "";
  if (module.empty() || a.args[1]->kind != ExprKind::String)  // resolve_cast reports a bad type name
    return elab_.probe_ctx.env->debuginfo(sink, a.loc);
  std::vector<std::string> parts;
  for (size_t at = 0;;) {
    size_t colon = module.find(':', at);
    parts.push_back(module.substr(at, colon == std::string::npos ? std::string::npos : colon - at));
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  for (const std::string& m : parts)
    if (m.empty() || (!names_kernel(m) && !names_user_headers(m) && !names_user_binary(m) &&
                      m.find_first_of("/<*?[") != std::string::npos)) {
      elab_.diags.report(DiagId::SemUnsupported, a.args[2]->loc,
                         "@cast into a kernel module given by a path or a wildcard");
      return nullptr;
    }
  if (parts.size() == 1) {
    if (names_user_binary(module)) {  // (a program's types: its memory is user space's)
      if (user) *user = true;
      std::string why;
      debug::DebugInfo* di = elab_.probe_ctx.env->binary_debuginfo(module, why);
      if (!di) sink.report(DiagId::SemCastHeader, a.loc, static_cast<const StringLit*>(a.args[1])->value, module, why);
      return di;
    }
    if (names_user_headers(module)) {
      if (user) *user = true;
      std::string why;
      debug::DebugInfo* di = elab_.probe_ctx.env->header_debuginfo(module, why);
      if (!di)  // (at @cast, as stap)
        sink.report(DiagId::SemCastHeader, a.loc, static_cast<const StringLit*>(a.args[1])->value, module, why);
      return di;
    }
    auto found = elab_.probe_ctx.env->module_debuginfo(module, sink, a.args[2]->loc);
    return found.empty() ? nullptr : found[0].second;
  }
  // A list: the first that defines the type; one without debug
  // information is passed over, as one without the type is.
  std::ostream null_out(nullptr);
  DiagSink quiet(elab_.diags.sources(), null_out);
  const std::string type(static_cast<const StringLit*>(a.args[1])->value);
  for (const std::string& m : parts) {
    debug::DebugInfo* di = nullptr;
    if (names_kernel(m)) {
      di = elab_.probe_ctx.env->debuginfo(quiet, a.loc);
    } else if (names_user_headers(m) || names_user_binary(m)) {
      std::string why;
      di = names_user_binary(m) ? elab_.probe_ctx.env->binary_debuginfo(m, why)
                                : elab_.probe_ctx.env->header_debuginfo(m, why);
      if (di && di->find_type(type) && user) *user = true;
    } else {
      auto found = elab_.probe_ctx.env->module_debuginfo(m, quiet, a.args[2]->loc, /*optional=*/true);
      if (!found.empty()) di = found[0].second;
    }
    if (di && di->find_type(type)) return di;
  }
  sink.report(DiagId::SemCastNoType, a.loc, type, module);
  return nullptr;
}

// 1 or 0 for a condition whose value is known now: @defined, with !, &&
// and || (either side known to be 0 makes && 0, and so on); with
// `literals`, numbers too (if (0), while (0), 0 && x: code stap drops
// before it resolves target variables). Not for ?:, where, as in stap,
// `1 ? 2 : "three"` is still a type error. Not with -u, which keeps all.
int Resolver::constant_condition(const Expr* e, bool literals) const {
  switch (e->kind) {
    case ExprKind::AtOp: {
      if (static_cast<const AtOpExpr*>(e)->op != At::Defined) return -1;
      auto it = elab_.prog.targets.find(e);
      return it == elab_.prog.targets.end() ? -1 : static_cast<int>(it->second.value->value);
    }
    case ExprKind::Unary: {
      const auto* u = static_cast<const UnaryExpr*>(e);
      if (u->op != Op::Not) return -1;
      int inner = constant_condition(u->operand, literals);
      return inner < 0 ? -1 : !inner;
    }
    case ExprKind::Binary: {
      const auto* b = static_cast<const BinaryExpr*>(e);
      if (b->op != Op::LogAnd && b->op != Op::LogOr) return -1;
      int l = constant_condition(b->lhs, literals), r = constant_condition(b->rhs, literals);
      int absorbing = b->op == Op::LogAnd ? 0 : 1;  // decides alone, on either side
      if (l == absorbing || r == absorbing) return absorbing;
      return l < 0 || r < 0 ? -1 : !absorbing;
    }
    case ExprKind::Number:
      if (!literals || elab_.opts.keep_unused) return -1;
      return static_cast<const NumberLit*>(e)->value != 0;
    case ExprKind::String:
    case ExprKind::Var:
    case ExprKind::Index:
    case ExprKind::Call:
    case ExprKind::Ternary:
    case ExprKind::Assign:
    case ExprKind::InArray:
    case ExprKind::Target:
    case ExprKind::Embedded:
    case ExprKind::Member:
    case ExprKind::Wildcard:
      return -1;
  }
  return -1;  // not a kind
}

// A $name in a probe whose points have no variables: in a program or
// library without DWARF (probed by its symbols), stap's words, which name
// the file; else the unresolved expression.
void Resolver::report_no_variables(SourceLoc at, Scope& sc) {
  for (const ProbeSpec& spec : elab_.prog.probes)
    if (spec.decl == sc.decl && spec.data && !spec.data->user_file().empty()) {
      elab_.diags.report(DiagId::SemTargetNoDebuginfo, at, spec.data->user_file());
      return;
    }
  elab_.diags.report(DiagId::SemTargetContext, at);
}

// &$expr: the address of a target expression that lives in memory; in a
// .return probe only within @entry(...).
void Resolver::resolve_address_of(UnaryExpr* u, Scope& sc) {
  auto* t = static_cast<TargetExpr*>(u->operand);
  auto it = sc.probe ? elab_.target_specs.find(sc.decl) : elab_.target_specs.end();
  if (it == elab_.target_specs.end()) {
    if (sc.probe)
      report_no_variables(t->loc, sc);
    else
      elab_.diags.report(DiagId::SemTargetInFunction, t->loc, sc.fn ? sc.fn->name : "");
    return;
  }
  // (Inside @entry(...) the address is taken at the entry, where the
  // variables it goes through are.)
  if (it->second->is_return && !in_entry_expr_) {
    elab_.diags.report(DiagId::SemUnsupported, u->loc, "'&' on a target variable in a .return probe");
    return;
  }
  std::optional<TargetAccess> access = resolve_address(*t, *it->second->site, elab_.diags);
  if (!access) return;
  u->type = t->type = Type::Long;
  elab_.prog.targets[u] = std::move(*access);
}

// @entry(expr): only in .return probes. A target expression is resolved
// at the function's entry; any other expression is evaluated there.
void Resolver::resolve_entry_expr(AtOpExpr* a, Scope& sc) {
  if (!sc.probe || !elab_.return_decls.count(sc.decl)) {
    elab_.diags.report(DiagId::SemEntryContext, a->loc);
    return;
  }
  if (a->args.size() != 1 || !a->components.empty() || !a->pretty.empty()) {
    elab_.diags.report(DiagId::SemEntryArgs, a->loc);
    return;
  }
  auto it = elab_.target_specs.find(sc.decl);
  if (a->args[0]->kind != ExprKind::Target || it == elab_.target_specs.end()) {
    // A script expression, evaluated when the function is entered; what
    // it touches is recorded apart, to check that it reads no global.
    auto& pseudo = elab_.pseudo_fns.emplace_back();
    Scope entry = sc;
    entry.fn = &pseudo;
    in_entry_expr_ = true;
    resolve_expr(a->args[0], entry);
    in_entry_expr_ = false;
    sc.fn->callees.insert(sc.fn->callees.end(), pseudo.callees.begin(), pseudo.callees.end());
    std::vector<TargetAccess>& saves = elab_.prog.entry_saves[sc.decl];
    TargetAccess save;
    save.entry_expr = a->args[0];
    TargetAccess read;
    read.entry_slot = static_cast<int>(saves.size());
    saves.push_back(std::move(save));
    elab_.prog.targets[a] = std::move(read);
    elab_.entry_exprs.push_back({a, &pseudo, sc.decl});  // typed as the expression (infer)
    return;
  }
  const ProbeSpec& spec = *it->second;
  std::optional<TargetAccess> access =
      resolve_entry(*static_cast<TargetExpr*>(a->args[0]), *spec.site, elab_.prog.entry_saves[sc.decl], elab_.diags);
  if (!access) return;
  access->ctype = nullptr;  // as in stap, @entry's value carries no C type for '->'
  a->type = access->yields_string() ? Type::String : Type::Long;
  a->args[0]->type = a->type;
  elab_.prog.targets[a] = std::move(*access);
}

// $var[i], @cast(...)[i]: an index the script computes is an expression
// of its own (a number needs nothing).
void Resolver::resolve_indices(std::span<TargetComponent> components, Scope& sc) {
  for (TargetComponent& c : components)
    if (c.index && c.index->kind != ExprKind::Number) resolve_expr(c.index, sc);
}

void Resolver::resolve_target_expr(TargetExpr* t, Scope& sc) {
  if (!sc.probe) {
    elab_.diags.report(DiagId::SemTargetInFunction, t->loc, sc.fn ? sc.fn->name : "");
    return;
  }
  if (auto c = elab_.context_specs.find(sc.decl); c != elab_.context_specs.end()) {
    // A name the probe's family gives (procfs's $value).
    const ProbeSpec& spec = *c->second;
    std::optional<ContextVar> var = spec.family->context_var(*t, spec, elab_.diags);
    if (!var) return;
    if (!assigning_ && !var->readable) {
      elab_.diags.report(DiagId::SemProcfsWriteOnly, t->loc);
      return;
    }
    TargetAccess access;
    if (var->formatted) {
      access.is_pretty = true;
      access.format = std::move(var->format);
      for (std::string& part : var->parts) access.parts.emplace_back().context_c = std::move(part);
      t->type = Type::String;
      elab_.prog.targets[t] = std::move(access);
      return;
    }
    access.context_c = std::move(var->c_expr);
    access.context_string = var->is_string && !var->c_string;
    access.context_cstring = var->c_string;
    access.context_writable = var->writable;
    access.context_write_diag = var->write_diag;
    t->type = var->is_string || var->c_string ? Type::String : Type::Long;
    elab_.prog.targets[t] = std::move(access);
    return;
  }
  auto it = elab_.target_specs.find(sc.decl);
  if (it == elab_.target_specs.end()) {
    report_no_variables(t->loc, sc);
    return;
  }
  const ProbeSpec& spec = *it->second;
  // Inside @entry(expr) a parameter is read where it is at the entry.
  bool ret = spec.is_return && !in_entry_expr_;
  if (elab_.probe_ctx.skip_badvars) {
    // Tried first: what does not resolve is 0, as stap's --skip-badvars.
    std::ostream null_out(nullptr);
    DiagSink trial(elab_.diags.sources(), null_out);
    std::vector<TargetAccess> saves;
    std::optional<TargetAccess> tried = resolve_target(*t, *spec.site, ret, ret ? &saves : nullptr, trial);
    if (!tried) {
      elab_.diags.report(DiagId::WarnSkipBadVar, t->loc);
      t->type = Type::Long;
      TargetAccess zero;
      zero.value = debug::loc_const(0);
      elab_.prog.targets[t] = std::move(zero);
      return;
    }
  }
  std::optional<TargetAccess> access =
      resolve_target(*t, *spec.site, ret, ret ? &elab_.prog.entry_saves[sc.decl] : nullptr, elab_.diags);
  if (!access) return;
  t->type = access->yields_string() ? Type::String : Type::Long;
  elab_.prog.targets[t] = std::move(*access);
}

// `$var = ...` (guru mode): the resolved access must name an integer in a
// register or in memory.
void Resolver::mark_target_write(TargetExpr* t, SourceLoc op) {
  auto it = elab_.prog.targets.find(t);
  if (it == elab_.prog.targets.end()) return;  // reported when resolved
  if (!it->second.context_c.empty()) {
    // A family's own $name (procfs's $value): its family says.
    if (!it->second.context_writable) elab_.diags.report(it->second.context_write_diag, t->loc);
    return;
  }
  // Tapset code is privileged, as embedded C in it is.
  if (!elab_.probe_ctx.guru && elab_.in_user_code(t->loc)) {
    elab_.diags.report(DiagId::SemTargetWrite, t->loc);
    return;
  }
  if (const char* why = target_write_problem(it->second)) elab_.diags.report(DiagId::SemTargetNotWritable, op, t->base, why);
}

// `@cast(p, "T")->f = ...`, `@var("v") = ...` (guru mode): as `$var = ...`.
void Resolver::mark_at_write(AtOpExpr* a, SourceLoc op) {
  if (!elab_.probe_ctx.guru && elab_.in_user_code(a->loc)) {
    elab_.diags.report(a->op == At::Cast ? DiagId::SemCastWrite : DiagId::SemVarWrite, a->loc);
    return;
  }
  auto it = elab_.prog.targets.find(a);
  if (it == elab_.prog.targets.end()) return;  // reported when resolved
  if (const char* why = target_write_problem(it->second))
    elab_.diags.report(DiagId::SemTargetNotWritable, op, "@" + std::string(a->name), why);
}

// `p->field = ...` (guru mode): checked once autocast has resolved it.
void Resolver::mark_member_write(MemberExpr* m, SourceLoc op) {
  if (!elab_.probe_ctx.guru && elab_.in_user_code(m->loc)) {
    elab_.diags.report(DiagId::SemMemberWrite, m->components[0].loc);
    return;
  }
  for (auto it = elab_.derefs.rbegin(); it != elab_.derefs.rend(); ++it)
    if (it->m == m) {
      it->write = op;
      return;
    }
}

}  // namespace stapx::elab
