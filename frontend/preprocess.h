// Pass 1 preprocessing, as stap's: macros (@define, @name(...)) are
// expanded, and conditionals (%( COND %? A %: B %)) choose tokens, in one
// pass in which nothing a conditional drops is expanded or defined.
// A file that uses neither is parsed as it is; otherwise the parser gets a
// preprocessed view: the chosen tokens, each with its real file and offset
// and the expansion it came through (see SourceFile::tokens).
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/source.h"

namespace stapx {

// A hash of a name, cheaper than std::hash's byte loop for the short names
// of macros and CONFIG_ options, looked up by the thousand in a pass 1:
// its bytes 8 at a time (the last 8 overlapping the word before: names
// such as "_SYSCALL_ACCEPT_REGARGS" differ in the middle), and its length,
// mixed. Transparent: a table of strings is looked up by views, with no
// string made.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    constexpr uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h = s.size() * k;
    auto mix = [&h](uint64_t w) { h = (h ^ w) * 0xD6E8FEB86659FD93ull; };
    if (s.size() < 8) {
      uint64_t w = 0;
      if (!s.empty()) std::memcpy(&w, s.data(), s.size());
      mix(w);
    } else {
      size_t i = 0;
      for (; i + 8 < s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        mix(w);
      }
      uint64_t w;
      std::memcpy(&w, s.data() + s.size() - 8, 8);
      mix(w);
    }
    // (A product's low bits see only its factors' low bits.)
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// An open-addressing table of slots named by views (by NameHash, probed
// linearly; a slot whose name has no data is empty), at most half full:
// the CONFIG_ values and the macros. No node per entry to allocate and
// free, and a lookup compares in place. `Slot` is a struct with a
// std::string_view `name`, and what the table keeps with it.
template <class Slot>
class NameSlots {
 public:
  size_t size() const { return used_; }
  // Room for `n` names without growing.
  void reserve(size_t n) {
    if (2 * n > slots_.size()) rehash(2 * n);
  }
  // The slot named `name`; null if none.
  const Slot* find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[index(name)];
    return s.name.data() ? &s : nullptr;
  }
  // The slot named `name`, or, if none, the empty one it gets, which the
  // caller names (with a view that lasts as long as the table).
  Slot& place(std::string_view name) {
    if (2 * (used_ + 1) > slots_.size()) rehash(2 * (used_ + 1));
    Slot& s = slots_[index(name)];
    if (!s.name.data()) ++used_;
    return s;
  }

 private:
  size_t index(std::string_view name) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = NameHash()(name) & mask;; i = (i + 1) & mask)
      if (!slots_[i].name.data() || slots_[i].name == name) return i;
  }
  void rehash(size_t at_least) {
    size_t n = 64;
    while (n < at_least) n *= 2;
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(n));
    for (Slot& s : old)
      if (s.name.data()) slots_[index(s.name)] = std::move(s);
  }
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

// The target kernel's configuration: its CONFIG_ names and their values
// as the file has them ("y", "m", "0x10", "\"-amd64\"": a string keeps
// its quotes, as stap compares it). Made from a kbuild .config's text,
// which it keeps and points into: every pass 1 reads those thousands of
// lines, and a string and a tree node for each cost more than parsing all
// the tapsets' conditionals.
class KernelConfig {
 public:
  KernelConfig() = default;
  KernelConfig(std::initializer_list<std::pair<std::string_view, std::string_view>> values);
  // The CONFIG_ lines of a .config; a name set twice keeps its last value.
  static KernelConfig from_text(std::string text);
  void set(std::string_view name, std::string_view value);
  // The value of `name`; none when the configuration does not set it.
  std::optional<std::string_view> find(std::string_view name) const;
  size_t size() const { return values_.size(); }

 private:
  std::string_view keep(std::string text);
  void insert_or_assign(std::string_view name, std::string_view value);
  // What the views look at (shared: a copy of the facts views them too).
  std::vector<std::shared_ptr<const std::string>> texts_;
  struct Value {
    std::string_view name, value;
  };
  NameSlots<Value> values_;
};

// The facts conditionals can test.
struct PreprocessFacts {
  std::string kernel_v = "0";   // "6.1.0"
  std::string kernel_vr = "0";  // "6.1.0-56-amd64"
  std::string arch = "x86_64";
  std::string runtime = "kernel";
  std::string systemtap_v = "4.8";
  std::string privilege = "stapdev";
  bool guru = false;
  KernelConfig config;
  std::vector<std::string> args;  // $1... / @1...
};

// Macro definitions: per file, plus library macros (.stpm) visible to all.
class MacroTable {
 public:
  struct Macro {
    std::vector<std::string> params;
    std::vector<Tok> body;
    // The body with its conditionals already chosen, when that is known at
    // its definition (see Preprocessor::pre_choose): what an expansion
    // would keep of the body's own tokens, worked out once instead of at
    // every call. (A table serves one run: its macros are expanded under
    // the facts they were defined under.)
    std::optional<std::vector<Tok>> chosen;
    uint32_t file = 0;
    SourceLoc loc;
  };
  const Macro* find(uint32_t file, std::string_view name) const;
  // Returns false if the name is already defined in that scope (for
  // library macros: in the same file; another file's is replaced).
  bool define(uint32_t file, const std::string& name, Macro m, bool library);

 private:
  // By name (a macro-heavy file looks a name up for every '@' token): its
  // library macro, if any, and the files that define their own (rare, and
  // seldom more than one a name). The macros themselves are in a deque
  // (stable: find()'s pointers stay valid), each with its name, which the
  // slots view.
  struct Slot {
    std::string_view name;
    Macro* library = nullptr;
    uint32_t local = 0;  // the first of the name's own definitions in locals_, + 1; 0: none
  };
  struct Local {
    uint32_t file;
    uint32_t next;  // the next of the name's, + 1; 0: none
    Macro* macro;
  };
  struct Named {
    std::string name;
    Macro macro;
  };
  NameSlots<Slot> slots_;
  std::vector<Local> locals_;
  std::deque<Named> macros_;
};

// Returns the file to parse: `file` itself, or a preprocessed view of it.
// With `library`, the file's definitions become library macros (.stpm).
// With `args_used` (facts.args.size() entries), each argument a $N or @N
// names is marked there.
uint32_t preprocess(SourceManager& sm, uint32_t file, const PreprocessFacts& facts, MacroTable& macros,
                    DiagSink& diags, bool library = false, std::vector<bool>* args_used = nullptr);

// strverscmp-style comparison of version strings (<0, 0, >0).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace stapx
