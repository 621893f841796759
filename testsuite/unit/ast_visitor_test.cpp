// The AST visitor (frontend/ast_visitor.h): the default walk reaches every
// child, including those the hand-written walks it replaced missed, and a
// kEveryNode walk that defines every visit_X compiles and is dispatched to.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontend/ast_visitor.h"
#include "test_util.h"

namespace stapx {
namespace {

using namespace ast;

// Names of the calls and target variables a body holds, in walk order.
struct Names : Visitor<Names, true> {
  std::vector<std::string> seen;
  void visit_call(const CallExpr* c) {
    seen.push_back(c->name.str() + "()");
    walk(c);
  }
  void visit_target(const TargetExpr* t) {
    seen.push_back(t->base.str());
    walk(t);
  }
};

std::vector<std::string> names_in(const std::string& body) {
  test::Parsed p("probe begin { " + body + " }");
  EXPECT_EQ(p.diag_text.str(), "");
  Names n;
  n.visit(p.script->probes.at(0)->body);
  return n.seen;
}

TEST(AstVisitor, DefaultWalkReachesEveryChild) {
  // A delete's key, a foreach slice and limit, a target's index, @cast's
  // arguments and components, a try's handler.
  EXPECT_EQ(names_in("delete a[$bio]"), (std::vector<std::string>{"$bio"}));
  EXPECT_EQ(names_in("foreach (k in a[f(), *] limit g()) h()"),
            (std::vector<std::string>{"f()", "g()", "h()"}));
  EXPECT_EQ(names_in("x = $p->q[i(1)]"), (std::vector<std::string>{"$p", "i()"}));
  EXPECT_EQ(names_in("x = @cast(p(), \"t\")->a[j()]"), (std::vector<std::string>{"p()", "j()"}));
  EXPECT_EQ(names_in("try { a() } catch (m) { b(m) }"), (std::vector<std::string>{"a()", "b()"}));
}

// A walk that must handle every node kind: it compiles only because it
// defines each visit_X (remove one and the static_assert in the visitor
// fails), and each returns its own value.
struct Kinds : Visitor<Kinds, true, char> {
  static constexpr bool kEveryNode = true;
  char visit_number(const NumberLit*) { return 'n'; }
  char visit_string(const StringLit*) { return 's'; }
  char visit_var(const VarRef*) { return 'v'; }
  char visit_index(const IndexExpr*) { return 'i'; }
  char visit_call(const CallExpr*) { return 'c'; }
  char visit_unary(const UnaryExpr*) { return 'u'; }
  char visit_binary(const BinaryExpr*) { return 'b'; }
  char visit_ternary(const TernaryExpr*) { return 't'; }
  char visit_assign(const AssignExpr*) { return 'a'; }
  char visit_in_array(const InArrayExpr*) { return 'I'; }
  char visit_target(const TargetExpr*) { return '$'; }
  char visit_at_op(const AtOpExpr*) { return '@'; }
  char visit_embedded(const EmbeddedExpr*) { return 'e'; }
  char visit_member(const MemberExpr*) { return 'm'; }
  char visit_wildcard(const WildcardExpr*) { return '*'; }
  char visit_block(const BlockStmt*) { return 'B'; }
  char visit_expr_stmt(const ExprStmt*) { return 'E'; }
  char visit_if(const IfStmt*) { return 'F'; }
  char visit_while(const WhileStmt*) { return 'W'; }
  char visit_for(const ForStmt*) { return 'O'; }
  char visit_foreach(const ForeachStmt*) { return 'H'; }
  char visit_next(const SimpleStmt*) { return 'N'; }
  char visit_break(const SimpleStmt*) { return 'K'; }
  char visit_continue(const SimpleStmt*) { return 'C'; }
  char visit_return(const ReturnStmt*) { return 'R'; }
  char visit_delete(const DeleteStmt*) { return 'D'; }
  char visit_null(const SimpleStmt*) { return '0'; }
  char visit_try(const TryStmt*) { return 'T'; }
};

TEST(AstVisitor, EveryNodeWalkDispatchesByKind) {
  test::Parsed p("probe begin { x = 1; if (x) next; while (0) break; delete a; try { } catch { } }");
  ASSERT_EQ(p.diag_text.str(), "");
  std::string kinds;
  Kinds k;
  for (const Stmt* s : p.script->probes.at(0)->body->stmts) kinds += k.visit(s);
  EXPECT_EQ(kinds, "EFWDT");
  const auto* first = static_cast<const ExprStmt*>(p.script->probes.at(0)->body->stmts[0]);
  EXPECT_EQ(k.visit(first->expr), 'a');
  EXPECT_EQ(k.visit(static_cast<const Expr*>(nullptr)), '\0');
}

}  // namespace
}  // namespace stapx
