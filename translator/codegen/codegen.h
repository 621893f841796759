// Pass 3: the module's C source from an elaborated Program.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "frontend/source.h"
#include "translator/elaborate/program.h"

namespace stapx {

struct CodegenOptions {
  std::string module_name;
  std::vector<std::pair<std::string, std::string>> defines;  // -D NAME=VALUE
  // Files whose symbols and unwind rows go into the module: those
  // process(...) probes name, -d PATH's, --ldd's.
  std::vector<std::string> user_symbol_files;
};

std::string generate_c(const Program& prog, const SourceManager& sm, const CodegenOptions& opts);

}  // namespace stapx
