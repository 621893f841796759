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

constexpr int kMaxNesting = 400;  // bounds the recursive descent's stack use

// What each one-byte operator does to the nesting of brackets (by its
// code's low 7 bits: see TokMaker::add).
constexpr auto kNesting = [] {
  std::array<int8_t, 128> t{};
  t['('] = t['['] = t['{'] = 1;
  t[')'] = t[']'] = t['}'] = -1;
  return t;
}();

// The state of make_tokens' walk: where the next token goes, and what
// the previous one was.
struct TokMaker {
  Tok* out;  // room for two tokens per input token, and the End token
  DiagSink* diags;
  int depth = 0;
  bool bad = false;

  // A Dollar token with a pretty-printing suffix ("$var$", "$$parms$$") is
  // two: the name, and the suffix as an operator glued to it; a token of
  // '$'s alone (after "]") is that operator. So is the suffix of a field
  // name ("->name$").
  void split(Tok& t) {
    std::string_view v = t.view();
    size_t lead = t.kind == TokKind::Dollar ? v.find_first_not_of('$') : 0;
    if (lead == std::string_view::npos) {
      if (v.size() <= 4) {
        t.kind = TokKind::Op;
        t.code = op_code(v);
      }
      return;
    }
    size_t dollar = v.find('$', lead);
    if (dollar != std::string_view::npos && dollar > lead && v.find_first_not_of('$', dollar) == std::string_view::npos &&
        v.size() - dollar <= 2) {
      Tok& suffix = out[1];
      suffix = t;
      t.len = static_cast<uint32_t>(dollar);
      suffix.kind = TokKind::Op;
      suffix.word = Word::None;
      suffix.text = t.text + dollar;
      suffix.len = static_cast<uint32_t>(v.size() - dollar);
      suffix.code = op_code(suffix.view());
      ++out;
    }
  }

  // Token `in` as the grammar sees it, at `loc`; false once the input ends
  // here. The lexer classified it: what is left is to count the nesting
  // of brackets, and, for the few tokens it marked kSpecial, to check the
  // bytes and split pretty-printing suffixes. (Inlined into both of
  // make_tokens' loops: it runs once per token.)
  __attribute__((always_inline)) bool add(const Tok& in, SourceLoc loc) {
    Tok& t = *out;
    t = in;
    t.loc = loc;
    // (Only a one-byte operator's code is a bracket: no operator of more
    // bytes starts with one, and a byte outside ASCII is kSpecial.)
    depth += kNesting[t.code & 0x7f];
    if (__builtin_expect((t.ops & kSpecial) || depth > kMaxNesting, 0)) return special(t);
    ++out;
    return true;
  }

  __attribute__((noinline)) bool special(Tok& t) {
    if (depth > kMaxNesting) {  // (only an opening bracket gets here)
      diags->report(DiagId::ParseTooDeep, t.loc);
      bad = true;
      return false;
    }
    switch (t.kind) {
      case TokKind::Ident:  // holding a '$': after "->", a field name with a suffix
        // (The first token has make_tokens' token that is none before it.)
        if (out[-1].is_op(op_code("->"))) split(t);
        break;
      case TokKind::Dollar: split(t); break;
      case TokKind::Op:
        if (t.len == 1) {
          // The grammar takes ASCII only (outside strings, comments and C).
          diags->report(DiagId::ParseBadCharacter, t.loc);
          bad = true;
          return false;
        }
        break;  // "->"
      case TokKind::Error:
        // An unterminated comment runs to the end of the input, where the
        // parser reports what it still expected; an unterminated string or
        // %{ block is a token that no rule takes.
        if (t.len >= 2 && t.text[0] == '/' && t.text[1] == '*') return false;
        ++out;
        return false;
      default: break;
    }
    ++out;
    return true;
  }
};

}  // namespace

std::span<const Tok> make_tokens(const SourceManager& sm, uint32_t file, std::vector<Tok>& buf, DiagSink& diags) {
  const SourceFile& f = sm.file(file);
  thread_local TokenArray<Tok> lexed;
  size_t n = f.tokens.size();
  if (!f.is_view) {
    tokenize(f.text, file, lexed);
    n = lexed.size();
  }
  // The buffer only grows: its Toks are made once, and rewritten per file.
  // (First, a token that is none: the one before the first, for Tok::glued.)
  if (buf.size() < 2 * n + 2) buf.resize(2 * n + 2);
  buf[0] = Tok{};
  buf[0].kind = TokKind::End;
  TokMaker m{buf.data() + 1, &diags};
  SourceLoc end;
  if (f.is_view) {
    // (A view's tokens are there until the next view is begun: every
    // caller parses a view as soon as it is made.)
    if (!sm.has_tokens(file)) throw std::logic_error("make_tokens: the tokens of view " + f.name + " are gone");
    // A token's location is in its real file, or, for one that came
    // through an expansion, the next of the view's expanded locations,
    // written here: each token's is, and the cursor moves past those of
    // expanded tokens (no branch per token).
    thread_local std::vector<ExpandedLoc> all;
    if (all.size() < f.tokens.size() + 1) all.resize(f.tokens.size() + 1);
    ExpandedLoc* w = all.data();
    for (const Tok& v : f.tokens) {
      *w = {v.loc.file, v.loc.offset, v.expansion};
      SourceLoc loc = v.expansion ? SourceLoc{file, static_cast<uint32_t>(w - all.data())} : v.loc;
      w += v.expansion != 0;
      if (!m.add(v, loc)) break;
    }
    f.expanded.assign(all.data(), w);
    // The end of the input: the end of the file the view is of.
    end = SourceLoc{f.source, static_cast<uint32_t>(sm.file(f.source).text.size())};
  } else {
    for (const Tok& k : lexed)
      if (!m.add(k, k.loc)) break;
    end = SourceLoc{file, static_cast<uint32_t>(f.text.size())};
  }
  if (m.bad) return {};  // reported: a byte outside ASCII, or too deep
  Tok& last = *m.out++;
  last = Tok{};
  last.kind = TokKind::End;
  last.text = "";
  last.loc = end;
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

// The next token after `p` that starts a line with a declaration's first
// word (the last token, End, if none).
const Tok* recovery_point(const SourceManager& sm, const Tok* p, const Tok* end) {
  for (++p; p < end; ++p)
    if (starts_declaration(*p) && first_on_line(sm, *p)) return p;
  return end;
}

// X3 names literals as 'x' and rules by their names; keep those.
std::string expected_text(const std::string& which) {
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
      lower.drop_declaration();
      if (start->kind == TokKind::Error && start->text[0] == '"')
        diags.report(DiagId::ParseUnterminatedString, start->loc);
      else
        diags.report(DiagId::ParseExpected, start->loc, "'probe', 'global', 'private', 'function' or '%{'");
      p = recovery_point(sm, start, end);
    } catch (const x3::expectation_failure<const Tok*>& f) {
      lower.drop_declaration();
      const Tok* at = f.where();
      if (at->kind == TokKind::Error && at->text[0] == '"') {
        // An unterminated string: at its opening quote, as stap reports it.
        diags.report(DiagId::ParseUnterminatedString, at->loc);
      } else {
        diags.report(DiagId::ParseExpected, at->loc, expected_text(f.which()));
      }
      p = recovery_point(sm, at, end);
    }
  }
  return script;
}

}  // namespace stapx
