// "!" (sufficient), before aliases expand: in one comma-separated list of
// probe points (a probe's, or an alias's targets), the first point marked
// "!" that resolves ends the list. The points after it are neither
// resolved nor reported, so a script can name the function of each kernel
// version in turn: kernel.function("anon_pipe_write")!,
// kernel.function("pipe_write"). A "!" point that does not resolve is left
// out, as an optional one is. Brace groups have expanded in pass 1, so
// kernel.{trace("a"), trace("b")}! is a list of two "!" points.
//
// Whether a point resolves is found on trial, reporting nothing: a family's
// point resolves when it gives at least one probe and no error; an alias
// when some point of its own list (cut the same way) resolves.
#include "translator/elaborate/elaboration.h"

#include <map>
#include <set>
#include <ostream>
#include <vector>

#include "translator/probes/point_grammar.h"
#include "translator/probes/probe_family.h"

namespace stapx::elab {

using namespace ast;

namespace {

class Sufficient {
 public:
  explicit Sufficient(Elaboration& elab) : elab_(elab) {}

  // Cuts `points`, then the lists of the aliases they reach.
  void reach(List<ProbePoint*>& points, int depth) {
    cut(points, depth);
    reach_aliases(points, depth + 1);
  }

 private:
  void reach_aliases(const List<ProbePoint*>& points, int depth) {
    if (depth >= 32) return;  // an alias chain this deep is reported by expand_aliases
    for (ProbePoint* point : points)
      for (AliasDecl* a : aliases_of(*point))
        if (reached_.insert(a).second) {
          cut_alias(a, depth);
          reach_aliases(a->targets, depth + 1);
        }
  }

  // Drops the points after the first "!" one that resolves.
  void cut(List<ProbePoint*>& points, int depth) {
    for (size_t i = 0; i < points.size(); ++i) {
      if (!points[i]->sufficient || !resolves(*points[i], depth)) continue;
      while (points.size() > i + 1) points.pop_back();
      return;
    }
  }

  // An alias's own list is cut once, whoever reaches it first.
  void cut_alias(AliasDecl* a, int depth) {
    if (cut_.insert(a).second) cut(a->targets, depth);
  }

  std::vector<AliasDecl*> aliases_of(const ProbePoint& point) const {
    std::vector<AliasDecl*> found;
    for (const auto& named : aliases_named(elab_, point))  // an alias once, for its first name
      if (found.empty() || found.back() != named.first) found.push_back(named.first);
    return found;
  }

  bool resolves(ProbePoint& point, int depth) {
    if (depth >= 32) return false;
    std::vector<AliasDecl*> aliases = aliases_of(point);
    if (aliases.empty()) return family_resolves(point);
    for (AliasDecl* a : aliases)
      if (alias_resolves(a, depth + 1)) return true;
    return false;
  }

  bool alias_resolves(AliasDecl* a, int depth) {
    if (auto it = resolved_.find(a); it != resolved_.end()) return it->second;
    resolved_[a] = false;  // an alias that names itself resolves to nothing
    cut_alias(a, depth);
    bool any = false;
    for (ProbePoint* target : a->targets) any = any || resolves(*target, depth);
    return resolved_[a] = any;
  }

  bool family_resolves(ProbePoint& point) {
    std::ostream null_out(nullptr);
    DiagSink scratch(elab_.diags.sources(), null_out);
    PointMatch m;
    if (probe_grammar().match(point, m, scratch) != PointGrammar::Result::Matched) return false;
    ProbeSpec tmpl;
    tmpl.point = &point;
    tmpl.pp = point.to_string();
    std::vector<ProbeSpec> specs;
    m.family->expand(m, tmpl, elab_.probe_ctx, specs, scratch);
    return !specs.empty() && scratch.errors() == 0;
  }

  Elaboration& elab_;
  std::set<const AliasDecl*> cut_, reached_;
  std::map<const AliasDecl*, bool> resolved_;
};

bool any_sufficient(const List<ProbePoint*>& points) {
  for (const ProbePoint* p : points)
    if (p->sufficient) return true;
  return false;
}

}  // namespace

void cut_after_sufficient(Elaboration& elab) {
  bool any = false;
  for (Script* script : elab.prog.scripts) {
    for (ProbeDecl* p : script->probes) any = any || any_sufficient(p->points);
    for (AliasDecl* a : script->aliases) any = any || any_sufficient(a->targets);
  }
  if (!any) return;
  Sufficient s(elab);
  for (Script* script : elab.prog.scripts)
    for (ProbeDecl* p : script->probes) s.reach(p->points, 0);
}

}  // namespace stapx::elab
