// The grammar's tokens: the few that need more than a copy.
#include "frontend/token_maker.h"

#include <string_view>

namespace stapx {

// A Dollar token with a pretty-printing suffix ("$var$", "$$parms$$") is
// two: the name, and the suffix as an operator glued to it, made after it
// at to[1]; a token of '$'s alone (after "]") is that operator. So is the
// suffix of a field name ("->name$"). Returns the tokens it is.
int TokenMaker::split(Tok* to, Tok& t) {
  std::string_view v = t.view();
  size_t lead = t.kind == TokKind::Dollar ? v.find_first_not_of('$') : 0;
  if (lead == std::string_view::npos) {
    if (v.size() <= 4) {
      t.kind = TokKind::Op;
      t.code = op_code(v);
    }
    return 1;
  }
  size_t dollar = v.find('$', lead);
  if (dollar != std::string_view::npos && dollar > lead && v.find_first_not_of('$', dollar) == std::string_view::npos &&
      v.size() - dollar <= 2) {
    Tok& suffix = to[1];
    suffix = t;
    t.len = static_cast<uint32_t>(dollar);
    suffix.kind = TokKind::Op;
    suffix.word = Word::None;
    suffix.text = t.text + dollar;
    suffix.len = static_cast<uint32_t>(v.size() - dollar);
    suffix.code = op_code(suffix.view());
    return 2;
  }
  return 1;
}

bool TokenMaker::special(Tok*& to, int depth_now, Tok& t) {
  if (problem != TokenProblem::None) {
    ++to;  // (see add(): in its place, and no more)
    return false;
  }
  if (depth_now > kMaxNesting) {  // (only an opening bracket gets here)
    problem = TokenProblem::TooDeep;
    problem_at = t.loc;
    ++to;
    return false;
  }
  switch (t.kind) {
    case TokKind::Ident:  // holding a '$': after "->", a field name with a suffix
      // (The first token has a token that is none before it.)
      to += to[-1].is_op(op_code("->")) ? split(to, t) : 1;
      return true;
    case TokKind::Dollar: to += split(to, t); return true;
    case TokKind::Op:
      if (t.len == 1) {
        // The grammar takes ASCII only (outside strings, comments and C):
        // another byte is junk that no rule takes, so the parser reports
        // what it expected there, as stap does.
        t.kind = TokKind::Error;
        ++to;
        return true;
      }
      break;  // "->"
    case TokKind::Error:
      // An unterminated comment runs to the end of the input, where the
      // parser reports what it still expected; an unterminated string or
      // %{ block is a token that no rule takes.
      if (t.len >= 2 && t.text[0] == '/' && t.text[1] == '*') return false;
      ++to;
      return false;
    default: break;
  }
  ++to;
  return true;
}

}  // namespace stapx
