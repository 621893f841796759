// The parse tree Spirit X3 fills in. These types never leave frontend/parse/:
// lower.cpp turns them into the arena AST (frontend/ast.h) in one step.
// Positions are raw pointers into the source text; lowering turns them
// into SourceLocs.
#pragma once

#include <boost/fusion/include/adapt_struct.hpp>
#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <string>
#include <vector>

namespace stapx::parse::x3ast {

namespace x3 = boost::spirit::x3;

struct Tagged {
  const char* pos = nullptr;
};

struct Number : Tagged {
  std::string text;
};
struct String : Tagged {
  std::string raw;  // between the quotes, escapes not yet decoded
};
struct Ident : Tagged {
  std::string name;
};
struct OpTok : Tagged {
  std::string op;
};

struct Call;
struct Index;
struct MultiIn;
struct Unary;
struct Chain;
struct Ternary;
struct Assign;

struct Operand
    : x3::variant<Number, String, Ident, x3::forward_ast<Call>, x3::forward_ast<Index>,
                  x3::forward_ast<MultiIn>, x3::forward_ast<Unary>, x3::forward_ast<Chain>,
                  x3::forward_ast<Ternary>, x3::forward_ast<Assign>> {
  using base_type::base_type;
  using base_type::operator=;
};

struct Call : Tagged {
  std::string name;
  std::vector<Operand> args;
};
struct Index : Tagged {
  Ident array;
  std::vector<Operand> keys;
};
struct MultiIn : Tagged {
  std::vector<Operand> keys;
  Ident array;
};
struct Unary : Tagged {
  std::string op;  // "-", "!", "~", "+", "++", "--", or "post++", "post--"
  Operand operand;
};
// A flat run of binary operators; lowering applies precedence.
struct ChainLink : Tagged {
  std::string op;
  Operand rhs;
};
struct Chain : Tagged {
  Operand first;
  std::vector<ChainLink> rest;
};
struct Ternary : Tagged {
  Operand cond, then, els;
};
struct Assign : Tagged {
  Operand lhs;
  std::string op;
  Operand rhs;
};

// ---- statements ----
struct Block;
struct If;
struct While;
struct For;
struct Foreach;

struct Simple : Tagged {
  std::string keyword;  // "next", "break", "continue", ";"
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

struct Statement
    : x3::variant<Simple, ExprStmt, Return, Delete, x3::forward_ast<Block>, x3::forward_ast<If>,
                  x3::forward_ast<While>, x3::forward_ast<For>, x3::forward_ast<Foreach>> {
  using base_type::base_type;
  using base_type::operator=;
};

struct Block : Tagged {
  std::vector<Statement> stmts;
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
struct SortedIdent : Tagged {
  Ident ident;
  std::string sort;  // "", "+", "-"
};
struct Foreach : Tagged {
  boost::optional<SortedIdent> value;
  std::vector<SortedIdent> keys;
  SortedIdent array;
  boost::optional<Operand> limit;
  Statement body;
};

// ---- top level ----
struct ProbePointComponent : Tagged {
  std::string name;
  boost::optional<Operand> arg;
};
struct ProbePoint : Tagged {
  std::vector<ProbePointComponent> components;
  std::string suffix;  // "", "?", "!"
};
struct Probe : Tagged {
  std::vector<ProbePoint> points;
  Block body;
};
struct GlobalVar : Tagged {
  Ident name;
  boost::optional<Number> size;
  boost::optional<Operand> init;
};
struct Global : Tagged {
  std::vector<GlobalVar> vars;
};
struct Param : Tagged {
  Ident name;
  std::string type;
};
struct Function : Tagged {
  Ident name;
  std::string type;
  std::vector<Param> params;
  Block body;
};

struct TopLevel : x3::variant<Probe, Global, Function> {
  using base_type::base_type;
  using base_type::operator=;
};

}  // namespace stapx::parse::x3ast
