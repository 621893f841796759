// Probe points through the probe families: each point becomes one or more
// ProbeSpecs (a wildcard, a DWARF function with inlined copies...), or an
// error with the names nearest the one no family knows.
#include "translator/elaborate/elaboration.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast_clone.h"
#include "frontend/ast_visitor.h"
#include "support/glob.h"
#include "support/strings.h"
#include "translator/elaborate/tapsets.h"
#include "translator/similar.h"

namespace stapx::elab {

using namespace ast;

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

class ProbePoints {
 public:
  explicit ProbePoints(Elaboration& elab) : elab_(elab) {}
  void resolve_probes();

 private:
  void split_for_targets(Script* script, std::vector<ProbeSpec>& specs);
  std::vector<std::string> alias_names() const;
  std::vector<std::string> similar_components(const ProbePoint& point) const;
  Elaboration& elab_;
};

}  // namespace

// Probes whose body reads target variables need one body per probed
// address, since $x may live in a different place at each: every spec
// after the first of such a probe gets its own copy of the body (not for
// a family whose context variables are read from the probe's table
// entry, the same code at every point).
void ProbePoints::split_for_targets(Script* script, std::vector<ProbeSpec>& specs) {
  std::map<ProbeDecl*, int> seen;
  std::map<ProbeDecl*, bool> uses;
  for (ProbeSpec& spec : specs) {
    if (!spec.site && !(spec.family->has_context_vars() && spec.family->context_vars_per_point())) continue;
    ProbeDecl* decl = spec.decl;
    auto it = uses.find(decl);
    if (it == uses.end()) it = uses.emplace(decl, mentions_target(decl->body)).first;
    if (it->second && seen[decl]++ > 0) {
      auto* copy = elab_.arena.make<ProbeDecl>(decl->loc);
      copy->points.assign(elab_.arena, decl->points);
      copy->body = clone(elab_.arena, decl->body);
      copy->pn = decl->pn;
      script->probes.push_back(copy);
      spec.decl = copy;
    }
  }
}

void ProbePoints::resolve_probes() {
  for (Script* script : elab_.prog.scripts) {
    std::vector<ProbeSpec> specs;
    for (ProbeDecl* decl : script->probes) {
      for (ProbePoint* point : decl->points) {
        ProbeSpec tmpl;
        tmpl.decl = decl;
        tmpl.point = point;
        tmpl.pp = point->to_string();
        bool claimed = false;
        elab_.diags.set_context(DiagId::SemWhileResolving, point->loc);
        size_t first_spec = specs.size();
        PointMatch m;
        auto alias_first_names = [this] {
          std::vector<std::string> names = alias_names();
          for (std::string& n : names) n.resize(std::min(n.size(), n.find('.')));
          return names;
        };
        switch (probe_grammar().match(*point, m, elab_.diags, alias_first_names)) {
          case PointGrammar::Result::Unknown: break;
          case PointGrammar::Result::Mismatch: claimed = true; break;
          case PointGrammar::Result::Matched:
            claimed = true;
            m.family->expand(m, tmpl, elab_.probe_ctx, specs, elab_.diags);
            break;
        }
        // stap points at the point's last component.
        if (elab_.stapusr && specs.size() > first_spec && !specs[first_spec].family->unprivileged())
          elab_.diags.report(DiagId::SemProbeNeedsPrivilege, point->components.back().loc, "stapusr");
        // An optional point ("?") that names nothing is simply left out.
        if (!claimed && !point->optional) {
          std::string similar = support::join(similar_components(*point));
          elab_.diags.report(DiagId::SemBadProbePoint, point->loc,
                        "unknown probe point '" + tmpl.pp + "'" + (similar.empty() ? "" : " (similar: " + similar + ")"));
        }
        elab_.diags.clear_context();
      }
    }
    // A probe none of whose points resolved (all optional, naming nothing)
    // goes before its body is looked at, as in stap: its calls, @entry
    // and types are not checked.
    std::set<const ProbeDecl*> resolved;
    for (const ProbeSpec& spec : specs) resolved.insert(spec.decl);
    std::erase_if(script->probes, [&](const ProbeDecl* decl) { return !resolved.count(decl); });
    split_for_targets(script, specs);
    for (ProbeSpec& spec : specs) {
      spec.index = static_cast<int>(elab_.prog.probes.size());
      elab_.prog.probes.push_back(std::move(spec));
    }
  }
  std::map<const ProbeDecl*, bool> all_return, all_user;
  std::map<const ProbeFamily*, std::vector<const ProbeSpec*>> by_family;
  std::set<const ProbeDecl*> no_context;
  for (const ProbeSpec& spec : elab_.prog.probes) {
    by_family[spec.family].push_back(&spec);
    if (!spec.family->has_context_vars())
      no_context.insert(spec.decl);
    else if (!no_context.count(spec.decl))
      elab_.context_specs.emplace(spec.decl, &spec);
    if (spec.site) elab_.target_specs.emplace(spec.decl, &spec);
    auto [it, fresh] = all_return.try_emplace(spec.decl, spec.is_return);
    if (!fresh) it->second = it->second && spec.is_return;
    bool user = spec.data && !spec.data->user_file().empty();
    auto [u, first] = all_user.try_emplace(spec.decl, user);
    if (!first) u->second = u->second && user;
  }
  for (const auto& [decl, ret] : all_return)
    if (ret) elab_.return_decls.insert(decl);
  for (const auto& [decl, user] : all_user)
    if (user) elab_.user_decls.insert(decl);
  for (const ProbeDecl* decl : no_context) elab_.context_specs.erase(decl);  // a point of another family
  for (const auto& [family, specs] : by_family) family->check_all(specs, elab_.diags);
}

// Every probe alias's name, dotted ("syscall.open"): the library's and
// the scripts'.
std::vector<std::string> ProbePoints::alias_names() const {
  std::vector<std::string> dotted;
  if (elab_.library)
    for (std::string_view name : elab_.library->alias_names()) dotted.emplace_back(name);
  for (const Script* script : elab_.prog.scripts)
    for (const AliasDecl* a : script->aliases)
      for (const ProbePoint* name : a->names) {
        std::string d;
        for (const ProbePointComponent& c : name->components) d += (d.empty() ? "" : ".") + c.name;
        dotted.push_back(std::move(d));
      }
  return dotted;
}

// For a point no family or alias takes: the names nearest the first of
// its components that no probe family or alias name has at that place,
// among the names that do (syscall.opn: open).
std::vector<std::string> ProbePoints::similar_components(const ProbePoint& point) const {
  std::vector<std::string> dotted;
  for (std::string_view name : probe_grammar().first_names()) dotted.emplace_back(name);
  for (std::string& name : alias_names()) dotted.push_back(std::move(name));
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

void resolve_probe_points(Elaboration& elab) { ProbePoints(elab).resolve_probes(); }

}  // namespace stapx::elab
