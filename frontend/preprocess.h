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
  size_t size() const { return size_; }

 private:
  std::string_view keep(std::string text);
  void insert_or_assign(std::string_view name, std::string_view value);
  // What the views look at (shared: a copy of the facts views them too).
  std::vector<std::shared_ptr<const std::string>> texts_;
  // An open-addressing table of views (a name with no data: an empty
  // slot), at most half full: no node to allocate (and free) per line.
  struct Slot {
    std::string_view name, value;
  };
  std::vector<Slot> slots_;
  size_t size_ = 0;
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
  // An open-addressing table by name, at most half full: a macro-heavy
  // file looks a name up for every '@' token, and a slot holds what a
  // lookup compares. A name's slot has its library macro, if any, and the
  // files that define their own (rare, and seldom more than one a name).
  // The macros themselves are in a deque (stable: find()'s pointers stay
  // valid), each with its name, which the slots view.
  struct Slot {
    size_t hash = 0;
    std::string_view name;   // no data: an empty slot
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
  // The slot of `name`: its own, or the empty one it would take.
  Slot& slot(std::string_view name, size_t h);
  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::vector<Local> locals_;
  std::deque<Named> macros_;
};

// Returns the file to parse: `file` itself, or a preprocessed view of it.
// With `library`, the file's definitions become library macros (.stpm).
uint32_t preprocess(SourceManager& sm, uint32_t file, const PreprocessFacts& facts, MacroTable& macros,
                    DiagSink& diags, bool library = false);

// strverscmp-style comparison of version strings (<0, 0, >0).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace stapx
