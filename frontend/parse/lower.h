// Lowering of the X3 parse tree into the arena AST (the only place where
// X3 types meet the rest of stapx).
//
// Expressions and statements are lowered while they are parsed: the
// grammar's semantic actions and statement parser call build() as soon as
// an operand or statement is complete, so that no X3 tree of either
// exists. Declarations are lowered after they have parsed (lower()), and
// adopt the nodes built for them. Diagnostics keep the order and the
// all-or-nothing of lowering a whole declaration at once: a node's
// diagnostics are held on it until the declaration's lowering adopts it.
// As stap gives up on a declaration at its first error, only the first is
// reported: first in the order of a walk of the declaration (statements in
// order; in an expression, leaves and operands left to right, an operator
// after its operands, an @ operator's checks before its arguments), or, if
// the declaration fails to parse, the earliest held before the failure.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/parse/x3ast.hpp"

namespace stapx::parse {

class Lowerer {
 public:
  // `args` are the script's command-line arguments ($1, @1, $#).
  Lowerer(const SourceManager& sm, uint32_t file, ast::Arena& arena, DiagSink& diags,
          const std::vector<std::string>& args, bool privileged);
  void lower(const x3ast::TopLevel& top, ast::Script& script);
  SourceLoc loc(x3ast::Pos pos) const;

  // While parsing, expression diagnostics are held (see above).
  void begin_declaration() {
    parsing_ = true;
    declaration_failed_ = false;
  }
  // The declaration failed to parse at `failed`. As stap reads a
  // declaration front to back and gives up at its first error, what is
  // reported is a held diagnostic located before `failed` if there is one
  // (then true: the syntax error is not reported), else nothing of it.
  bool drop_declaration(SourceLoc failed);

  // Expression nodes, built by the grammar's semantic actions.
  ast::Expr* build(const x3ast::Number& n) { return number(n); }
  ast::Expr* build(const x3ast::String& s) { return string(s); }
  ast::Expr* build(const x3ast::Ident& id) { return var(id); }
  ast::Expr* build(const x3ast::ArgRef& a) { return arg_ref(a); }
  ast::Expr* build(const x3ast::Embedded& em);
  ast::Expr* build(const x3ast::Target& t);
  ast::Expr* build(const x3ast::Member& m);
  ast::Expr* build(const x3ast::Wildcard& w);
  ast::Expr* build(const x3ast::AtOp& a);
  ast::Expr* build(const x3ast::Call& c);
  ast::Expr* build(const x3ast::Index& ix);
  ast::Expr* build(const x3ast::MultiIn& m);
  ast::Expr* build(const x3ast::Unary& u);
  ast::Expr* build(const x3ast::Chain& c);
  ast::Expr* build(const x3ast::Ternary& t);
  ast::Expr* build(const x3ast::Assign& a);
  // A probe point of plain components, built by the probe point parser.
  ast::ProbePoint* build(x3ast::Pos pos, std::span<const x3ast::PendingComponent> components);
  // Statement nodes, built by the statement parser.
  ast::Stmt* build(const x3ast::Simple& s);
  ast::Stmt* build(const x3ast::ExprStmt& s);
  ast::Stmt* build(const x3ast::Return& r);
  ast::Stmt* build(const x3ast::Delete& d);
  ast::Stmt* build(const x3ast::Block& b) { return block(b); }
  ast::Stmt* build(const x3ast::Try& t);
  ast::Stmt* build(const x3ast::If& i);
  ast::Stmt* build(const x3ast::While& w);
  ast::Stmt* build(const x3ast::For& f);
  ast::Stmt* build(const x3ast::Foreach& f);

 private:
  ast::Expr* adopt(const x3ast::Operand& op);
  ast::BlockStmt* adopt(const x3ast::Block& b);
  class Flush;  // the walk of flush()
  void flush(const ast::Expr* e);
  void flush(const ast::Stmt* s);
  void flush_node(const ast::Node* n, bool before);
  // Holds `report` on node until the declaration is adopted; it is called
  // with `at`, where the parser met what it reports.
  void defer(const ast::Node* node, bool before, SourceLoc at, std::function<void(SourceLoc)> report);
  ast::Expr* binary(std::string_view op, ast::Expr* lhs, ast::Expr* rhs, SourceLoc op_loc);
  ast::BlockStmt* block(const x3ast::Block& b);
  ast::Stmt* body(const x3ast::Statement& s);
  ast::VarRef* var(const x3ast::Ident& id);
  ast::NumberLit* number(const x3ast::Number& n);
  ast::StringLit* string(const x3ast::String& s);
  ast::Text unescape(const x3ast::String& s, ast::Expr* lit);
  ast::Expr* arg_ref(const x3ast::ArgRef& a);
  ast::Expr* this_var(const x3ast::AtOp& a);
  ast::List<ast::TargetComponent> components(const x3ast::Vec<x3ast::TargetComponent>& cs);
  // (These two fill their node's own list or element in place.)
  void nodes(const x3ast::Vec<x3ast::Operand>& ops, ast::List<ast::Expr*>& out);  // call arguments, keys
  void component(const x3ast::ProbePointComponent& c, ast::ProbePointComponent& comp);
  ast::List<ast::ProbePoint*> points(const x3ast::Vec<x3ast::ProbePoint>& pps);
  // The points a point with brace groups stands for, each with the "?"
  // or "!" its alternatives gave it.
  struct ExpandedPoint {
    std::vector<ast::ProbePointComponent> components;
    bool optional = false;
    bool sufficient = false;
  };
  bool expand_point(const x3ast::ProbePoint& pp, std::vector<ExpandedPoint>& out);

  const SourceManager& sm_;
  uint32_t file_;
  ast::Arena& arena_;
  DiagSink& diags_;
  const std::vector<std::string>& args_;
  bool privileged_;  // guru mode, or a tapset file: embedded C allowed
  void need_guru(const ast::Expr* node, SourceLoc at, std::string what);

  struct Deferred {
    const ast::Node* node;
    bool before;  // reported before the node's operands, else after
    SourceLoc at;  // where the parser met it (what report() is given)
    std::function<void(SourceLoc)> report;
  };
  // build(Chain)'s operator-precedence stacks.
  struct PendingOp {
    std::string_view op;
    int prec;
    SourceLoc loc;
  };
  std::vector<ast::Expr*> chain_operands_;
  std::vector<PendingOp> chain_ops_;

  bool parsing_ = false;
  bool declaration_failed_ = false;  // one held diagnostic was reported
  std::vector<Deferred> deferred_;  // rare: almost every declaration has none
  // @thisN's globals: used by the declarations lowered so far, and those
  // already declared in the script.
  std::set<std::string, std::less<>> this_vars_, this_declared_;
};

// The Lowerer of the file being parsed, for the grammar's semantic actions
// (set by parse_file; X3's actions see only their context, and the
// instantiated rules' context type has no room for it).
inline thread_local Lowerer* active_lowerer = nullptr;
inline Lowerer& lowering() { return *active_lowerer; }

}  // namespace stapx::parse
