// The result of pass 2: a checked, typed program ready for translation.
// Invariants: every VarRef has a Symbol and every CallExpr a target; all
// types are known; `probes` is in table order; each probe and function
// lists the globals it (transitively) reads and writes, in global order.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "translator/debuginfo/debuginfo.h"
#include "translator/elaborate/target_access.h"
#include "translator/probes/probe_family.h"
#include "translator/regex/regex.h"

namespace stapx {

struct Program {
  std::vector<ast::Script*> scripts;
  std::vector<ast::Symbol*> globals;          // in declaration order
  std::vector<ast::FunctionDecl*> functions;  // reachable ones, callees first not guaranteed
  std::vector<ProbeSpec> probes;
  std::deque<ast::Symbol> symbols;            // storage for every Symbol
  int max_nesting = 1;                        // deepest call chain + 1 (recursion: +10)
  bool recursive = false;
  // Target-variable expressions resolved against debug information.
  std::map<const ast::Expr*, TargetAccess> targets;
  // A kernel data symbol's link-time address, when target expressions use
  // link-time addresses (static variables, @var): the module computes the
  // KASLR displacement from where that symbol really is.
  std::optional<uint64_t> kaslr_anchor;
  // The kernel's line table (vmlinux's DWARF), for a script that calls
  // symline() and the like; null for the others. Rows by link-time address.
  struct KernelLines {
    std::vector<debug::LineRow> rows;
    std::vector<std::string> files;
  };
  std::shared_ptr<const KernelLines> kernel_lines;
  // @perf("NAME"): the position of its counter among the perf probes.
  std::map<const ast::Expr*, int> perf_reads;
  // Values a .return probe saves when its function is entered, by probe.
  std::map<const ast::ProbeDecl*, std::vector<TargetAccess>> entry_saves;
  // The globals those saves' @entry(...) expressions read and write (what
  // they call too), by probe: the entry half locks them.
  struct EntryGlobals {
    std::set<int> reads, writes;
  };
  std::map<const ast::ProbeDecl*, EntryGlobals> entry_globals;
  // The DFA of every `=~`/`!~` pattern, by pattern text.
  std::map<std::string, regex::Dfa> regexes;
  // The script reads sub-matches (a used function's embedded C says
  // /* pragma:submatch */: matched(), ngroups()); then every pattern also
  // has its sub-match program.
  bool submatch = false;
  // --privilege=stapusr: process probes fire in the user's own processes only.
  bool unprivileged = false;
  std::map<std::string, regex::Prog> submatch_progs;
};

}  // namespace stapx
