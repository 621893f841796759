// The tapset library's layout on disk: which directories of a search path
// apply to the target (stap's rule: the directory itself, its runtime
// subdirectory "linux", and their architecture subdirectories), and loading
// the library macros (.stpm files) from them.
#pragma once

#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/preprocess.h"

namespace stapx {

std::vector<std::string> library_dirs(const std::vector<std::string>& search_path,
                                      const PreprocessFacts& facts);

// Defines every macro of every .stpm file in `dirs` as a library macro.
// Returns the number of files read.
size_t load_library_macros(SourceManager& sm, const std::vector<std::string>& dirs,
                           const PreprocessFacts& facts, MacroTable& macros, DiagSink& diags);

}  // namespace stapx
