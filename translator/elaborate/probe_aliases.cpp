// Probe aliases and probe point conditions, before any point resolves:
// a probe on an alias becomes probes on the alias's points, and a point
// with "if (cond)" a probe of its own whose body starts with a guard.
#include "translator/elaborate/elaboration.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "frontend/ast_clone.h"
#include "support/glob.h"

namespace stapx::elab {

using namespace ast;

namespace {

class AliasExpander {
 public:
  explicit AliasExpander(Elaboration& elab) : elab_(elab) {}
  void expand_probe(ProbeDecl* p, std::vector<ProbeDecl*>& out, int depth);

 private:
  Elaboration& elab_;
  // The alias points being expanded, outermost first (each an alias's
  // target, copied with its location): one met again is a cycle.
  std::vector<SourceLoc> expanding_;
};

bool component_matches(const ProbePointComponent& p, const ProbePointComponent& n) {
  if (!support::glob_match(p.name, n.name)) return false;
  if (!p.arg != !n.arg) return false;
  if (p.arg && p.arg->kind != n.arg->kind) return false;
  if (p.arg && p.arg->kind == ExprKind::Number &&
      static_cast<NumberLit*>(p.arg)->value != static_cast<NumberLit*>(n.arg)->value)
    return false;
  if (p.arg && p.arg->kind == ExprKind::String &&
      static_cast<StringLit*>(p.arg)->value != static_cast<StringLit*>(n.arg)->value)
    return false;
  return true;
}

// Does a probe point written in a probe match an alias's name? Component
// by component: names may use wildcards in the probe, arguments must agree.
// A "**" in the point's last component (only there, as in stap) matches
// the rest of the name across its components: syscall.ope** is
// syscall.open and syscall.open.return.
bool matches_alias(std::span<const ProbePointComponent> point, const ProbePoint& name) {
  size_t n = point.size();
  for (size_t i = 0; i < n; ++i)
    if (point[i].name.find("**") != std::string_view::npos && (i + 1 < n || point[i].arg)) return false;
  bool spans = n > 0 && point[n - 1].name.find("**") != std::string_view::npos;
  if (spans ? name.components.size() < n : name.components.size() != n) return false;
  for (size_t i = 0; i + (spans ? 1 : 0) < n; ++i)
    if (!component_matches(point[i], name.components[i])) return false;
  if (!spans) return true;
  std::string rest;
  for (size_t i = n - 1; i < name.components.size(); ++i) {
    if (name.components[i].arg) return false;
    rest += (rest.empty() ? "" : ".") + name.components[i].name;
  }
  return support::glob_match_components(point[n - 1].name, rest);
}

}  // namespace

std::vector<std::pair<AliasDecl*, ProbePoint*>> aliases_named(const Elaboration& elab, const ProbePoint& point,
                                                                size_t* used) {
  std::vector<std::pair<AliasDecl*, ProbePoint*>> found;
  std::span<const ProbePointComponent> all(point.components.begin(), point.components.end());
  // The whole point, else its longest beginning that names an alias: the
  // rest is a suffix for the alias's points (perf.sw.cpu_clock.sample(N)).
  for (size_t n = all.size(); n > 0 && found.empty(); --n) {
    // ("**" spans components only at the point's very end.)
    if (n < all.size() && all[n - 1].name.find("**") != std::string_view::npos) break;
    for (Script* script : elab.prog.scripts)
      for (AliasDecl* a : script->aliases)
        for (ProbePoint* name : a->names)
          if (matches_alias(all.first(n), *name)) found.emplace_back(a, name);
    if (used) *used = n;
  }
  return found;
}

// A probe on an alias becomes a probe on the alias's points whose body is
// the alias prologue, the probe's body, then the alias epilogue (each a
// copy, since every instance gets its own locals). Aliases may name
// aliases; the chain is bounded.
void AliasExpander::expand_probe(ProbeDecl* p, std::vector<ProbeDecl*>& out, int depth) {
  std::vector<ProbePoint*> direct;
  for (ProbePoint* point : p->points) {
    size_t used = 0;
    std::vector<std::pair<AliasDecl*, ProbePoint*>> found = aliases_named(elab_, *point, &used);
    if (found.empty()) {
      direct.push_back(point);
      continue;
    }
    bool again = std::any_of(expanding_.begin(), expanding_.end(), [&](SourceLoc l) {
      return l.file == point->loc.file && l.offset == point->loc.offset;
    });
    if (again) {
      // stap's words: the point that closes the cycle, named in the text.
      elab_.diags.set_context(DiagId::SemWhileResolving, point->loc);
      elab_.diags.report(DiagId::SemAliasCycle, SourceLoc{}, point->to_string(), elab_.diags.sources().describe(point->loc));
      continue;
    }
    if (depth >= 32) {
      elab_.diags.report(DiagId::SemAliasDepth, point->loc, point->to_string());
      continue;
    }
    expanding_.push_back(point->loc);
    for (auto [a, name] : found) {
      auto* derived = elab_.arena.make<ProbeDecl>(p->loc);
      derived->pn = p->pn.empty() ? name->to_string() : p->pn;
      derived->alias_at = p->alias_at.valid() ? p->alias_at : point->loc;
      for (ProbePoint* target : a->targets) {
        auto* copy = elab_.arena.make<ProbePoint>(target->loc, *target);
        // "probe alias?" makes every point it stands for optional.
        copy->optional = copy->optional || point->optional;
        // A suffix after the alias's name goes onto each of its points
        // (the copy's list is its own once it grows).
        for (size_t i = used; i < point->components.size(); ++i)
          copy->components.push_back(elab_.arena, point->components[i]);
        derived->points.push_back(elab_.arena, copy);
      }
      auto* body = elab_.arena.make<BlockStmt>(p->body->loc);
      BlockStmt* user = clone(elab_.arena, p->body);
      if (a->epilogue) {
        body->stmts.assign(elab_.arena, {user, clone(elab_.arena, a->body)});
      } else {
        body->stmts.assign(elab_.arena, {clone(elab_.arena, a->body), user});
        if (a->second) body->stmts.push_back(elab_.arena, clone(elab_.arena, a->second));
      }
      derived->body = body;
      expand_probe(derived, out, depth + 1);
    }
    expanding_.pop_back();
  }
  if (direct.size() == p->points.size()) {
    out.push_back(p);
  } else if (!direct.empty()) {
    auto* rest = elab_.arena.make<ProbeDecl>(p->loc);
    rest->points.assign(elab_.arena, direct);
    rest->body = p->body;
    rest->pn = p->pn;
    rest->alias_at = p->alias_at;
    out.push_back(rest);
  }
}

void expand_aliases(Elaboration& elab) {
  bool any = false;
  for (Script* script : elab.prog.scripts) any = any || !script->aliases.empty();
  if (!any) return;
  for (Script* script : elab.prog.scripts) {
    std::vector<ProbeDecl*> expanded;
    for (ProbeDecl* p : script->probes) AliasExpander(elab).expand_probe(p, expanded, 0);
    script->probes = std::move(expanded);
  }
}

// "probe P if (cond) { body }" runs body only while cond holds: each point
// with a condition becomes its own probe whose body starts with
// "if (!(cond)) next". The condition may read globals only.
void lower_probe_conditions(Elaboration& elab) {
  for (Script* script : elab.prog.scripts) {
    std::vector<ProbeDecl*> out;
    for (ProbeDecl* p : script->probes) {
      std::vector<ProbePoint*> plain;
      for (ProbePoint* point : p->points) {
        if (!point->condition) {
          plain.push_back(point);
          continue;
        }
        auto* d = elab.arena.make<ProbeDecl>(p->loc);
        auto* copy = elab.arena.make<ProbePoint>(point->loc, *point);
        copy->condition = nullptr;
        d->points.assign(elab.arena, {copy});
        d->pn = p->pn;
        d->alias_at = p->alias_at;
        auto* guard = elab.arena.make<IfStmt>(point->condition->loc);
        auto* neg = elab.arena.make<UnaryExpr>(point->condition->loc);
        neg->op = Op::Not;
        neg->operand = clone(elab.arena, point->condition);
        guard->cond = neg;
        guard->then = elab.arena.make<SimpleStmt>(point->condition->loc, StmtKind::Next);
        elab.conditions.insert(neg->operand);
        auto* body = elab.arena.make<BlockStmt>(p->body->loc);
        body->stmts.assign(elab.arena, {guard, clone(elab.arena, p->body)});
        d->body = body;
        out.push_back(d);
      }
      if (plain.size() == p->points.size()) {
        out.push_back(p);
      } else if (!plain.empty()) {
        auto* rest = elab.arena.make<ProbeDecl>(p->loc);
        rest->points.assign(elab.arena, plain);
        rest->body = p->body;
        rest->pn = p->pn;
        rest->alias_at = p->alias_at;
        out.push_back(rest);
      }
    }
    script->probes = std::move(out);
  }
}

}  // namespace stapx::elab
