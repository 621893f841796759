// Parsing of stap format strings: %[flags][width][.precision]conv with
// conv one of d i u o x X c s p b m M %.
#include "frontend/format.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace stapx {

namespace {

// Reads digits or a '*' at f[i]: -1 none, -2 '*', else the value (capped,
// so a huge literal cannot overflow).
int read_count(const std::string& f, size_t& i) {
  if (i < f.size() && f[i] == '*') {
    ++i;
    return -2;
  }
  if (i >= f.size() || !std::isdigit(static_cast<unsigned char>(f[i]))) return -1;
  long v = 0;
  while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) {
    v = std::min<long>(v * 10 + (f[i] - '0'), 1 << 20);
    ++i;
  }
  return static_cast<int>(v);
}

}  // namespace

ParsedFormat parse_format(const std::string& f) {
  ParsedFormat out;
  // The text piece being built: conversions from first_arg on.
  auto text = [&]() -> FormatPiece& {
    if (out.pieces.empty() || out.pieces.back().special) {
      FormatPiece p;
      p.first_arg = out.conversions.size();
      out.pieces.push_back(p);
    }
    return out.pieces.back();
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      text().kernel_format += f[i];
      continue;
    }
    size_t start = i++;
    size_t flags_start = i;
    while (i < f.size() && std::strchr("-+ 0#", f[i])) ++i;
    std::string flags = f.substr(flags_start, i - flags_start);
    int width = read_count(f, i);
    int precision = -1;
    if (i < f.size() && f[i] == '.') {
      ++i;
      precision = read_count(f, i);
      if (precision == -1) precision = 0;
    }
    std::string spec = f.substr(start, i - start);
    // One 'l' length modifier is accepted and means nothing: every integer
    // is 64 bits already ("%ld", as scripts written for C habits use).
    bool length = i < f.size() && f[i] == 'l';
    if (length) ++i;
    if (i >= f.size()) {
      out.error = "incomplete conversion at end of format string";
      if (!length)
        out.syntax = i == start + 1 ? ParsedFormat::Syntax::BadConversion : ParsedFormat::Syntax::Trailing;
      return out;
    }
    char c = f[i];
    bool alt = flags.find('#') != std::string::npos;
    if (c == 'b' || c == 'm' || c == 'M' || (c == 'c' && alt)) {
      if (c == 'b' && width != -1 && width != 1 && width != 2 && width != 4 && width != 8) {
        out.error = "invalid width for %b: it writes 1, 2, 4 or 8 bytes";
        return out;
      }
      FormatPiece p;
      p.special = true;
      p.conv = c;
      p.flags = flags;
      p.width = width;
      p.precision = precision;
      p.first_arg = out.conversions.size();
      if (width == -2) out.conversions.push_back({'*', ast::Type::Long});
      if (precision == -2) out.conversions.push_back({'*', ast::Type::Long});
      out.conversions.push_back({c, ast::Type::Long});
      p.nargs = out.conversions.size() - p.first_arg;
      out.pieces.push_back(p);
      continue;
    }
    size_t piece = &text() - &out.pieces[0];
    size_t before = out.conversions.size();
    if (width == -2) out.conversions.push_back({'*', ast::Type::Long});
    if (precision == -2) out.conversions.push_back({'*', ast::Type::Long});
    std::string kf;
    switch (c) {
      case '%':
        if (out.conversions.size() != before || length) {
          out.error = "'*' is not allowed in %%";
          out.syntax = ParsedFormat::Syntax::BadConversion;
          return out;
        }
        kf = "%%";
        break;
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X':
        kf = spec + "ll" + (c == 'i' ? 'd' : c);
        out.conversions.push_back({c, ast::Type::Long});
        break;
      case 'p': {
        std::string rest = spec.substr(1);
        rest.erase(std::remove(rest.begin(), rest.end(), '#'), rest.end());
        kf = "%#" + rest + "llx";
        out.conversions.push_back({c, ast::Type::Long});
        break;
      }
      case 'c':
        kf = spec + "c";
        out.conversions.push_back({c, ast::Type::Long});
        break;
      case 's':
        kf = spec + "s";
        out.conversions.push_back({c, ast::Type::String});
        break;
      default:
        out.error = std::string("invalid or unsupported conversion '%") + c + "' in format string";
        out.syntax = ParsedFormat::Syntax::BadConversion;
        return out;
    }
    FormatPiece& t = out.pieces[piece];
    t.kernel_format += kf;
    t.nargs += out.conversions.size() - before;
  }
  return out;
}

std::vector<FormatPiece> cut_for_output(const FormatPiece& piece) {
  if (piece.special || piece.literal || piece.kernel_format.find('\0') != std::string::npos) return {piece};
  // Split into literal runs (escapes undone) and conversions, each
  // conversion with the arguments it takes ('*'s, then its value).
  struct Part {
    bool conversion;
    std::string text;
    size_t nargs;
    char plain;  // a plain conversion's letter, else 0
  };
  std::vector<Part> parts;
  const std::string& f = piece.kernel_format;
  for (size_t i = 0; i < f.size();) {
    if (f[i] != '%' || (i + 1 < f.size() && f[i + 1] == '%')) {
      if (parts.empty() || parts.back().conversion) parts.push_back({false, "", 0, 0});
      parts.back().text += f[i];
      i += f[i] == '%' ? 2 : 1;
      continue;
    }
    size_t start = i++, nargs = 1;
    while (i < f.size() && std::strchr("-+ 0#*.0123456789l", f[i])) nargs += f[i++] == '*';
    ++i;  // the conversion letter
    std::string text = f.substr(start, i - start);
    char plain = text == "%lld" ? 'd' : text == "%llu" ? 'u' : text == "%llx" ? 'x' : text == "%llX" ? 'X'
                 : text == "%s"   ? 's'
                                  : 0;
    parts.push_back({true, text, nargs, plain});
  }
  std::vector<FormatPiece> out;
  size_t arg = piece.first_arg;
  auto text = [&]() -> FormatPiece& {
    if (out.empty() || out.back().literal || out.back().plain) {
      FormatPiece p;
      p.first_arg = arg;
      out.push_back(p);
    }
    return out.back();
  };
  auto formatted = [&](size_t k) { return k < parts.size() && parts[k].conversion && !parts[k].plain; };
  for (size_t k = 0; k < parts.size(); ++k) {
    const Part& p = parts[k];
    if (p.conversion && p.plain) {
      FormatPiece conv;
      conv.plain = true;
      conv.conv = p.plain;
      conv.kernel_format = p.text;
      conv.first_arg = arg;
      conv.nargs = 1;
      out.push_back(conv);
      ++arg;
      continue;
    }
    if (p.conversion) {
      text().kernel_format += p.text;
      text().nargs += p.nargs;
      arg += p.nargs;
      continue;
    }
    int beside = (k > 0 && formatted(k - 1)) + formatted(k + 1);
    if (beside == 0 || p.text.size() >= (beside == 2 ? kOwnRunInside : kOwnRunEdge)) {
      FormatPiece lit;
      lit.literal = true;
      lit.kernel_format = p.text;
      lit.first_arg = arg;
      out.push_back(lit);
      continue;
    }
    for (char ch : p.text) text().kernel_format += ch == '%' ? std::string("%%") : std::string(1, ch);
  }
  return out;
}

}  // namespace stapx
