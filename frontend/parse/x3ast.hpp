// The parse tree Spirit X3 fills in. These types never leave frontend/parse/:
// lower.cpp turns them into the arena AST (frontend/ast.h) in one step.
// Positions are the tokens nodes start at; lowering turns them into
// SourceLocs. Names, operators and C code are views of that text (it
// outlives the tree): the tree is built and dropped once per declaration,
// and owned copies here would be a malloc each, copied again by lowering.
// The few texts made anew (adjacent literals joined, a negated number)
// and every container and boxed node
// live in the declaration's scratch memory (scratch.h).
#pragma once

#include <boost/fusion/include/adapt_struct.hpp>
#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <boost/spirit/home/x3/support/traits/container_traits.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/parse/scratch.h"
#include "frontend/parse/tokens.h"

namespace stapx::ast {
struct Expr;
struct Stmt;
struct ProbePoint;
}

namespace stapx::parse::x3ast {

using stapx::parse::Tok;
using stapx::parse::InScratch;
using stapx::parse::scratch;
using stapx::parse::Vec;

namespace x3 = boost::spirit::x3;

using Pos = const Tok*;

struct Tagged {
  Pos pos = nullptr;
};

// A name as the identifier primitive yields it (a struct, so that X3 does
// not take the view for a container of characters).
struct NameRef {
  std::string_view text;
};

struct Number : Tagged {
  std::string_view text;  // a token's, or "-" and it (in scratch)
};
struct String : Tagged {
  // Between the quotes, escapes not yet decoded: a view of the one piece,
  // or, for adjacent literals ("a" "b"), their text joined in `joined`.
  std::string_view raw;
  std::string_view joined;  // in scratch
  std::string_view text() const { return joined.empty() ? raw : joined; }
};
struct Ident : Tagged {
  std::string_view name;
};
struct ArgRef : Tagged {
  std::string_view text;  // "$1", "@2", "$#", "@#"
};
struct Embedded : Tagged {
  std::string_view code;  // between %{ and %}
};

// An expression, already lowered: the semantic actions build the arena
// node as soon as an operand is complete (Lowerer::build), so that no X3
// tree of expressions is built, moved through every rule level and copied.
// The structs below are what a rule collects before that.
struct Operand {
  ast::Expr* node = nullptr;
  // A string literal, maybe parenthesized ("x" or ("x"), not "x" . y nor
  // @1): what @var and @const take.
  bool string_literal = false;
};

// "*" as an array key in delete and membership tests: any value.
struct Wildcard : Tagged {
  char unused = 0;
};

struct Call : Tagged {
  std::string_view name;
  Vec<Operand> args;
};
struct Index : Tagged {
  Ident array;
  Vec<Operand> keys;
};
struct MultiIn : Tagged {
  Vec<Operand> keys;
  Ident array;
};
struct Unary : Tagged {
  std::string_view op;  // "-", "!", "~", "+", "&", "++", "--"
  bool post = false;    // x++, x--
  Operand operand;
};
// A flat run of binary operators; lowering applies precedence.
struct ChainLink : Tagged {
  std::string_view op;
  Operand rhs;
};
struct Chain : Tagged {
  Operand first;
  Vec<ChainLink> rest;
};
struct Ternary : Tagged {
  Operand cond, then, els;
};
struct Assign : Tagged {
  Operand lhs;
  std::string_view op;
  Operand rhs;
};
// "->name" or "[index]" after a target variable, @cast, @var...
struct TargetComponent : Tagged {
  std::string_view field;          // for "->field"
  boost::optional<Operand> index;  // for "[index]"
};
struct Target : Tagged {
  std::string_view base;  // "$var", "$$vars", "$$return"...
  Vec<TargetComponent> components;
  std::string_view pretty;  // "", "$", "$$"
};
struct AtOp : Tagged {
  std::string_view name;  // "cast", "defined", "count", "hist_log"...
  Vec<Operand> args;
  Vec<TargetComponent> components;
  std::string_view pretty;
};
// "->field" on a plain expression (a pointer typed by an earlier @cast).
struct Member : Tagged {
  Operand base;
  Vec<TargetComponent> components;
  std::string_view pretty;
};

// ---- statements ----
// A statement, already lowered, as an operand is: the statement parser
// builds its arena node as soon as it is complete (Lowerer::build); none
// for a lone ';'. The structs below are what a statement's rule collects
// before that.
struct Statement {
  ast::Stmt* node = nullptr;
};
struct Simple : Tagged {
  std::string_view keyword;  // "next", "break", "continue"
};
struct ExprStmt : Tagged {
  Operand expr;
};
struct Return : Tagged {
  boost::optional<Operand> value;
};
struct Delete : Tagged {
  Operand target;
};
struct Block : Tagged {
  Vec<Statement> stmts;
};
struct If : Tagged {
  Operand cond;
  Statement then;
  boost::optional<Statement> els;
};
struct While : Tagged {
  Operand cond;
  Statement body;
};
struct For : Tagged {
  boost::optional<Operand> init, cond, incr;
  Statement body;
};
struct SortMarker : Tagged {
  std::string_view sort;  // "+" or "-"
};
struct SortedIdent : Tagged {
  Ident ident;
  std::string_view sort;  // "", "+", "-"
  Pos sort_pos = nullptr;
};
struct Try : Tagged {
  Block body;
  boost::optional<Ident> var;
  Block handler;
};
struct ForeachAggregate : Tagged {
  std::string_view name;  // "sum", "max"... sorting an aggregate array by it
  std::string_view sort;
  Pos sort_pos = nullptr;
};
struct ForeachArray : Tagged {
  SortedIdent array;
  boost::optional<Operand> histogram;  // @hist_log(s) instead of an array
};
// "in a[k, *]" and a sort marker after it ("a[k, *]+" sorts by value).
struct ForeachSlice : Tagged {
  Vec<Operand> keys;
  boost::optional<SortMarker> sort;
};
struct Foreach : Tagged {
  boost::optional<SortedIdent> value;
  Vec<SortedIdent> keys;
  SortedIdent array;
  boost::optional<Operand> histogram;
  Vec<Operand> slice;  // "in a[k, *]": only matching keys
  boost::optional<SortMarker> slice_sort;
  boost::optional<ForeachAggregate> aggregate;
  boost::optional<Operand> limit;
  Statement body;
};

// ---- top level ----
struct ProbePointComponent : Tagged {
  std::string_view name;  // a token's, or glued tokens' text
  boost::optional<Operand> arg;
};

// One dotted element of a probe point: a component, or a brace group of
// alternatives ("kernel.{function("a"), function("b")}").
struct PointGroup;
struct PointElement : x3::variant<ProbePointComponent, x3::forward_ast<PointGroup>> {
  using base_type::base_type;
  using base_type::operator=;
};
// A component of a point built as it is parsed (see probe_point_parser).
struct PendingComponent {
  Pos pos;
  std::string_view name;
  ast::Expr* arg;  // lowered, not yet adopted; may be null
};
struct ProbePoint : Tagged {
  // A point of plain components (no brace group), built while parsed:
  // its components (their arguments not yet adopted), not its suffix or
  // condition. Otherwise null, and the point is its elements.
  ast::ProbePoint* built = nullptr;
  Vec<PointElement> elements;
  std::string_view suffix;  // "", "?", "!"
  boost::optional<Operand> condition;  // "if (cond)"
};
struct PointGroup : Tagged, InScratch {
  Vec<ProbePoint> alternatives;
};
struct AliasPart : Tagged {
  std::string_view op;  // "=" or "+="
  Vec<ProbePoint> points;
};
struct Probe : Tagged {
  Vec<ProbePoint> points;
  std::string_view alias_op;  // "", "=", "+="
  Pos alias_pos = nullptr;
  Vec<ProbePoint> alias_points;
  Block body;
  boost::optional<Block> epilogue;  // alias "= P { prologue }, { epilogue }"
};
struct GlobalVar : Tagged {
  Ident name;
  boost::optional<Number> size;
  bool wrap = false;  // "%"
  boost::optional<Operand> init;
};
struct Global : Tagged {
  bool is_private = false;  // "private global x" or "private x"
  Vec<GlobalVar> vars;
};
struct Param : Tagged {
  Ident name;
  std::string_view type;
};
struct Function : Tagged {
  bool is_private = false;
  Ident name;
  std::string_view type;
  Vec<Param> params;
  Block body;
  boost::optional<Embedded> embedded;  // a %{ C %} body instead
};

struct TopLevel : x3::variant<Probe, Global, Function, Embedded> {
  using base_type::base_type;
  using base_type::operator=;
};

}  // namespace stapx::parse::x3ast

// The containers X3 makes for "*r", "+r" and "r % ','" are scratch ones too.
namespace boost::spirit::x3::traits {
#define STAPX_SCRATCH_CONTAINER(T) \
  template <>                      \
  struct build_container<stapx::parse::x3ast::T> : mpl::identity<stapx::parse::Vec<stapx::parse::x3ast::T>> {};
STAPX_SCRATCH_CONTAINER(Operand)
STAPX_SCRATCH_CONTAINER(Statement)
STAPX_SCRATCH_CONTAINER(TargetComponent)
STAPX_SCRATCH_CONTAINER(SortedIdent)
STAPX_SCRATCH_CONTAINER(PointElement)
STAPX_SCRATCH_CONTAINER(ProbePoint)
STAPX_SCRATCH_CONTAINER(GlobalVar)
STAPX_SCRATCH_CONTAINER(Param)
#undef STAPX_SCRATCH_CONTAINER
}  // namespace boost::spirit::x3::traits
