// Call depth and recursion: MAXNESTING is bounded by the deepest call
// chain any probe can make (recursion gets ten levels more, as stap), and
// a foreach in a recursive function is refused.
#include "translator/elaborate/elaboration.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace stapx::elab {

using namespace ast;

void bound_call_depth(Elaboration& elab) {
  // Call depth bounds MAXNESTING: recursion gets ten extra levels, as stap.
  std::map<FunctionDecl*, int> depth;
  std::function<int(FunctionDecl*, std::set<FunctionDecl*>&)> walk =
      [&](FunctionDecl* f, std::set<FunctionDecl*>& stack) -> int {
    if (stack.count(f)) {
      elab.prog.recursive = true;
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
  for (auto& [p, body] : elab.probe_bodies) {
    std::set<FunctionDecl*> stack;
    for (FunctionDecl* c : body->callees) deepest = std::max(deepest, walk(c, stack));
  }
  elab.prog.max_nesting = std::max(1, deepest) + (elab.prog.recursive ? 10 : 0);
  for (FunctionDecl* f : elab.foreach_in_functions) {
    std::set<FunctionDecl*> stack;
    std::function<bool(FunctionDecl*)> reaches = [&](FunctionDecl* g) {
      for (FunctionDecl* c : g->callees) {
        if (c == f) return true;
        if (stack.insert(c).second && reaches(c)) return true;
      }
      return false;
    };
    if (reaches(f)) elab.diags.report(DiagId::SemUnsupported, f->loc, "foreach in a recursive function");
  }
}

}  // namespace stapx::elab
