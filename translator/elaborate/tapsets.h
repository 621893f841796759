// The tapset library: an index of which library file defines which
// function, probe alias or global, and the linking loop that pulls in exactly the
// files a script needs (and what those files need, transitively).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/library.h"
#include "frontend/preprocess.h"

namespace stapx {

class TapsetIndex {
 public:
  // Scans the .stp files of `lib` (list_library() of the directories
  // library_dirs chose), or reads the cached index of the same files.
  explicit TapsetIndex(const LibraryFiles& lib);
  std::vector<std::string> files_for_function(const std::string& name) const;
  std::vector<std::string> files_for_point(const ast::ProbePoint& point) const;
  // The files that declare `name` a (non-private) global.
  std::vector<std::string> files_for_global(const std::string& name) const;
  size_t size() const { return files_; }
  // Every function and alias name the library defines (for "similar:" hints).
  std::vector<std::string_view> function_names() const;
  std::vector<std::string_view> alias_names() const;

 private:
  bool read_cache(const std::string& file);
  void write_cache(const std::string& file) const;

  std::map<std::string, std::vector<std::string>> functions_;
  std::vector<std::pair<std::string, std::string>> aliases_;  // dotted name, file
  std::map<std::string, std::vector<std::string>> globals_;
  std::unordered_map<std::string, std::vector<size_t>> alias_at_;  // name -> indexes into aliases_
  size_t files_ = 0;
};

struct LinkInputs {
  const TapsetIndex* index;
  const PreprocessFacts* facts;
  MacroTable* macros;
  bool guru = false;
};

// Parses and appends to `scripts` every library file the scripts need.
// Returns how many library files were parsed.
size_t link_tapsets(std::vector<ast::Script*>& scripts, SourceManager& sm, ast::Arena& arena,
                    DiagSink& diags, const LinkInputs& in);

}  // namespace stapx
