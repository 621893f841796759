// printf-style format strings: parsing stap's conversions and rewriting them
// for the kernel's vsnprintf (every integer argument is a 64-bit long).
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"

namespace stapx {

struct FormatConversion {
  char conv;       // 'd', 's', 'x', ...
  ast::Type type;  // argument type it consumes
};

struct ParsedFormat {
  std::vector<FormatConversion> conversions;
  std::string kernel_format;  // for vsnprintf
  std::string error;          // empty when valid
};

ParsedFormat parse_format(const std::string& format);

}  // namespace stapx
