#include "translator/pass1_checks.h"

#include <string_view>
#include <unordered_map>

#include "translator/builtins/format.h"

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
  return a->name == "hist_log" || a->name == "hist_linear";
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

class Checker {
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
        if (pp->condition) expr(pp->condition);
      stmt(p->body);
    }
    for (const AliasDecl* a : s.aliases) {
      stmt(a->body);
      stmt(a->second);
    }
    in_function_ = true;
    for (const FunctionDecl* f : s.functions) stmt(f->body);
    in_function_ = false;
  }

 private:
  void stmt(const Stmt* s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Block:
        for (const Stmt* c : static_cast<const BlockStmt*>(s)->stmts) stmt(c);
        break;
      case StmtKind::Expr:
        expr(static_cast<const ExprStmt*>(s)->expr);
        break;
      case StmtKind::If: {
        const auto* i = static_cast<const IfStmt*>(s);
        expr(i->cond);
        stmt(i->then);
        stmt(i->els);
        break;
      }
      case StmtKind::While: {
        const auto* w = static_cast<const WhileStmt*>(s);
        expr(w->cond);
        stmt(w->body);
        break;
      }
      case StmtKind::For: {
        const auto* f = static_cast<const ForStmt*>(s);
        expr(f->init);
        expr(f->cond);
        expr(f->incr);
        stmt(f->body);
        break;
      }
      case StmtKind::Foreach: {
        const auto* f = static_cast<const ForeachStmt*>(s);
        if (f->histogram) expr(f->histogram, /*histogram_ok=*/true);
        for (const Expr* k : f->slice) expr(k);
        expr(f->limit);
        stmt(f->body);
        break;
      }
      case StmtKind::Return:
        if (!in_function_) diags_.report(DiagId::ParseReturnOutsideFunction, s->loc);
        expr(static_cast<const ReturnStmt*>(s)->value);
        break;
      case StmtKind::Delete:
        expr(static_cast<const DeleteStmt*>(s)->target);
        break;
      case StmtKind::Try: {
        const auto* t = static_cast<const TryStmt*>(s);
        stmt(t->body);
        stmt(t->handler);
        break;
      }
      case StmtKind::Next:
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Null:
        break;
    }
  }

  void components(std::span<const TargetComponent> cs) {
    for (const TargetComponent& c : cs) expr(c.index);
  }

  void call(const CallExpr* c) {
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
    // A histogram is printed whole only as the one argument of these.
    bool printer = c->args.size() == 1 &&
                   (c->name == "print" || c->name == "println" || c->name == "sprint" || c->name == "sprintln");
    for (const Expr* a : c->args) expr(a, printer);
  }

  void expr(const Expr* e, bool histogram_ok = false) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Number:
      case ExprKind::String:
      case ExprKind::Var:
      case ExprKind::Embedded:
      case ExprKind::Wildcard:
        break;
      case ExprKind::Index:
        for (const Expr* k : static_cast<const IndexExpr*>(e)->keys) expr(k);
        break;
      case ExprKind::Call:
        call(static_cast<const CallExpr*>(e));
        break;
      case ExprKind::Unary:
        expr(static_cast<const UnaryExpr*>(e)->operand);
        break;
      case ExprKind::Binary: {
        const auto* b = static_cast<const BinaryExpr*>(e);
        expr(b->lhs);
        expr(b->rhs);
        break;
      }
      case ExprKind::Ternary: {
        const auto* t = static_cast<const TernaryExpr*>(e);
        expr(t->cond);
        expr(t->then);
        expr(t->els);
        break;
      }
      case ExprKind::Assign: {
        const auto* a = static_cast<const AssignExpr*>(e);
        expr(a->lhs);
        expr(a->rhs);
        break;
      }
      case ExprKind::InArray:
        for (const Expr* k : static_cast<const InArrayExpr*>(e)->keys) expr(k);
        break;
      case ExprKind::Target:
        components(static_cast<const TargetExpr*>(e)->components);
        break;
      case ExprKind::AtOp: {
        const auto* a = static_cast<const AtOpExpr*>(e);
        // A bucket of a histogram (@hist_log(s)[i]) is a value.
        if (is_histogram(a) && a->components.empty() && !histogram_ok)
          diags_.report(DiagId::ParseHistogramValue, a->loc);
        if (a->name == "variance" && a->args.size() == 2) {
          // stap reads the shift as a number token, after an optional '-'.
          const Expr* shift = leftmost(a->args[1]);
          if (shift->kind == ExprKind::Unary && static_cast<const UnaryExpr*>(shift)->op == Op::Neg)
            shift = leftmost(static_cast<const UnaryExpr*>(shift)->operand);
          if (shift->kind != ExprKind::Number) diags_.report(DiagId::ParseExpected, shift->loc, "number");
        }
        for (const Expr* x : a->args) expr(x);
        components(a->components);
        break;
      }
      case ExprKind::Member: {
        const auto* m = static_cast<const MemberExpr*>(e);
        expr(m->base);
        components(m->components);
        break;
      }
    }
  }

  DiagSink& diags_;
  const SourceManager& sm_;
  bool in_function_ = false;
};

}  // namespace

void check_pass1(const Script& script, DiagSink& diags) { Checker(diags).script(script); }

}  // namespace stapx
