// Rendering of diagnostics in stap's layout.
#include "frontend/diagnostics.h"

#include <array>
#include <cctype>
#include <ostream>

namespace stapx {

namespace {

struct DiagInfo {
  Severity severity;
  const char* text;
};

constexpr DiagInfo kDiags[] = {
#define DIAG(id, sev, text) {Severity::sev, text},
#include "frontend/diagnostics.def"
#undef DIAG
};

constexpr std::string_view kKeywords[] = {
    "probe", "global",  "private", "function", "if",    "else",   "for",
    "foreach", "in",    "limit",   "return",   "delete", "while", "break",
    "continue", "next", "try",     "catch",    "string", "long",  "stats"};

// Longest first, so that the first prefix match is the longest operator.
constexpr std::string_view kOperators[] = {
    "<<<=", ">>>=", "<<<", ">>>", "<<=", ">>=", "...", "&&", "||", "==", "!=", "<=",
    ">=",   "<<",   ">>",  "++",  "--",  "+=",  "-=",  "*=", "/=", "%=", ".=", "&=",
    "|=",   "^=",   "=~",  "!~",  "->",  "%{",  "%}",  "%(",  "%?",  "%:",  "%)",  "+",  "-",  "*",  "/",  "%",
    "<",    ">",    "=",   "!",   "~",   "&",   "|",   "^",  ".",  "?",  ":",  "{",
    "}",    "(",    ")",   "[",   "]",   ",",   ";",   "$"};

}  // namespace

const char* DiagSink::text(DiagId id) { return kDiags[static_cast<int>(id)].text; }
Severity DiagSink::severity(DiagId id) { return kDiags[static_cast<int>(id)].severity; }

std::string DiagSink::describe_token(std::string_view text, size_t off) {
  if (off >= text.size()) return "end of input";
  unsigned char c = static_cast<unsigned char>(text[off]);
  auto word_end = [&](size_t i) {
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
      ++i;
    return i;
  };
  if (std::isalpha(c) || c == '_') {
    std::string_view w = text.substr(off, word_end(off) - off);
    for (auto k : kKeywords)
      if (k == w) return "keyword at";
    return fmt::format("identifier '{}' at", w);
  }
  if ((c == '$' || c == '@') && off + 1 < text.size()) {
    // $var, $$parms; @cast and the other @ operators, which stap calls operators.
    size_t from = c == '$' && text[off + 1] == '$' ? off + 2 : off + 1;
    std::string_view w = text.substr(off, word_end(from) - off);
    return fmt::format("{} '{}' at", c == '@' ? "operator" : "identifier", w);
  }
  if (std::isdigit(c)) return fmt::format("number '{}' at", text.substr(off, word_end(off) - off));
  if (c >= 0x80) return fmt::format("junk '\\x{:02x}' at", c);  // a byte outside ASCII
  if (c == '"') {
    size_t i = off + 1;
    while (i < text.size() && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
    return fmt::format("string '{}' at", text.substr(off + 1, std::min(i, text.size()) - off - 1));
  }
  for (auto op : kOperators)
    if (text.substr(off, op.size()) == op) return fmt::format("operator '{}' at", op);
  return fmt::format("character '{}' at", text.substr(off, 1));
}

void DiagSink::report_suppressed() {
  if (!suppressed_) return;
  out_ << "Number of similar warning messages suppressed: " << suppressed_ << ".\nRerun with -v to see them.\n";
  suppressed_ = 0;
}

void DiagSink::emit(DiagId id, SourceLoc loc, std::string message) {
  Severity sev = severity(id);
  if (sev == Severity::Warning) {
    if (suppress_warnings_) return;
    if (werror_) {
      sev = Severity::SemanticError;
    } else if (!verbose_ && !warned_.insert(message).second) {
      ++suppressed_;
      return;
    }
  }
  if (sev != Severity::Warning && context_.set) {
    context_.set = false;
    emit(context_.id, context_.loc, std::move(context_.message));
  }
  Diagnostic d{id, sev, std::move(message), loc, {}};
  if (loc.valid()) {
    auto [text, off] = sm_.text_at(loc);
    if (!sm_.file(loc.file).is_view) {
      // Skip the whitespace a parser may have stopped in front of.
      while (off < text.size() && std::isspace(static_cast<unsigned char>(text[off]))) ++off;
      d.loc.offset = off;
    }
    d.token = describe_token(text, off);
  }
  // A token of a command-line argument is shown where its $N or @N is, as
  // stap shows it (named as the argument's text).
  uint32_t chain = 0;
  if (d.loc.valid()) {
    auto [real, exp] = sm_.resolve(d.loc);
    chain = exp;
    if (exp && sm_.file(real.file).name == kArgumentsFile) {
      d.loc = sm_.expansion(exp).site;
      chain = sm_.expansion(exp).parent;
    }
  }

  const char* head = "";
  size_t indent = 0;
  switch (sev) {
    case Severity::ParseError:
      head = "parse error: ";
      indent = 13;
      ++parse_errors_;
      break;
    case Severity::SemanticError:
      head = "semantic error: ";
      indent = 16;
      ++semantic_errors_;
      break;
    case Severity::Warning:
      head = "WARNING: ";
      indent = 9;
      ++warnings_;
      break;
  }
  std::string out = head + d.message;
  bool at_eof = d.loc.valid() && sm_.text_at(d.loc).second >= sm_.text_at(d.loc).first.size();
  if (at_eof && sev == Severity::ParseError) {
    // Nothing left to show: stap's "saw: FILE EOF".
    out += "\n        saw: " + sm_.file(d.loc.file).name + " EOF";
  } else if (d.loc.valid()) {
    std::string where = d.token + " " + sm_.describe(d.loc);
    if (sev == Severity::ParseError)
      out += (d.id == DiagId::PpExpected || d.id == DiagId::PpError ? "\n         at: " : "\n        saw: ") + where;
    else
      out += ": " + where;
    std::string_view line = sm_.line_text(d.loc);
    std::string label = std::string(indent - 8, ' ') + "source: ";
    out += "\n" + label + std::string(line) + "\n";
    std::string caret(indent, ' ');
    LineCol lc = sm_.line_col(d.loc);
    for (uint32_t i = 0; i + 1 < lc.col && i < line.size(); ++i) caret += line[i] == '\t' ? '\t' : ' ';
    out += caret + "^";
    // A token that came from a macro: show each call site, innermost first.
    for (uint32_t exp = chain; exp;) {
      const Expansion& e = sm_.expansion(exp);
      LineCol site = sm_.line_col(e.site);
      std::string_view site_line = sm_.line_text(e.site);
      out += "\n" + std::string(indent - 8, ' ') + "in expansion of macro: operator '" + std::string(e.macro) + "' at " +
             sm_.describe(e.site) + "\n" + label + std::string(site_line) + "\n" + std::string(indent, ' ');
      for (uint32_t i = 0; i + 1 < site.col && i < site_line.size(); ++i)
        out += site_line[i] == '\t' ? '\t' : ' ';
      out += "^";
      exp = e.parent;
    }
  }
  out_ << out << "\n";
  if (sev == Severity::ParseError) out_ << "\n";
  all_.push_back(std::move(d));
}

}  // namespace stapx
