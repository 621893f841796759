// A user-space executable or shared library, read on the host at pass 2:
// its functions (from the ELF symbol tables) and where each one's code is
// in the file, which is what a uprobe is placed by.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stapx::debug {

struct UserFunction {
  std::string name;
  uint64_t address = 0;  // its link-time address (st_value)
  uint64_t size = 0;
  uint64_t offset = 0;   // of its first instruction in the file
};

class UserBinary {
 public:
  // The ELF file at `path`; null, with why in `error`, if it cannot be read
  // or is not an executable or shared object.
  static std::unique_ptr<UserBinary> open(const std::string& path, std::string& error);

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return size_; }
  bool shared() const { return shared_; }  // ET_DYN (a library, or a PIE)
  // The defined functions whose names match the glob `pattern`, each once
  // (the full symbol table's, else the dynamic one's), by name.
  std::vector<UserFunction> functions(const std::string& pattern) const;
  // Where link-time code address `addr` is in the file; false if no
  // executable segment holds it.
  bool file_offset(uint64_t addr, uint64_t& offset) const;
  // The first bytes of the file at `offset` (zeros past its end).
  std::array<uint8_t, 4> code_at(uint64_t offset) const;

 private:
  std::string path_;
  uint64_t size_ = 0;
  bool shared_ = false;
  std::vector<UserFunction> functions_;  // by name
  struct Segment {
    uint64_t vaddr, filesz, offset;
  };
  std::vector<Segment> code_;  // the executable loadable segments
};

// The file a process("PATH") point names: PATH itself when it holds a
// '/', else the first executable of that name in $PATH; then made
// absolute, symbolic links resolved, as stap shows it. Empty, with why in
// `error`, if there is none.
std::string resolve_process_path(const std::string& path, std::string& error);

}  // namespace stapx::debug
