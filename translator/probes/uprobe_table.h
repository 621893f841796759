// The table of uprobes a family's probes are (runtime-c/probes/uprobes.c):
// process(...).function and process(...).mark each emit one.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "translator/probes/probe_family.h"

namespace stapx {

namespace debug {
class UserBinary;
}

struct Uprobe : ProbeData {
  std::string path;
  uint64_t offset = 0;          // in the file
  uint64_t file_size = 0;       // at pass 2: the module checks it
  std::array<uint8_t, 4> code{};  // the bytes at `offset` at pass 2: checked too
  uint64_t ref_ctr_offset = 0;  // an SDT semaphore's file offset, or 0
  // The file's GNU build ID (its bytes, "" without one) and where it is
  // in the file: checked too, so that another build of the same size is
  // refused.
  std::string build_id;
  uint64_t build_id_offset = 0;
  // Only in processes running this executable ("": any), or with this
  // process id (0: any). Under -c/-x, only in the target's tree besides.
  std::string exe;
  int64_t pid = 0;
  std::string user_file() const override { return path; }
};

// The file a process(...) point names, read once per translation; null,
// with why in `error`, if it cannot be read.
const debug::UserBinary* user_binary(const std::string& path, std::string& error);

// The files the PATH of a process("PATH") point (its component `at`,
// 0 but in perf's ...process("PATH")) names: one, or each match of a glob;
// for a point without a PATH (process.function(...)), the -c command's
// program, or the -x process's. Empty after reporting why, unless the
// point is optional.
std::vector<const debug::UserBinary*> process_binaries(const PointMatch& m, const ProbeContext& ctx,
                                                       DiagSink& diags, size_t at = 0);

// The PID of a process(PID) point (its argument 0), or 0 after reporting
// one no process can have (the kernel's PID_MAX_LIMIT bounds them).
int64_t process_pid(const PointMatch& m, DiagSink& diags);

// The shared libraries `exe` needs (DT_NEEDED), theirs too, each once, as
// the loader finds them on this machine: (the name it needs, the file).
std::vector<std::pair<std::string, const debug::UserBinary*>> needed_libraries(const debug::UserBinary& exe);

// What a user-space point can begin with, before its family's own
// components: process("PATH"), process(PID) or process (the -c command's
// program, or the -x process's), and the first and last with
// .library("LIB").
// Families prefix their shapes with each of these.
const std::vector<std::string>& process_heads();

// A user-space family's shapes: each of its tails (".plt(string).return",
// with the family's tag for it) after each head process_heads() lists.
// The family keeps this object: the patterns' texts live in it.
class ProcessPatterns {
 public:
  ProcessPatterns(std::initializer_list<std::pair<const char*, int>> tails);
  std::vector<PointPattern> patterns() const;

 private:
  std::vector<std::pair<std::string, int>> texts_;
};

// The index of the first component after the point's head
// (.function(...) in process("P").library("L").function(...): 2).
size_t process_rest(const PointMatch& m);

// One file a process point's probes go into, and in which processes they
// fire: any that maps the file, or only those running `exe` (the program of
// process("EXE").library("LIB")) or with id `pid` (process(PID)).
struct ProcessTarget {
  const debug::UserBinary* file = nullptr;
  std::string exe;
  int64_t pid = 0;
};

// The files the head of a process point names: process("PATH"), one file,
// or each match of a glob ("/lib*/libc.so.*"; files that are not x86-64
// programs or libraries left out); process(PID), that process's program
// (read through /proc/PID/exe, as stap reads it); without either, the -c
// command's program, as stap takes it, or the -x process's. With
// .library("LIB"), the libraries those programs need (DT_NEEDED, theirs
// too) whose name or path matches LIB, or the file LIB names if it holds
// a '/', for the programs' processes only. Each file read once. Empty
// after reporting why, unless the point is optional.
std::vector<ProcessTarget> process_targets(const PointMatch& m, const ProbeContext& ctx, DiagSink& diags);

// A uprobe at `offset` in the target's file, with what the module checks.
std::shared_ptr<Uprobe> uprobe_at(const ProcessTarget& t, uint64_t offset);

// `ARRAY_usyms`, the functions and unwind rows of each file in `paths` by
// offset, for usymname(), ubacktrace() and the like (runtime-c/usyms.c),
// and `with_lines`, the line tables of those with DWARF (usymline()):
// armed with _stpx_usyms_arm(ARRAY_usyms, ARRAY_SIZE(ARRAY_usyms)),
// disarmed with _stpx_usyms_disarm(). The module has one, for every file
// its probes are in and those -d and --ldd add (codegen's tables.cpp).
void emit_user_symbols(CWriter& w, const std::vector<std::string>& paths, const std::string& array,
                       bool with_lines);

// `static struct _stpx_uprobe ARRAY[]`, and the calls that arm and disarm it.
void emit_uprobe_table(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);
void emit_uprobe_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);
void emit_uprobe_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes, const char* array);

// A family whose probes are the entries of one uprobe table, named table().
class UprobeTableFamily : public ProbeFamily {
 public:
  // (For --privilege=stapusr they fire in the user's own processes only.)
  bool unprivileged() const override { return true; }
  std::vector<const char*> runtime_files() const override { return {"probes/uprobes.c"}; }
  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    emit_uprobe_table(w, probes, table());
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    emit_uprobe_arm(w, probes, table());
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    emit_uprobe_disarm(w, probes, table());
  }

 protected:
  virtual const char* table() const = 0;
};

}  // namespace stapx
