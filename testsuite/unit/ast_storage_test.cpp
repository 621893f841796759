// Where the AST keeps its text and lists (ast::Text, ast::List, the arena),
// and where the locations of a preprocessed view's tokens point.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "frontend/ast_clone.h"
#include "frontend/preprocess.h"
#include "test_util.h"

namespace stapx::test {
namespace {

using ast::Arena;
using ast::List;
using ast::Text;

TEST(AstText, KeptCopiesOutliveTheirSource) {
  Arena arena;
  Text kept;
  {
    std::string s = "a name longer than any small-string buffer";
    kept = arena.keep(s);
    s.assign(s.size(), 'x');  // the original changes; the copy does not
  }
  EXPECT_EQ(kept, "a name longer than any small-string buffer");
  EXPECT_TRUE(arena.keep("").empty());
  // Literals are views of themselves; comparisons go both ways.
  Text lit = "count";
  EXPECT_EQ(lit, std::string("count"));
  EXPECT_EQ(std::string("count"), lit);
  EXPECT_LT(Text("a"), std::string_view("b"));
  EXPECT_EQ("@" + lit + "()", "@count()");
  EXPECT_EQ(fmt::format("[{}]", lit), "[count]");
  // Never made from a std::string implicitly: its bytes may not last.
  static_assert(!std::is_convertible_v<std::string, Text>);
  static_assert(!std::is_convertible_v<std::string_view, Text>);
}

TEST(AstList, GrowsInTheArena) {
  Arena arena;
  List<int*> l;
  int v[100];
  for (int& x : v) l.push_back(arena, &x);
  ASSERT_EQ(l.size(), 100u);
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(l[i], &v[i]);
  l.insert(arena, l.begin() + 1, &v[50]);
  EXPECT_EQ(l[1], &v[50]);
  EXPECT_EQ(l[2], &v[1]);
  l.erase(l.begin(), l.begin() + 2);
  EXPECT_EQ(l.front(), &v[1]);
  EXPECT_EQ(l.size(), 99u);
  l.assign(arena, {&v[7], &v[8]});
  EXPECT_EQ(l.size(), 2u);
  EXPECT_EQ(l.back(), &v[8]);
  EXPECT_THROW(l.at(2), std::out_of_range);
}

TEST(AstList, ACopySharesUntilItGrows) {
  Arena arena;
  int a = 0, b = 0, c = 0;
  List<int*> original;
  original.reserve(arena, 8);  // room to grow in place
  original.push_back(arena, &a);
  List<int*> copy(original);
  EXPECT_EQ(copy.data(), original.data());
  // The copy's first growth moves it: the original's room is not its own.
  copy.push_back(arena, &b);
  EXPECT_NE(copy.data(), original.data());
  original.push_back(arena, &c);
  EXPECT_EQ(copy[1], &b);
  EXPECT_EQ(original[1], &c);
}

TEST(AstNodes, MostHaveNothingToDestroy) {
  // The arena keeps no destructor list for these (they are most nodes).
  static_assert(std::is_trivially_destructible_v<ast::VarRef>);
  static_assert(std::is_trivially_destructible_v<ast::CallExpr>);
  static_assert(std::is_trivially_destructible_v<ast::StringLit>);
  static_assert(std::is_trivially_destructible_v<ast::AtOpExpr>);
  static_assert(std::is_trivially_destructible_v<ast::BlockStmt>);
  static_assert(std::is_trivially_destructible_v<ast::ProbePoint>);
  Parsed p("probe begin { a[1, \"k\\n\"] = f(x, $y->z) }");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  EXPECT_EQ(p.printed(), Parsed(p.printed()).printed());
}

TEST(AstClone, ACloneHasListsOfItsOwn) {
  Parsed p("probe begin { f(1, 2); g(3) }");
  ASSERT_EQ(p.diags.errors(), 0u) << p.diag_text.str();
  ast::BlockStmt* body = p.script->probes.at(0)->body;
  ast::BlockStmt* copy = ast::clone(p.arena, body);
  ASSERT_EQ(copy->stmts.size(), 2u);
  EXPECT_NE(copy->stmts.data(), body->stmts.data());
  auto* call = static_cast<ast::CallExpr*>(static_cast<ast::ExprStmt*>(copy->stmts[0])->expr);
  auto* orig = static_cast<ast::CallExpr*>(static_cast<ast::ExprStmt*>(body->stmts[0])->expr);
  EXPECT_NE(call, orig);
  call->args.push_back(p.arena, call->args[0]);
  EXPECT_EQ(orig->args.size(), 2u);
  EXPECT_EQ(call->args.size(), 3u);
  EXPECT_EQ(call->name, "f");
}

// A view's plain tokens point into their real file; those from a macro
// point into the view, which says where they came from and through what.
TEST(ViewLocations, RealFileOrExpansion) {
  SourceManager sm;
  std::ostringstream diag_text;
  DiagSink diags(sm, diag_text);
  MacroTable macros;
  uint32_t src = sm.add("t.stp", "@define two %( 2 %)\nprobe begin { x = 1 + @two }");
  uint32_t view = preprocess(sm, src, {}, macros, diags);
  ASSERT_NE(view, src);
  Arena arena;
  ast::Script* s = parse_file(sm, view, arena, diags, ParseOptions{});
  ASSERT_EQ(diags.errors(), 0u) << diag_text.str();
  auto* assign = static_cast<ast::AssignExpr*>(
      static_cast<ast::ExprStmt*>(s->probes.at(0)->body->stmts.at(0))->expr);
  auto* sum = static_cast<ast::BinaryExpr*>(assign->rhs);
  EXPECT_EQ(sum->lhs->loc.file, src);  // "1": the file itself
  EXPECT_EQ(sm.describe(sum->lhs->loc), "t.stp:2:19");
  EXPECT_EQ(sum->rhs->loc.file, view);  // "2": through @two
  auto [real, expansion] = sm.resolve(sum->rhs->loc);
  EXPECT_EQ(real.file, src);
  EXPECT_EQ(sm.describe(sum->rhs->loc), "t.stp:1:16");
  ASSERT_NE(expansion, 0u);
  EXPECT_EQ(sm.expansion(expansion).macro, "@two");
  EXPECT_EQ(sm.file(view).expanded.size(), 1u);
  // The view's tokens are gone once the next view is begun.
  uint32_t other = preprocess(sm, sm.add("u.stp", "@define one %( 1 %)\nprobe begin { y = @one }"), {}, macros, diags);
  ASSERT_NE(other, 0u);
  EXPECT_FALSE(sm.has_tokens(view));
  EXPECT_TRUE(sm.has_tokens(other));
  EXPECT_THROW(parse_file(sm, view, arena, diags, ParseOptions{}), std::logic_error);
}

}  // namespace
}  // namespace stapx::test
