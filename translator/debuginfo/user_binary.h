// A user-space executable or shared library, read on the host at pass 2:
// its functions (from the ELF symbol tables) and where each one's code is
// in the file, which is what a uprobe is placed by.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct Elf_Scn;  // libelf's
struct Elf;

namespace stapx::debug {

struct UserFunction {
  std::string name;
  uint64_t address = 0;  // its link-time address (st_value)
  uint64_t size = 0;
  uint64_t offset = 0;   // of its first instruction in the file
  bool global = false;   // global or weak binding: .exported, as stap
};

// A static probe (sys/sdt.h's STAP_PROBE/DTRACE_PROBE) from the file's
// .note.stapsdt notes: where it is and what its arguments are.
struct SdtNote {
  std::string provider, name;
  uint64_t pc = 0;         // link-time address, adjusted for prelinking
  uint64_t semaphore = 0;  // link-time address of its enabled count, or 0
  std::string args;        // "-4@%edi 8@-16(%rbp)": SIZE@OPERAND each, AT&T syntax
};

// How to find a frame's caller at a range of addresses, from the file's
// .eh_frame (x86-64): the frame's CFA is a register (rsp or rbp) plus an
// offset, the return address is at CFA - 8, and rbp was saved at CFA +
// bp_offset (0: not saved, the caller's rbp is the same).
struct UnwindRow {
  uint64_t offset = 0;  // in the file, where the row starts (it lasts to the next row)
  bool cfa_rbp = false;
  int32_t cfa_offset = 0;
  int32_t bp_offset = 0;
};

class UserBinary {
 public:
  // The ELF file at `path`; null, with why in `error`, if it cannot be read
  // or is not an executable or shared object.
  static std::unique_ptr<UserBinary> open(const std::string& path, std::string& error);

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return size_; }
  bool shared() const { return shared_; }  // ET_DYN (a library, or a PIE)
  // Its GNU build ID in hex ("" without one).
  const std::string& build_id() const { return build_id_; }
  // Its bytes as its note holds them, and where they are in the file
  // ("" where no note section holds one).
  const std::string& build_id_note() const { return build_id_note_; }
  uint64_t build_id_offset() const { return build_id_offset_; }
  // The defined functions whose names match the glob `pattern`, each once
  // (the full symbol table's, else the dynamic one's), by name.
  std::vector<UserFunction> functions(const std::string& pattern) const;
  // Where link-time code address `addr` is in the file; false if no
  // executable segment holds it.
  bool file_offset(uint64_t addr, uint64_t& offset) const;
  // The same for any loaded address (data too: a semaphore).
  bool data_offset(uint64_t addr, uint64_t& offset) const;
  const std::vector<SdtNote>& sdt_notes() const { return notes_; }
  // Its PLT entries, each as a function named for the symbol it jumps to
  // ("qsort"), by name.
  const std::vector<UserFunction>& plt_entries() const { return plt_; }
  // The shared libraries it needs (DT_NEEDED: "libc.so.6").
  const std::vector<std::string>& needed() const { return needed_; }
  // The unwind rows of the file's functions, by offset (a function whose
  // CFI stapx cannot follow, or that has none, ends its rows with one
  // whose cfa_offset is 0: no caller found there). Read on first use.
  const std::vector<UnwindRow>& unwind_rows() const;
  // The name of the function whose code holds `addr` ("" if none).
  std::string function_at(uint64_t addr) const;
  // The link-time address of a defined symbol of any type ("counter").
  std::optional<uint64_t> symbol_address(const std::string& name) const;
  // The first bytes of the file at `offset` (zeros past its end).
  std::array<uint8_t, 4> code_at(uint64_t offset) const;

 private:
  UserBinary() = default;
  UserBinary(const UserBinary&) = delete;
  UserBinary& operator=(const UserBinary&) = delete;
  void read_notes(const std::vector<::Elf_Scn*>& sections, std::optional<uint64_t> base);
  // The GNU build ID note in note section `scn`, if it holds one.
  void find_build_id(::Elf_Scn* scn, uint64_t section_offset);
  void read_plt(::Elf* elf, const std::vector<::Elf_Scn*>& relas, const std::vector<::Elf_Scn*>& stubs);
  // The file, open while this lives: code_at() and unwind_rows() read it.
  struct Fd {
    int fd = -1;
    ~Fd();
  } file_;
  std::string path_;
  uint64_t size_ = 0;
  bool shared_ = false;
  std::string build_id_;
  std::string build_id_note_;
  uint64_t build_id_offset_ = 0;
  std::vector<UserFunction> functions_;  // by name
  struct Segment {
    uint64_t vaddr, filesz, offset;
  };
  std::vector<Segment> code_;  // the executable loadable segments
  std::vector<Segment> loads_;  // all loadable segments
  std::vector<SdtNote> notes_;
  std::vector<std::string> needed_;
  std::vector<UserFunction> plt_;
  mutable std::optional<std::vector<UnwindRow>> rows_;
  std::map<std::string, uint64_t> symbols_;  // every defined symbol, by name
};

// The file a process("PATH") point names: PATH itself when it holds a
// '/', else the first executable of that name in $PATH; then made
// absolute, symbolic links resolved, as stap shows it. Empty, with why in
// `error`, if there is none.
std::string resolve_process_path(const std::string& path, std::string& error);

// Where the loader would find shared library `name` (as DT_NEEDED names
// it) in the system's directories, resolved; empty if not there.
std::string find_shared_library(const std::string& name);

// The GNU build ID of an ELF file, in hex ("" without one).
std::string elf_build_id(::Elf* elf);

// The directories find_shared_library() looks in, in its order.
const std::vector<std::string>& shared_library_dirs();

}  // namespace stapx::debug
