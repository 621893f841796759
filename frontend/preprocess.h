// Pass 1 preprocessing, as stap's: macros (@define, @name(...)) are
// expanded, and conditionals (%( COND %? A %: B %)) choose tokens, in one
// pass in which nothing a conditional drops is expanded or defined.
// A file that uses neither is parsed as it is; otherwise the parser gets a
// preprocessed view: the chosen tokens, each with its real file and offset
// and the expansion it came through (see SourceFile::tokens).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/lexer.h"
#include "frontend/source.h"

namespace stapx {

// A hash of a name, cheaper than std::hash's byte loop for the short names
// of macros and CONFIG_ options, looked up by the thousand in a pass 1:
// the first and last 8 bytes and the length, mixed. Transparent: a table
// of strings is looked up by views, with no string made.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    uint64_t a = 0, b = 0;
    if (s.size() >= 8) {
      std::memcpy(&a, s.data(), 8);
      std::memcpy(&b, s.data() + s.size() - 8, 8);
    } else if (!s.empty()) {
      std::memcpy(&a, s.data(), s.size());
    }
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ s.size();
    return static_cast<size_t>(h ^ (h >> 29));
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
  size_t size() const { return values_.size(); }

 private:
  std::string_view keep(std::string text);
  // What the views look at (shared: a copy of the facts views them too).
  std::vector<std::shared_ptr<const std::string>> texts_;
  std::unordered_map<std::string_view, std::string_view, NameHash> values_;
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
  // Hash maps: a macro-heavy file looks a name up for every '@' token.
  // (Their nodes are stable, so find()'s pointers stay valid.)
  // Looked up by views of the text, with no string made (C++20's
  // heterogeneous lookup).
  using Table = std::unordered_map<std::string, Macro, NameHash, std::equal_to<>>;
  Table library_;
  std::unordered_map<uint32_t, Table> local_;  // by file
};

// Returns the file to parse: `file` itself, or a preprocessed view of it.
// With `library`, the file's definitions become library macros (.stpm).
uint32_t preprocess(SourceManager& sm, uint32_t file, const PreprocessFacts& facts, MacroTable& macros,
                    DiagSink& diags, bool library = false);

// strverscmp-style comparison of version strings (<0, 0, >0).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace stapx
