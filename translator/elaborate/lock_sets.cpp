// Lock sets: the globals each probe reads and writes, its body's own and
// those of every function it can reach, which the runtime locks in one
// canonical order around the handler. Marks the functions probes reach.
#include "translator/elaborate/elaboration.h"

#include <set>

namespace stapx::elab {

using namespace ast;

// A probe's lock set is what its body touches plus what every function it
// can reach touches.
void compute_lock_sets(Elaboration& elab) {
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
  for (Script* script : elab.prog.scripts) {
    for (ProbeDecl* p : script->probes) {
      // The probe body's own accesses were recorded on a pseudo-function.
      Collector col;
      FunctionDecl* body = elab.probe_bodies.at(p);
      col.fn(body);
      p->global_reads.assign(col.reads.begin(), col.reads.end());
      p->global_writes.assign(col.writes.begin(), col.writes.end());
      for (FunctionDecl* f : col.seen)
        if (f != body) f->used = true;
    }
  }
}

}  // namespace stapx::elab
