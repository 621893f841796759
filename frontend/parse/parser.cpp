// Pass 1 driver for one file: runs the X3 top-level rule declaration by
// declaration, turns X3 failures into diagnostics, and recovers at the next
// line that starts a declaration so that one run reports several errors.
#include "frontend/parse/parser.h"

#include <array>
#include <cstring>
#include <string_view>

#include "frontend/parse/grammar.hpp"
#include "frontend/parse/lower.h"

namespace stapx {

namespace {

namespace x3 = boost::spirit::x3;

constexpr int kMaxNesting = 400;  // bounds the recursive descent's stack use

// Scans the code outside strings, comments and embedded C for what the
// grammar must not see: nesting past kMaxNesting (the recursive descent's
// stack) and bytes outside ASCII (X3's character classes take only ASCII).
// Returns the first such place, or null; *why says which.
const char* unparsable(const char* p, const char* end, DiagId* why) {
  // Bytes that need a look: the rest of the code is skipped in one loop.
  static const auto special = [] {
    std::array<bool, 256> t{};
    for (int c = 0x80; c < 256; ++c) t[c] = true;
    for (unsigned char c : std::string_view("%\"#/([{)]}")) t[c] = true;
    return t;
  }();
  int depth = 0;
  while (p < end) {
    while (p < end && !special[static_cast<unsigned char>(*p)]) ++p;
    if (p == end) break;
    char c = *p;
    if (static_cast<unsigned char>(c) >= 0x80) {
      *why = DiagId::ParseBadCharacter;
      return p;
    }
    if (c == '%' && p + 1 < end && p[1] == '{') {
      // An unterminated block is not C: the parser reports it, and
      // recovery may parse what follows, so keep scanning that.
      const char* close = static_cast<const char*>(memmem(p + 2, end - p - 2, "%}", 2));
      p = close ? close + 2 : p + 2;
      continue;
    }
    if (c == '"') {
      for (++p; p < end && *p != '"' && *p != '\n'; ++p)
        if (*p == '\\') ++p;
    } else if (c == '#' || (c == '/' && p + 1 < end && p[1] == '/')) {
      while (p < end && *p != '\n') ++p;
    } else if (c == '/' && p + 1 < end && p[1] == '*') {
      const char* close = static_cast<const char*>(memmem(p + 2, end - p - 2, "*/", 2));
      p = close ? close + 1 : end;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxNesting) {
        *why = DiagId::ParseTooDeep;
        return p;
      }
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
    ++p;
  }
  return nullptr;
}

bool starts_declaration(const char* p, const char* end) {
  for (const char* kw : {"probe", "global", "function", "private"}) {
    size_t n = strlen(kw);
    if (static_cast<size_t>(end - p) >= n && memcmp(p, kw, n) == 0 &&
        (p + n == end || !(isalnum(static_cast<unsigned char>(p[n])) || p[n] == '_')))
      return true;
  }
  return false;
}

// The next line after `p` whose first word starts a declaration.
const char* recovery_point(const char* p, const char* end) {
  while (p < end) {
    const char* nl = static_cast<const char*>(memchr(p, '\n', end - p));
    if (!nl) return end;
    p = nl + 1;
    const char* q = p;
    while (q < end && (*q == ' ' || *q == '\t')) ++q;
    if (starts_declaration(q, end)) return q;
  }
  return end;
}

// X3 names literals as 'x' and rules by their names; keep those, and say
// "keyword" for the lexeme parsers of reserved words.
std::string expected_text(const std::string& which) {
  if (which.find("lexeme") != std::string::npos) {
    // A keyword parser describes itself as lexeme[... "word" ...].
    size_t q = which.find('"');
    size_t e = q == std::string::npos ? q : which.find('"', q + 1);
    if (e != std::string::npos) return "'" + which.substr(q + 1, e - q - 1) + "'";
    return "keyword";
  }
  // An unnamed X3 parser describes itself by its C++ type: say what it is.
  if (which.find("boost") != std::string::npos || which.find("spirit") != std::string::npos)
    return "valid syntax";
  return which;
}

}  // namespace

ast::Script* parse_file(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags,
                        const ParseOptions& opts) {
  auto* script = arena.make<ast::Script>(SourceLoc{file, 0});
  script->file = file;
  const std::string& text = sm.file(file).text;
  const char* begin = text.data();
  const char* end = begin + text.size();
  parse::Lowerer lower(sm, file, arena, diags, opts.args, opts.guru || sm.file(file).is_tapset);

  DiagId why = DiagId::ParseTooDeep;
  if (const char* bad = unparsable(begin, end, &why)) {
    diags.report(why, lower.loc(bad));
    return script;
  }

  // The grammar's actions build expression nodes through `lower`.
  struct Active {
    parse::Lowerer* saved = parse::active_lowerer;
    explicit Active(parse::Lowerer& l) { parse::active_lowerer = &l; }
    ~Active() { parse::active_lowerer = saved; }
  } active(lower);

  const char* p = begin;
  while (true) {
    x3::phrase_parse(p, end, x3::eps, parse::grammar::skipper);  // skip blanks, comments
    if (p == end) break;
    parse::x3ast::TopLevel top;
    const char* start = p;
    lower.begin_declaration();
    try {
      if (x3::phrase_parse(p, end, parse::grammar::toplevel_ref, parse::grammar::skipper, top)) {
        lower.lower(top, *script);
        continue;
      }
      lower.drop_declaration();
      diags.report(DiagId::ParseExpected, lower.loc(start),
                   "'probe', 'global', 'private', 'function' or '%{'");
      p = recovery_point(start, end);
    } catch (const x3::expectation_failure<const char*>& f) {
      lower.drop_declaration();
      if (f.which() == "'\"'") {
        // An unterminated string: point at its opening quote, as stap does.
        const char* open = f.where();
        while (open > begin && open[-1] != '\n' && !(open[-1] == '"' && (open - 1 == begin || open[-2] != '\\')))
          --open;
        diags.report(DiagId::ParseUnterminatedString, lower.loc(open > begin ? open - 1 : open));
        p = recovery_point(f.where(), end);
        continue;
      }
      diags.report(DiagId::ParseExpected, lower.loc(f.where()), expected_text(f.which()));
      p = recovery_point(f.where(), end);
    }
  }
  return script;
}

}  // namespace stapx
