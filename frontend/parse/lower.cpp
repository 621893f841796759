// X3 parse tree -> arena AST. Applies binary operator precedence (the
// grammar parses every binary level as one flat chain), decodes number and
// string literals, and turns raw positions into SourceLocs.
#include "frontend/parse/lower.h"
#include "frontend/ast_visitor.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

namespace stapx::parse {

using namespace stapx::ast;
namespace x3 = boost::spirit::x3;

namespace {

struct BinaryInfo {
  int precedence;  // higher binds tighter; all binary levels are left-associative
  bool in_array;   // "in"
  Op op;
};

// stap's binary levels, loosest first: || && | ^ & in comparisons shifts . + - * / %
// A switch on the operator's text, not a map of strings: every operator of
// every chain is looked up (twice), and a map lookup compares strings.
const BinaryInfo& binary_info(std::string_view op) {
  static constexpr BinaryInfo kLogOr{1, false, Op::LogOr}, kLogAnd{2, false, Op::LogAnd},
      kBitOr{3, false, Op::BitOr}, kBitXor{4, false, Op::BitXor}, kBitAnd{5, false, Op::BitAnd},
      kIn{6, true, Op::Add}, kEq{7, false, Op::Eq}, kNe{7, false, Op::Ne}, kLt{7, false, Op::Lt},
      kLe{7, false, Op::Le}, kGt{7, false, Op::Gt}, kGe{7, false, Op::Ge},
      kMatch{7, false, Op::RegexMatch}, kNoMatch{7, false, Op::RegexNoMatch}, kShl{8, false, Op::Shl},
      kShr{8, false, Op::Shr}, kUShr{8, false, Op::UShr}, kConcat{9, false, Op::Concat},
      kAdd{10, false, Op::Add}, kSub{10, false, Op::Sub}, kMul{11, false, Op::Mul},
      kDiv{11, false, Op::Div}, kMod{11, false, Op::Mod};
  char second = op.size() > 1 ? op[1] : '\0';
  switch (op[0]) {
    case '|': return second ? kLogOr : kBitOr;
    case '&': return second ? kLogAnd : kBitAnd;
    case '^': return kBitXor;
    case 'i': return kIn;
    case '=': return second == '=' ? kEq : kMatch;
    case '!': return second == '=' ? kNe : kNoMatch;
    case '<': return second == '<' ? kShl : second == '=' ? kLe : kLt;
    case '>': return op.size() == 3 ? kUShr : second == '>' ? kShr : second == '=' ? kGe : kGt;
    case '.': return kConcat;
    case '+': return kAdd;
    case '-': return kSub;
    case '*': return kMul;
    case '/': return kDiv;
    default: return kMod;  // the grammar produces no other operator
  }
}

// Compound assignments are the binary operator followed by '=' ("<<<" is
// the aggregation operator, "=" plain assignment).
Op assign_op(std::string_view op) {
  if (op == "=") return Op::Assign;
  if (op == "<<<") return Op::AggregateInto;
  return binary_info(op.substr(0, op.size() - 1)).op;
}

}  // namespace

Lowerer::Lowerer(const SourceManager& sm, uint32_t file, Arena& arena, DiagSink& diags,
                 const std::vector<std::string>& args, bool privileged)
    : sm_(sm),
      file_(file),
      arena_(arena),
      diags_(diags),
      args_(args),
      privileged_(privileged) {}

void Lowerer::need_guru(const Expr* node, SourceLoc at, std::string what) {
  if (!privileged_) defer(node, true, at, [this, what](SourceLoc at) { diags_.report(DiagId::ParseNeedGuru, at, what); });
}

SourceLoc Lowerer::loc(x3ast::Pos pos) const { return pos ? pos->loc : SourceLoc{file_, 0}; }

NumberLit* Lowerer::number(const x3ast::Number& n) {
  auto* lit = arena_.make<NumberLit>(loc(n.pos));
  bool negative = !n.text.empty() && n.text[0] == '-';  // a probe point's begin(-1)
  const std::string_view t = negative ? n.text.substr(1) : n.text;
  int base = 10;
  size_t i = 0;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    i = 1;
  }
  uint64_t v = 0;
  bool ok = i < t.size();
  for (; i < t.size() && ok; ++i) {
    unsigned c = static_cast<unsigned char>(t[i]);
    unsigned d = c - '0' <= 9 ? c - '0' : (c | 0x20) - 'a' <= 5 ? (c | 0x20) - 'a' + 10 : 99;
    // (A digit past the base, or a value past 64 bits, is no number.)
    ok = d < static_cast<unsigned>(base) && !__builtin_mul_overflow(v, static_cast<uint64_t>(base), &v) &&
         !__builtin_add_overflow(v, d, &v);
  }
  if (negative && v > static_cast<uint64_t>(INT64_MAX) + 1) ok = false;
  if (!ok) defer(lit, false, lit->loc, [this](SourceLoc at) { diags_.report(DiagId::ParseBadNumber, at); });
  lit->value = static_cast<int64_t>(negative ? 0 - v : v);
  return lit;
}

StringLit* Lowerer::string(const x3ast::String& s) {
  auto* lit = arena_.make<StringLit>(loc(s.pos));
  lit->value = unescape(s, lit);
  return lit;
}

Text Lowerer::unescape(const x3ast::String& s, Expr* lit) {
  std::string_view r = s.text();
  // Most literals are one piece with no escape: a view of the source text.
  if (r.find('\\') == std::string_view::npos) return s.joined.empty() ? Text::lasting(r) : arena_.keep(r);
  std::string out;
  out.reserve(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] != '\\') {
      out += r[i];
      continue;
    }
    char c = ++i < r.size() ? r[i] : '\0';
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case '?': out += '?'; break;
      case 'x': {
        int v = 0, n = 0;
        while (n < 2 && i + 1 < r.size() && std::isxdigit(static_cast<unsigned char>(r[i + 1]))) {
          char h = static_cast<char>(std::tolower(static_cast<unsigned char>(r[++i])));
          v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : h - 'a' + 10);
          ++n;
        }
        if (n == 0) defer(lit, false, lit->loc, [this](SourceLoc at) { diags_.report(DiagId::ParseBadEscape, at); });
        out += static_cast<char>(v);
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          int v = c - '0', n = 1;
          while (n < 3 && i + 1 < r.size() && r[i + 1] >= '0' && r[i + 1] <= '7') {
            v = v * 8 + (r[++i] - '0');
            ++n;
          }
          out += static_cast<char>(v);
        } else {
          out += c;  // an unknown escape stands for the character itself
        }
    }
  }
  return arena_.keep(out);
}

// $N and @N become literals of the N-th command-line argument; $# and @#
// the number of arguments.
Expr* Lowerer::arg_ref(const x3ast::ArgRef& a) {
  SourceLoc at = loc(a.pos);
  if (a.text[1] == '#') {
    auto* n = arena_.make<NumberLit>(at);
    n->value = static_cast<int64_t>(args_.size());
    return n;
  }
  size_t index = 0;
  if (std::from_chars(a.text.data() + 1, a.text.data() + a.text.size(), index).ec != std::errc())
    index = SIZE_MAX;  // out of range, like any index past the last argument
  if (index == 0 || index > args_.size()) {
    auto* n = arena_.make<NumberLit>(at);
    defer(n, false, at, [this](SourceLoc at) { diags_.report(DiagId::ParseArgRange, at, args_.size()); });
    return n;
  }
  const std::string& v = args_[index - 1];
  if (a.text[0] == '@') {
    auto* str = arena_.make<StringLit>(at);
    str->value = arena_.keep(v);
    return str;
  }
  auto* n = arena_.make<NumberLit>(at);
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 0);
  if (v.empty() || *end || errno) {
    unsigned long long u = std::strtoull(v.c_str(), &end, 0);
    if (v.empty() || *end || errno) {
      defer(n, false, at, [this, index, v](SourceLoc at) { diags_.report(DiagId::ParseArgNotNumber, at, index, v); });
      return n;
    }
    x = static_cast<long long>(u);
  }
  n->value = x;
  return n;
}

List<TargetComponent> Lowerer::components(const x3ast::Vec<x3ast::TargetComponent>& cs) {
  List<TargetComponent> out;
  out.reserve(arena_, cs.size());
  for (auto& c : cs) {
    TargetComponent tc;
    tc.loc = loc(c.pos);
    if (c.index)
      tc.index = c.index->node;
    else
      tc.field = Text::lasting(c.field);
    out.push_back(arena_, tc);
  }
  return out;
}

VarRef* Lowerer::var(const x3ast::Ident& id) {
  auto* v = arena_.make<VarRef>(loc(id.pos));
  v->name = Text::lasting(id.name);
  return v;
}

Expr* Lowerer::binary(std::string_view op, Expr* lhs, Expr* rhs, SourceLoc op_loc) {
  const BinaryInfo& info = binary_info(op);
  if (info.in_array) {
    auto* in = arena_.make<InArrayExpr>(lhs->loc);
    in->keys.push_back(arena_, lhs);
    if (rhs->kind == ExprKind::Var) {
      in->array = static_cast<VarRef*>(rhs);
    } else {
      // rhs leaves the tree: its own diagnostics come first, and the first
      // of them is the declaration's one error.
      defer(in, false, rhs->loc, [this, rhs](SourceLoc at) {
        declaration_failed_ = false;
        flush(rhs);
        if (declaration_failed_) return;
        declaration_failed_ = true;
        diags_.report(DiagId::ParseExpected, at, "identifier or statistical operation");
      });
      in->array = arena_.make<VarRef>(rhs->loc);
    }
    return in;
  }
  auto* b = arena_.make<BinaryExpr>(lhs->loc);
  if ((info.op == Op::RegexMatch || info.op == Op::RegexNoMatch) && rhs->kind != ExprKind::String)
    defer(b, false, rhs->loc, [this](SourceLoc at) {
      diags_.report(DiagId::ParseExpected, at, "literal string");  // the regular expression
    });
  b->op = info.op;
  b->lhs = lhs;
  b->rhs = rhs;
  b->op_loc = op_loc;
  return b;
}

// Operator-precedence parse of a flat chain (all operators left-associative).
Expr* Lowerer::build(const x3ast::Chain& c) {
  // The stacks are kept from chain to chain: a malloc each was a tenth of
  // lowering.
  std::vector<Expr*>& operands = chain_operands_;
  std::vector<PendingOp>& ops = chain_ops_;
  operands.assign(1, c.first.node);
  ops.clear();
  auto reduce = [&] {
    Expr* rhs = operands.back();
    operands.pop_back();
    Expr* lhs = operands.back();
    operands.back() = binary(ops.back().op, lhs, rhs, ops.back().loc);
    ops.pop_back();
  };
  for (const x3ast::ChainLink& link : c.rest) {
    int prec = binary_info(link.op).precedence;
    while (!ops.empty() && ops.back().prec >= prec) reduce();
    ops.push_back({link.op, prec, loc(link.pos)});
    operands.push_back(link.rhs.node);
  }
  while (!ops.empty()) reduce();
  return operands.back();
}

Expr* Lowerer::build(const x3ast::Embedded& em) {
  auto* e = arena_.make<EmbeddedExpr>(loc(em.pos));
  need_guru(e, e->loc, "embedded expression code");
  e->code = Text::lasting(em.code);
  return e;
}

Expr* Lowerer::build(const x3ast::Target& t) {
  auto* e = arena_.make<TargetExpr>(loc(t.pos));
  e->base = Text::lasting(t.base);
  e->components = components(t.components);
  e->pretty = Text::lasting(t.pretty);
  return e;
}

Expr* Lowerer::build(const x3ast::Member& m) {
  auto* e = arena_.make<MemberExpr>(m.base.node->loc);
  e->base = m.base.node;
  e->components = components(m.components);
  e->pretty = Text::lasting(m.pretty);
  return e;
}

Expr* Lowerer::build(const x3ast::Wildcard& w) { return arena_.make<WildcardExpr>(loc(w.pos)); }

__attribute__((always_inline)) inline void Lowerer::nodes(const x3ast::Vec<x3ast::Operand>& ops, List<Expr*>& out) {
  out.reserve(arena_, ops.size());
  for (auto& op : ops) out.push_back(arena_, op.node);
}

Expr* Lowerer::build(const x3ast::AtOp& a) {
  if (is_this_var_name(a.name)) return this_var(a);
  auto* e = arena_.make<AtOpExpr>(loc(a.pos));
  e->name = Text::lasting(a.name);
  e->op = at_from_name(a.name);
  if (e->op == At::Const || e->op == At::Kregister) need_guru(e, e->loc, "@" + std::string(a.name) + " operator");
  if ((e->op == At::Var || e->op == At::Const || e->op == At::Perf) && !a.args.empty() && !a.args[0].string_literal)
    defer(e, true, a.args[0].node->loc,
          [this](SourceLoc at) { diags_.report(DiagId::ParseExpected, at, "literal string"); });
  nodes(a.args, e->args);
  e->components = components(a.components);
  e->pretty = Text::lasting(a.pretty);
  return e;
}

// @thisN is stap's per-thread value: the global __this_varN[tid()], an
// array that drops its oldest entry when full (one entry per thread that
// set it), declared once per script (lower() adds it).
Expr* Lowerer::this_var(const x3ast::AtOp& a) {
  static std::set<std::string, std::less<>> names;  // (the names' Text views last)
  std::string key = "__this_var";
  key += a.name.substr(4);
  const std::string& name = *names.insert(std::move(key)).first;
  auto* ix = arena_.make<IndexExpr>(loc(a.pos));
  auto* v = arena_.make<VarRef>(loc(a.pos));
  v->name = Text::lasting(name);
  auto* tid = arena_.make<CallExpr>(loc(a.pos));
  tid->name = Text::lasting("tid");
  ix->array = v;
  ix->keys.push_back(arena_, tid);
  if (!a.components.empty() || !a.pretty.empty())
    diags_.report(DiagId::ParseExpected, loc(a.pos), fmt::format("@{} alone (it takes no ->, [ ] or $)", a.name));
  this_vars_.insert(name);
  return ix;
}

Expr* Lowerer::build(const x3ast::Call& c) {
  auto* call = arena_.make<CallExpr>(loc(c.pos));
  call->name = Text::lasting(c.name);
  nodes(c.args, call->args);
  return call;
}

Expr* Lowerer::build(const x3ast::Index& ix) {
  auto* e = arena_.make<IndexExpr>(loc(ix.pos));
  e->array = var(ix.array);
  nodes(ix.keys, e->keys);
  return e;
}

Expr* Lowerer::build(const x3ast::MultiIn& m) {
  auto* e = arena_.make<InArrayExpr>(loc(m.pos));
  nodes(m.keys, e->keys);
  e->array = var(m.array);
  return e;
}

Expr* Lowerer::build(const x3ast::Unary& u) {
  Expr* operand = u.operand.node;
  auto* e = arena_.make<UnaryExpr>(u.post ? operand->loc : loc(u.pos));
  bool one = u.op.size() == 1;
  switch (u.op[0]) {
    case '-': e->op = one ? Op::Neg : u.post ? Op::PostDec : Op::PreDec; break;
    case '+': e->op = one ? Op::Plus : u.post ? Op::PostInc : Op::PreInc; break;
    case '!': e->op = Op::Not; break;
    case '~': e->op = Op::BitNot; break;
    default: e->op = Op::AddressOf; break;  // '&'
  }
  e->operand = operand;
  return e;
}

Expr* Lowerer::build(const x3ast::Ternary& t) {
  auto* e = arena_.make<TernaryExpr>(t.cond.node->loc);
  e->cond = t.cond.node;
  e->then = t.then.node;
  e->els = t.els.node;
  return e;
}

Expr* Lowerer::build(const x3ast::Assign& a) {
  auto* e = arena_.make<AssignExpr>(a.lhs.node->loc);
  e->lhs = a.lhs.node;
  e->op = assign_op(a.op);
  e->op_loc = loc(a.pos);
  e->rhs = a.rhs.node;
  return e;
}

void Lowerer::defer(const Node* node, bool before, SourceLoc at, std::function<void(SourceLoc)> report) {
  if (!parsing_) {
    report(at);  // a node lowered with its declaration (a global's size)
    return;
  }
  deferred_.push_back({node, before, at, std::move(report)});
}

bool Lowerer::drop_declaration(SourceLoc failed) {
  parsing_ = false;
  const Deferred* first = nullptr;
  for (const Deferred& d : deferred_)
    if (d.report && d.at.file == failed.file && d.at.offset < failed.offset &&
        (!first || d.at.offset < first->at.offset))
      first = &d;
  if (first) first->report(first->at);
  deferred_.clear();
  return first != nullptr;
}

// An expression of the declaration being lowered: reports what its nodes
// hold, in the order lowering it whole would have.
Expr* Lowerer::adopt(const x3ast::Operand& op) {
  if (!deferred_.empty()) flush(op.node);
  return op.node;
}

void Lowerer::flush_node(const Node* n, bool before) {
  for (size_t i = 0; i < deferred_.size(); ++i)
    if (deferred_[i].node == n && deferred_[i].before == before && deferred_[i].report) {
      auto report = std::move(deferred_[i].report);
      deferred_[i].report = nullptr;
      if (declaration_failed_) continue;  // stap stops at a declaration's first error
      declaration_failed_ = true;
      report(deferred_[i].at);  // (a report may flush others, never add one)
    }
}

// The held diagnostics of a subtree, in the order the parser met them (see
// lower.h): a node's "before" ones, its children's, then its "after" ones.
class Lowerer::Flush : public ast::Visitor<Flush, true> {
 public:
  explicit Flush(Lowerer& lower) : lower_(lower) {}

  using Visitor::visit;
  void visit(const Expr* e) {
    if (!e || lower_.deferred_.empty()) return;
    lower_.flush_node(e, true);
    Visitor::visit(e);
    lower_.flush_node(e, false);
  }
  void visit(const Stmt* s) {
    if (!s || lower_.deferred_.empty()) return;
    Visitor::visit(s);
  }

  // A second sort marker is reported where it was met: on the value, a key
  // or the array (before), or on the aggregate (after the slice).
  void visit_foreach(const ForeachStmt* f) {
    lower_.flush_node(f, true);
    visit(f->histogram);
    visit_all(f->slice);
    lower_.flush_node(f, false);
    visit(f->limit);
    visit(f->body);
  }
  void visit_try(const TryStmt* t) {
    visit(static_cast<const Stmt*>(t->body));
    visit(static_cast<const Stmt*>(t->handler));
  }

 private:
  Lowerer& lower_;
};

void Lowerer::flush(const Expr* e) { Flush(*this).visit(e); }

BlockStmt* Lowerer::block(const x3ast::Block& b) {
  auto* blk = arena_.make<BlockStmt>(loc(b.pos));
  blk->stmts.reserve(arena_, b.stmts.size());
  for (const x3ast::Statement& s : b.stmts)
    if (s.node) blk->stmts.push_back(arena_, s.node);
  return blk;
}

// A declaration's body: its statements' held diagnostics are reported now.
BlockStmt* Lowerer::adopt(const x3ast::Block& b) {
  BlockStmt* blk = block(b);
  if (!deferred_.empty()) flush(blk);
  return blk;
}

void Lowerer::flush(const Stmt* s) { Flush(*this).visit(s); }

Stmt* Lowerer::build(const x3ast::Simple& s) {
  StmtKind k = s.keyword == "next" ? StmtKind::Next : s.keyword == "break" ? StmtKind::Break : StmtKind::Continue;
  return arena_.make<SimpleStmt>(loc(s.pos), k);
}

Stmt* Lowerer::build(const x3ast::ExprStmt& s) {
  auto* st = arena_.make<ExprStmt>(loc(s.pos));
  st->expr = s.expr.node;
  return st;
}

Stmt* Lowerer::build(const x3ast::Return& r) {
  auto* st = arena_.make<ReturnStmt>(loc(r.pos));
  if (r.value) st->value = r.value->node;
  return st;
}

Stmt* Lowerer::build(const x3ast::Delete& d) {
  auto* st = arena_.make<DeleteStmt>(loc(d.pos));
  st->target = d.target.node;
  return st;
}

Stmt* Lowerer::build(const x3ast::Try& t) {
  auto* st = arena_.make<TryStmt>(loc(t.pos));
  st->body = block(t.body);
  if (t.var) st->var = var(*t.var);
  st->handler = block(t.handler);
  return st;
}

Stmt* Lowerer::build(const x3ast::If& i) {
  auto* st = arena_.make<IfStmt>(loc(i.pos));
  st->cond = i.cond.node;
  st->then = body(i.then);
  if (i.els) st->els = body(*i.els);
  return st;
}

Stmt* Lowerer::build(const x3ast::While& w) {
  auto* st = arena_.make<WhileStmt>(loc(w.pos));
  st->cond = w.cond.node;
  st->body = body(w.body);
  return st;
}

Stmt* Lowerer::build(const x3ast::For& f) {
  auto* st = arena_.make<ForStmt>(loc(f.pos));
  if (f.init) st->init = f.init->node;
  if (f.cond) st->cond = f.cond->node;
  if (f.incr) st->incr = f.incr->node;
  st->body = body(f.body);
  return st;
}

Stmt* Lowerer::build(const x3ast::Foreach& f) {
  auto* st = arena_.make<ForeachStmt>(loc(f.pos));
  // `before`: a marker on the value, a key or the array; else the aggregate.
  auto sorted = [&](const x3ast::SortedIdent& s, int column, bool before) {
    if (s.sort.empty()) return;
    if (st->sort_column != 0) {
      defer(st, before, loc(s.sort_pos ? s.sort_pos : s.pos), [this](SourceLoc at) {
        diags_.report(DiagId::ParseMessage, at, "multiple sort directives");
      });
      return;
    }
    st->sort_column = column;
    st->sort_descending = s.sort == "-";
  };
  if (f.value) {
    st->value = var(f.value->ident);
    sorted(*f.value, -1, true);
  }
  st->keys.reserve(arena_, f.keys.size());
  for (size_t i = 0; i < f.keys.size(); ++i) {
    st->keys.push_back(arena_, var(f.keys[i].ident));
    sorted(f.keys[i], static_cast<int>(i) + 1, true);
  }
  if (f.histogram) {
    st->histogram = f.histogram->node;
  } else {
    st->array = var(f.array.ident);
    sorted(f.array, -1, true);
  }
  for (auto& k : f.slice) st->slice.push_back(arena_, k.node);
  if (f.slice_sort) {  // a[k, *]+: by value, like a+
    x3ast::SortedIdent marker;
    marker.sort = f.slice_sort->sort;
    marker.pos = f.slice_sort->pos;
    marker.sort_pos = f.slice_sort->pos;
    sorted(marker, -1, false);
  }
  if (f.aggregate) {
    st->aggregate = Text::lasting(f.aggregate->name);
    if (!f.aggregate->sort.empty()) {
      x3ast::SortedIdent marker;
      marker.sort = f.aggregate->sort;
      marker.pos = f.aggregate->pos;
      marker.sort_pos = f.aggregate->sort_pos;
      sorted(marker, -1, false);
    }
  }
  if (f.limit) st->limit = f.limit->node;
  st->body = body(f.body);
  return st;
}

// A statement in a body position: a lone ';' becomes an empty block.
Stmt* Lowerer::body(const x3ast::Statement& s) {
  return s.node ? s.node : arena_.make<BlockStmt>(SourceLoc{file_, 0});
}

// Brace groups multiply out: a.{b,c}.d is a.b.d and a.c.d. Groups in a row
// multiply, so their product is bounded; past it, false.
constexpr size_t kMaxExpandedPoints = 10'000;

__attribute__((always_inline)) inline void Lowerer::component(const x3ast::ProbePointComponent& c,
                                                              ProbePointComponent& comp) {
  comp.name = Text::lasting(c.name);  // (source text, glued tokens' too)
  comp.loc = loc(c.pos);
  if (c.arg) comp.arg = adopt(*c.arg);
}

ProbePoint* Lowerer::build(x3ast::Pos pos, std::span<const x3ast::PendingComponent> components) {
  auto* point = arena_.make<ProbePoint>(loc(pos));
  point->components.reserve(arena_, components.size());
  for (const x3ast::PendingComponent& c : components) {
    ProbePointComponent& comp = point->components.emplace_back(arena_);
    comp.name = Text::lasting(c.name);  // (source text, glued tokens' too)
    comp.loc = loc(c.pos);
    comp.arg = c.arg;
  }
  return point;
}

bool Lowerer::expand_point(const x3ast::ProbePoint& pp, std::vector<ExpandedPoint>& out) {
  if (pp.built) {
    // (Its arguments adopted here, where component() would adopt them.)
    for (const ProbePointComponent& c : pp.built->components) flush(c.arg);
    out.assign(1, {std::vector<ProbePointComponent>(pp.built->components.begin(), pp.built->components.end())});
    return true;
  }
  out.assign(1, {});
  for (const x3ast::PointElement& el : pp.elements) {
    if (const auto* c = boost::get<x3ast::ProbePointComponent>(&el)) {
      ProbePointComponent comp;
      component(*c, comp);
      for (auto& prefix : out) prefix.components.push_back(comp);
      continue;
    }
    std::vector<const x3ast::ProbePoint*> alternatives;
    for (auto& alt : boost::get<x3ast::x3::forward_ast<x3ast::PointGroup>>(el).get().alternatives)
      alternatives.push_back(&alt);
    std::vector<ExpandedPoint> next;
    for (const x3ast::ProbePoint* alt : alternatives) {
      std::vector<ExpandedPoint> tails;
      if (!expand_point(*alt, tails)) return false;
      if (next.size() + out.size() * tails.size() > kMaxExpandedPoints) return false;
      for (auto& prefix : out)
        for (auto& tail : tails) {
          ExpandedPoint joined = prefix;
          joined.components.insert(joined.components.end(), tail.components.begin(), tail.components.end());
          // An alternative's own "?" or "!" (kernel.{trace("a")!, trace("b")}) is its points'.
          joined.optional = joined.optional || tail.optional || !alt->suffix.empty();
          joined.sufficient = joined.sufficient || tail.sufficient || alt->suffix == "!";
          next.push_back(std::move(joined));
        }
    }
    out = std::move(next);
  }
  return true;
}

List<ProbePoint*> Lowerer::points(const x3ast::Vec<x3ast::ProbePoint>& pps) {
  List<ProbePoint*> out;
  out.reserve(arena_, pps.size());
  for (const x3ast::ProbePoint& pp : pps) {
    // Most points have no brace group: built as they were parsed.
    if (ProbePoint* point = pp.built) {
      for (const ProbePointComponent& c : point->components) flush(c.arg);
      point->optional = !pp.suffix.empty();  // "!" implies "?"
      point->sufficient = pp.suffix == "!";
      point->condition = pp.condition ? adopt(*pp.condition) : nullptr;
      out.push_back(arena_, point);
      continue;
    }
    // A point with a brace group: the points it stands for.
    std::vector<ExpandedPoint> expanded;
    if (!expand_point(pp, expanded)) {
      diags_.report(DiagId::ParsePointTooLarge, loc(pp.pos), kMaxExpandedPoints);
      continue;
    }
    Expr* cond = pp.condition ? adopt(*pp.condition) : nullptr;
    for (auto& e : expanded) {
      auto* point = arena_.make<ProbePoint>(loc(pp.pos));
      point->optional = !pp.suffix.empty() || e.optional;  // "!" implies "?"
      point->sufficient = pp.suffix == "!" || e.sufficient;
      point->components.assign(arena_, e.components);
      point->condition = cond;
      out.push_back(arena_, point);
    }
  }
  return out;
}

void Lowerer::lower(const x3ast::TopLevel& top, Script& script) {
  struct Visitor {
    Lowerer& l;
    Script& script;
    void operator()(const x3ast::Probe& p) const {
      if (!p.alias_op.empty()) {
        auto* alias = l.arena_.make<AliasDecl>(l.loc(p.pos));
        alias->names = l.points(p.points);
        // An alias defines one plain name.
        if (alias->names.size() > 1)
          l.diags_.report(DiagId::ParseExpected, l.loc(p.alias_pos), "probe point specifier");
        else if (!p.points.empty() && !p.points[0].suffix.empty())
          l.diags_.report(DiagId::ParseMessage, alias->names[0]->loc,
                         "probe point alias name cannot be optional nor sufficient");
        alias->targets = l.points(p.alias_points);
        alias->epilogue = p.alias_op == "+=";
        alias->body = l.adopt(p.body);
        if (p.epilogue) alias->second = l.adopt(*p.epilogue);
        script.aliases.push_back(alias);
        return;
      }
      auto* probe = l.arena_.make<ProbeDecl>(l.loc(p.pos));
      if (p.epilogue) l.diags_.report(DiagId::ParseExpected, l.loc(p.epilogue->pos), "'=' or '+=' (only an alias has a second block)");
      probe->points = l.points(p.points);
      probe->body = l.adopt(p.body);
      script.probes.push_back(probe);
    }
    void operator()(const x3ast::Embedded& em) const {
      auto* e = l.arena_.make<EmbeddedDecl>(l.loc(em.pos));
      l.need_guru(nullptr, e->loc, "embedded code");
      e->code = Text::lasting(em.code);
      script.embedded.push_back(e);
    }
    void operator()(const x3ast::Global& g) const {
      for (auto& v : g.vars) {
        auto* decl = l.arena_.make<GlobalDecl>(l.loc(v.pos));
        decl->name = v.name.name;
        if (v.size) {
          decl->sized = true;
          decl->max_entries = l.number(*v.size)->value;
        }
        if (v.init) decl->init = l.adopt(*v.init);
        decl->wrap = v.wrap;
        decl->is_private = g.is_private;
        script.globals.push_back(decl);
      }
    }
    void operator()(const x3ast::Function& f) const {
      auto* fn = l.arena_.make<FunctionDecl>(l.loc(f.pos));
      fn->name = f.name.name;
      fn->name_loc = l.loc(f.name.pos);
      auto type_of = [](std::string_view t) {
        return t == "long" ? Type::Long : t == "string" ? Type::String : Type::Unknown;
      };
      fn->declared = type_of(f.type);
      for (auto& p : f.params) fn->params.push_back({std::string(p.name.name), type_of(p.type), l.loc(p.pos)});
      fn->is_private = f.is_private;
      if (f.embedded) {
        l.need_guru(nullptr, l.loc(f.embedded->pos), "embedded code");
        fn->is_embedded = true;
        fn->embedded_code = Text::lasting(f.embedded->code);
        fn->body = l.arena_.make<BlockStmt>(l.loc(f.embedded->pos));
      } else {
        fn->body = l.adopt(f.body);
      }
      script.functions.push_back(fn);
    }
  };
  parsing_ = false;
  boost::apply_visitor(Visitor{*this, script}, top);
  deferred_.clear();  // (nodes of alternatives the parser backtracked from)
  // The globals of the @thisN the declaration used, once per script.
  for (const std::string& name : this_vars_) {
    if (!this_declared_.insert(name).second) continue;
    auto* decl = arena_.make<GlobalDecl>(SourceLoc{});
    decl->name = name;
    decl->wrap = true;
    script.globals.push_back(decl);
  }
}

}  // namespace stapx::parse
