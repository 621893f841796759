// printf-style format strings: parsing stap's conversions and rewriting them
// for the kernel's vsnprintf (every integer argument is a 64-bit long).
// Conversions vsnprintf cannot do (%b binary, %m/%M memory, %#c escapes)
// become pieces of their own, done by the runtime (_stpx_format_special).
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"

namespace stapx {

struct FormatConversion {
  char conv;       // 'd', 's', 'x', ... ; '*' for a width or precision
  ast::Type type;  // argument type it consumes
};

// A run of the format: either text for vsnprintf consuming `nargs`
// arguments from `first_arg`, or one special conversion.
struct FormatPiece {
  bool special = false;
  bool literal = false;       // !special: kernel_format is plain text (no conversions, no %% escapes)
  // !special (cut_for_output only): one conversion with nothing but its
  // letter, in conv ('d', 'u', 'x', 'X' or 's'): the runtime writes it
  // without vsnprintf. kernel_format holds its vsnprintf form all the same.
  bool plain = false;
  std::string kernel_format;  // !special
  size_t first_arg = 0;       // index into conversions
  size_t nargs = 0;
  // special: conv is 'b', 'm', 'M' or 'c' (the '#' form); flags as
  // written; width/precision: -1 absent, -2 '*' (its argument comes
  // first, width before precision), else the literal value.
  char conv = 0;
  std::string flags;
  int width = -1;
  int precision = -1;
};

struct ParsedFormat {
  std::vector<FormatConversion> conversions;
  std::vector<FormatPiece> pieces;
  std::string error;  // empty when valid
  // What stap's parser already rejects (pass 1), a subset of `error`:
  // a bad or missing conversion letter, or a conversion cut off by the
  // end of the string after its flags, width or precision.
  enum class Syntax : uint8_t { Ok, BadConversion, Trailing } syntax = Syntax::Ok;
};

ParsedFormat parse_format(const std::string& format);

// A text piece cut for output. Its plain conversions (%d, %u, %x, %X, %s
// with no flag, width or precision) become pieces of their own, which the
// runtime writes without vsnprintf (which decodes the format on each
// call). Its literal runs become literal pieces, copied as they are,
// unless they are short and beside another conversion (under kOwnRunEdge
// bytes with such a conversion on one side, under kOwnRunInside with one
// on both): those stay text for vsnprintf with that conversion, which
// scans a format byte by byte.
std::vector<FormatPiece> cut_for_output(const FormatPiece& piece);
inline constexpr size_t kOwnRunEdge = 8;
inline constexpr size_t kOwnRunInside = 32;

}  // namespace stapx
