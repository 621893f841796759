// Pass 1 driver for one file: makes the file's tokens, runs the X3
// top-level rule over them declaration by declaration, turns X3 failures
// into diagnostics, and recovers at the next line that starts a declaration
// so that one run reports several errors.
#include "frontend/parse/parser.h"

#include <array>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>

#include "frontend/parse/grammar.hpp"
#include "frontend/parse/lower.h"

namespace stapx {

namespace parse {

namespace {

// Reports why the grammar must not see a file's tokens.
void report(TokenProblem problem, SourceLoc at, DiagSink& diags) {
  if (problem == TokenProblem::TooDeep) diags.report(DiagId::ParseTooDeep, at);
}

}  // namespace

std::span<const Tok> make_tokens(const SourceManager& sm, uint32_t file, std::vector<Tok>& buf, DiagSink& diags) {
  const SourceFile& f = sm.file(file);
  if (f.is_view) {
    // Made as the preprocessor chose them. (A view's tokens are there
    // until the next view is begun: every caller parses a view as soon
    // as it is made.)
    if (!sm.has_tokens(file)) throw std::logic_error("make_tokens: the tokens of view " + f.name + " are gone");
    if (f.problem != TokenProblem::None) {
      report(f.problem, f.problem_at, diags);
      return {};
    }
    return f.tokens;
  }
  thread_local TokenArray<Tok> lexed;
  tokenize(f.text, file, lexed);
  // The buffer only grows: its Toks are made once, and rewritten per file.
  // (First, a token that is none: the one before the first, for Tok::glued.)
  if (buf.size() < 2 * lexed.size() + 2) buf.resize(2 * lexed.size() + 2);
  buf[0] = none_token();
  TokenMaker m(buf.data() + 1);
  Tok* to = m.out;
  ExpandedLoc* none = nullptr;
  int depth = 0;
  for (const Tok& k : lexed)
    if (!m.add<false>(to, none, depth, k)) break;
  m.out = to;
  if (m.problem != TokenProblem::None) {
    report(m.problem, m.problem_at, diags);
    return {};
  }
  *m.out++ = end_token(SourceLoc{file, static_cast<uint32_t>(f.text.size())});
  return {buf.data() + 1, static_cast<size_t>(m.out - (buf.data() + 1))};
}

}  // namespace parse

namespace {

namespace x3 = boost::spirit::x3;
using parse::Tok;
using parse::Word;

bool starts_declaration(const Tok& t) {
  return t.is(Word::Probe) || t.is(Word::Global) || t.is(Word::Function) || t.is(Word::Private);
}

// Whether a token is the first on its line in the text it came from.
bool first_on_line(const SourceManager& sm, const Tok& t) {
  SourceLoc real = sm.resolve(t.loc).first;
  std::string_view text = sm.file(real.file).text;
  size_t i = real.offset;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  return i == 0 || text[i - 1] == '\n';
}

// A token the preprocessor reported (a macro call with bad arguments, an
// unknown @name, a $N or @N past the last argument): left in its place, as
// an Error token, which no rule takes. (The lexer's Error tokens are
// unterminated strings, comments and %{ blocks.)
bool is_reported_token(const Tok& t) {
  return t.kind == TokKind::Error && (t.text[0] == '@' || t.text[0] == '$');
}

// The next token after `p` that starts a line with a declaration's first
// word (the last token, End, if none).
const Tok* recovery_point(const SourceManager& sm, const Tok* p, const Tok* end) {
  for (++p; p < end; ++p)
    if (starts_declaration(*p) && first_on_line(sm, *p)) return p;
  return end;
}

// Reports a failed expectation of `which` at `at`. X3 names literals as 'x'
// and rules by their names; a name starting with '!' is the whole message.
void report_expected(const Tok& at, const std::string& which, DiagSink& diags) {
  if (which.starts_with('!')) {
    diags.report(DiagId::ParseMessage, at.loc, which.substr(1));
  } else if (which.find("boost") != std::string::npos || which.find("spirit") != std::string::npos) {
    // An unnamed X3 parser describes itself by its C++ type: say what it is.
    diags.report(DiagId::ParseExpected, at.loc, "valid syntax");
  } else if (which == "identifier" && at.kind == TokKind::End) {
    diags.report(DiagId::ParseMessage, at.loc, "unexpected end-of-file");  // stap's words
  } else if (which == "statement") {
    diags.report(DiagId::ParseExpected, at.loc, parse::grammar::statement_expectation(at));
  } else {
    diags.report(DiagId::ParseExpected, at.loc, which);
  }
}

// An unterminated string or %{ block, whose opening the lexer left as an
// Error token: its error, at the opening, as stap reports it.
bool report_unterminated(const Tok& at, DiagSink& diags) {
  if (at.kind != TokKind::Error) return false;
  if (at.text[0] == '"') {
    diags.report(DiagId::ParseUnterminatedString, at.loc);
    return true;
  }
  if (at.text[0] == '%') {
    diags.report(DiagId::ParseUnterminatedEmbedded, at.loc);
    return true;
  }
  return false;
}

}  // namespace

ast::Script* parse_file(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags,
                        const ParseOptions& opts) {
  auto* script = arena.make<ast::Script>(SourceLoc{file, 0});
  script->file = file;
  parse::Lowerer lower(sm, file, arena, diags, opts.args, opts.guru || sm.file(file).is_tapset);

  thread_local std::vector<Tok> buffer;
  std::span<const Tok> tokens = parse::make_tokens(sm, file, buffer, diags);
  if (tokens.empty()) return script;

  // The grammar's actions build expression nodes through `lower`.
  struct Active {
    parse::Lowerer* saved = parse::active_lowerer;
    explicit Active(parse::Lowerer& l) { parse::active_lowerer = &l; }
    ~Active() { parse::active_lowerer = saved; }
  } active(lower);

  // The End token is not part of the range: a rule that runs out of input
  // fails at it, and its location is the end of the input.
  const Tok* p = tokens.data();
  const Tok* end = tokens.data() + tokens.size() - 1;
  while (p != end) {
    parse::ScratchScope tree_memory;  // outlives `top`
    parse::x3ast::TopLevel top;
    const Tok* start = p;
    lower.begin_declaration();
    try {
      if (x3::parse(p, end, parse::grammar::toplevel_ref, top)) {
        lower.lower(top, *script);
        continue;
      }
      if (!lower.drop_declaration(start->loc) && !report_unterminated(*start, diags) && !is_reported_token(*start))
        diags.report(DiagId::ParseExpected, start->loc, "'probe', 'global', 'private', 'function', or '%{'");
      p = recovery_point(sm, start, end);
    } catch (const x3::expectation_failure<const Tok*>& f) {
      const Tok* at = f.where();
      // (At a reported token, its error is already said.)
      if (!lower.drop_declaration(at->loc) && !report_unterminated(*at, diags) && !is_reported_token(*at))
        report_expected(*at, f.which(), diags);
      p = recovery_point(sm, at, end);
    }
  }
  return script;
}

}  // namespace stapx
