// Parsing of stap format strings: %[flags][width][.precision]conv with
// conv one of d i u o x X c s p %.
#include "translator/builtins/format.h"

#include <cctype>
#include <cstring>

namespace stapx {

ParsedFormat parse_format(const std::string& f) {
  ParsedFormat out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.kernel_format += f[i];
      continue;
    }
    size_t start = i++;
    while (i < f.size() && std::strchr("-+ 0#", f[i])) ++i;
    // A '*' width or precision takes its value from the next argument.
    if (i < f.size() && f[i] == '*') {
      out.conversions.push_back({'*', ast::Type::Long});
      ++i;
    }
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) ++i;
    if (i < f.size() && f[i] == '.') {
      ++i;
      if (i < f.size() && f[i] == '*') {
        out.conversions.push_back({'*', ast::Type::Long});
        ++i;
      }
      while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) ++i;
    }
    if (i >= f.size()) {
      out.error = "incomplete conversion at end of format string";
      return out;
    }
    std::string spec = f.substr(start, i - start);
    char c = f[i];
    switch (c) {
      case '%':
        out.kernel_format += "%%";
        break;
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        out.kernel_format += spec + "ll" + (c == 'i' ? 'd' : c);
        out.conversions.push_back({c, ast::Type::Long});
        break;
      case 'p':
        out.kernel_format += spec + "#llx";
        out.conversions.push_back({c, ast::Type::Long});
        break;
      case 'c':
        out.kernel_format += spec + "c";
        out.conversions.push_back({c, ast::Type::Long});
        break;
      case 's':
        out.kernel_format += spec + "s";
        out.conversions.push_back({c, ast::Type::String});
        break;
      default:
        out.error = std::string("invalid or unsupported conversion '%") + c + "' in format string";
        return out;
    }
  }
  return out;
}

}  // namespace stapx
