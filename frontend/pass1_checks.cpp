#include "frontend/pass1_checks.h"

#include <string_view>
#include <unordered_map>

#include "frontend/ast_visitor.h"
#include "frontend/format.h"

namespace stapx {

namespace {

using namespace ast;

// Where the token after the string literal at `loc` starts (after any
// adjacent literals, which are one string): stap reports format errors
// there, having read the whole literal.
SourceLoc after_string(const SourceManager& sm, SourceLoc loc) {
  loc = sm.resolve(loc).first;  // a preprocessed view's token: in its real file
  std::string_view text = sm.file(loc.file).text;
  size_t i = loc.offset;
  while (i < text.size() && text[i] == '"') {
    for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
      if (text[i] == '\\') ++i;
    if (i < text.size()) ++i;  // the closing quote
    while (i < text.size()) {  // blanks and comments
      char c = text[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i;
      } else if (c == '#' || text.substr(i, 2) == "//") {
        while (i < text.size() && text[i] != '\n') ++i;
      } else if (text.substr(i, 2) == "/*") {
        size_t close = text.find("*/", i + 2);
        i = close == std::string_view::npos ? text.size() : close + 2;
      } else {
        break;
      }
    }
  }
  return SourceLoc{loc.file, static_cast<uint32_t>(std::min(i, text.size()))};
}

bool is_histogram(const Expr* e) {
  if (e->kind != ExprKind::AtOp) return false;
  const auto* a = static_cast<const AtOpExpr*>(e);
  return a->op == At::HistLog || a->op == At::HistLinear;
}

// The first operand of an expression, whose token starts it.
const Expr* leftmost(const Expr* e) {
  while (true) {
    if (e->kind == ExprKind::Binary)
      e = static_cast<const BinaryExpr*>(e)->lhs;
    else if (e->kind == ExprKind::Ternary)
      e = static_cast<const TernaryExpr*>(e)->cond;
    else if (e->kind == ExprKind::Assign)
      e = static_cast<const AssignExpr*>(e)->lhs;
    else
      return e;
  }
}

class Checker : public Visitor<Checker, true> {
 public:
  explicit Checker(DiagSink& diags) : diags_(diags), sm_(diags.sources()) {}

  void script(const Script& s) {
    std::unordered_map<std::string_view, const GlobalDecl*> globals;
    for (const GlobalDecl* g : s.globals) {
      auto [it, fresh] = globals.emplace(g->name, g);
      if (!fresh)
        diags_.report(it->second->is_private == g->is_private ? DiagId::ParseDuplicateGlobal
                                                              : DiagId::ParseGlobalPrivateConflict,
                      g->loc);
    }
    for (const ProbeDecl* p : s.probes) {
      for (const ProbePoint* pp : p->points)
        if (pp->condition) visit(pp->condition);
      visit(p->body);
    }
    for (const AliasDecl* a : s.aliases) {
      visit(a->body);
      visit(a->second);
    }
    for (const GlobalDecl* g : s.globals)
      if (g->sized && g->max_entries <= 0) diags_.report(DiagId::ParseArraySize, g->loc);
    in_function_ = true;
    for (const FunctionDecl* f : s.functions) {
      for (size_t i = 0; i < f->params.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (f->params[j].name == f->params[i].name) {
            diags_.report(DiagId::ParseDuplicateParam, f->params[i].loc);
            break;
          }
      visit(f->body);
    }
    in_function_ = false;
  }

  void visit_foreach(const ForeachStmt* f) {
    // foreach (b in @hist_log(s)) iterates a histogram's buckets.
    histogram_ok_ = f->histogram;
    walk(f);
  }

  void visit_return(const ReturnStmt* s) {
    if (!in_function_) diags_.report(DiagId::ParseReturnOutsideFunction, s->loc);
    walk(s);
  }

  void visit_call(const CallExpr* c) {
    bool format = c->name == "printf" || c->name == "sprintf";
    if (format && !c->args.empty()) {
      const Expr* f = c->args[0];
      if (f->kind != ExprKind::String) {
        diags_.report(DiagId::ParseExpected, leftmost(f)->loc, "literal string");
      } else {
        ParsedFormat pf = parse_format(static_cast<const StringLit*>(f)->value.str());
        if (pf.syntax != ParsedFormat::Syntax::Ok)
          diags_.report(pf.syntax == ParsedFormat::Syntax::Trailing ? DiagId::ParseTrailingConversion
                                                                     : DiagId::ParseBadConversion,
                        after_string(sm_, f->loc));
      }
    }
    // printd(",", ...): a literal delimiter, then at least one value.
    bool delimited = c->name == "printd" || c->name == "printdln" || c->name == "sprintd" || c->name == "sprintdln";
    if (delimited && !c->args.empty() && c->args[0]->kind != ExprKind::String)
      diags_.report(DiagId::ParseExpected, leftmost(c->args[0])->loc, "literal string");
    else if (delimited && c->args.size() < 2)
      diags_.report(DiagId::ParseExpected, c->loc, c->args.empty() ? "literal string" : "literal string or number");
    // A histogram is printed whole only as the one argument of these.
    if (c->args.size() == 1 &&
        (c->name == "print" || c->name == "println" || c->name == "sprint" || c->name == "sprintln"))
      histogram_ok_ = c->args[0];
    walk(c);
  }

  void visit_at_op(const AtOpExpr* a) {
    // A bucket of a histogram (@hist_log(s)[i]) is a value.
    if (is_histogram(a) && a->components.empty() && a != histogram_ok_)
      diags_.report(DiagId::ParseHistogramValue, a->loc);
    if (a->op == At::Variance && a->args.size() == 2) {
      // stap reads the shift as a number token, after an optional '-'.
      const Expr* shift = leftmost(a->args[1]);
      if (shift->kind == ExprKind::Unary && static_cast<const UnaryExpr*>(shift)->op == Op::Neg)
        shift = leftmost(static_cast<const UnaryExpr*>(shift)->operand);
      if (shift->kind != ExprKind::Number) diags_.report(DiagId::ParseExpected, shift->loc, "number");
    }
    walk(a);
  }

 private:
  DiagSink& diags_;
  const SourceManager& sm_;
  bool in_function_ = false;
  // The one expression where a whole histogram may stand: a foreach's, or
  // the argument of print() and its kin.
  const Expr* histogram_ok_ = nullptr;
};

}  // namespace

void check_pass1(const Script& script, DiagSink& diags) { Checker(diags).script(script); }

}  // namespace stapx
