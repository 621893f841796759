// Canonical printer for -p1. Layout: one declaration per paragraph, four
// spaces per block level, fully parenthesized binary expressions.
#include "frontend/printer.h"

#include <fmt/format.h>

#include "frontend/ast_visitor.h"

namespace stapx {

using namespace ast;

std::string escape_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c >= 0x7f)
          out += fmt::format("\\{:03o}", c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

class Printer : public Visitor<Printer, true> {
 public:
  static constexpr bool kEveryNode = true;

  explicit Printer(std::ostream& out) : out_(out) {}

  void expr(const Expr* e) { visit(e); }

  // A negative literal (from "-N" in a global initializer, or a 64-bit hex
  // constant) prints in hex: it reads back as the same literal, where "-N"
  // would read back as a negation.
  void visit_number(const NumberLit* n) {
    if (n->value < 0)
      out_ << fmt::format("{:#x}", static_cast<uint64_t>(n->value));
    else
      out_ << n->value;
  }
  void visit_string(const StringLit* s) { out_ << escape_string(s->value); }
  void visit_var(const VarRef* v) { out_ << v->name; }
  void visit_index(const IndexExpr* ix) {
    out_ << ix->array->name << "[";
    list(ix->keys);
    out_ << "]";
  }
  void visit_call(const CallExpr* c) {
    out_ << c->name << "(";
    list(c->args);
    out_ << ")";
  }
  void visit_unary(const UnaryExpr* u) {
    bool post = u->op == Op::PostInc || u->op == Op::PostDec;
    out_ << "(";
    if (!post) out_ << op_text(u->op);
    expr(u->operand);
    if (post) out_ << op_text(u->op);
    out_ << ")";
  }
  void visit_binary(const BinaryExpr* b) {
    out_ << "(";
    expr(b->lhs);
    out_ << " " << op_text(b->op) << " ";
    expr(b->rhs);
    out_ << ")";
  }
  void visit_ternary(const TernaryExpr* t) {
    out_ << "(";
    expr(t->cond);
    out_ << " ? ";
    expr(t->then);
    out_ << " : ";
    expr(t->els);
    out_ << ")";
  }
  void visit_assign(const AssignExpr* a) {
    out_ << "(";
    expr(a->lhs);
    if (a->op == Op::Assign || a->op == Op::AggregateInto)
      out_ << " " << op_text(a->op) << " ";
    else
      out_ << " " << op_text(a->op) << "= ";
    expr(a->rhs);
    out_ << ")";
  }
  void visit_in_array(const InArrayExpr* in) {
    out_ << "([";
    list(in->keys);
    out_ << "] in " << in->array->name << ")";
  }
  void visit_target(const TargetExpr* t) {
    out_ << t->base;
    components(t->components);
    out_ << t->pretty;
  }
  void visit_at_op(const AtOpExpr* a) {
    out_ << "@" << a->name << "(";
    list(a->args);
    out_ << ")";
    components(a->components);
    out_ << a->pretty;
  }
  void visit_embedded(const EmbeddedExpr* e) { out_ << "%{" << e->code << "%}"; }
  void visit_member(const MemberExpr* m) {
    out_ << "(";
    expr(m->base);
    out_ << ")";
    components(m->components);
    out_ << m->pretty;
  }
  void visit_wildcard(const WildcardExpr*) { out_ << "*"; }

  void components(std::span<const TargetComponent> cs) {
    for (const TargetComponent& c : cs) {
      if (c.index) {
        out_ << "[";
        expr(c.index);
        out_ << "]";
      } else {
        out_ << "->" << c.field;
      }
    }
  }

  // A statement at `depth` levels, on lines of its own.
  void stmt(const Stmt* s, int depth) {
    int outer = depth_;
    depth_ = depth;
    indent(depth);
    visit(s);
    depth_ = outer;
  }

  void visit_block(const BlockStmt* b) {
    block(b, depth_);
    out_ << "\n";
  }
  void visit_expr_stmt(const ExprStmt* s) {
    expr(s->expr);
    out_ << ";\n";
  }
  void visit_if(const IfStmt* i) {
    out_ << "if (";
    expr(i->cond);
    out_ << ")\n";
    stmt(i->then, depth_ + 1);
    if (i->els) {
      indent(depth_);
      out_ << "else\n";
      stmt(i->els, depth_ + 1);
    }
  }
  void visit_while(const WhileStmt* w) {
    out_ << "while (";
    expr(w->cond);
    out_ << ")\n";
    stmt(w->body, depth_ + 1);
  }
  void visit_for(const ForStmt* f) {
    out_ << "for (";
    if (f->init) expr(f->init);
    out_ << "; ";
    if (f->cond) expr(f->cond);
    out_ << "; ";
    if (f->incr) expr(f->incr);
    out_ << ")\n";
    stmt(f->body, depth_ + 1);
  }
  void visit_foreach(const ForeachStmt* f) {
    auto mark = [&](int column) {
      if (f->sort_column == column) out_ << (f->sort_descending ? "-" : "+");
    };
    out_ << "foreach (";
    if (f->value) {
      out_ << f->value->name;
      mark(-1);
      out_ << " = ";
    }
    out_ << "[";
    for (size_t i = 0; i < f->keys.size(); ++i) {
      if (i) out_ << ", ";
      out_ << f->keys[i]->name;
      mark(static_cast<int>(i) + 1);
    }
    out_ << "] in ";
    if (f->histogram)
      expr(f->histogram);
    else
      out_ << f->array->name;
    if (!f->slice.empty()) {
      out_ << "[";
      list(f->slice);
      out_ << "]";
    }
    if (!f->aggregate.empty()) out_ << " @" << f->aggregate;
    if (!f->value) mark(-1);
    if (f->limit) {
      out_ << " limit ";
      expr(f->limit);
    }
    out_ << ")\n";
    stmt(f->body, depth_ + 1);
  }
  void visit_next(const SimpleStmt*) { out_ << "next;\n"; }
  void visit_break(const SimpleStmt*) { out_ << "break;\n"; }
  void visit_continue(const SimpleStmt*) { out_ << "continue;\n"; }
  void visit_null(const SimpleStmt*) { out_ << ";\n"; }
  void visit_try(const TryStmt* t) {
    out_ << "try ";
    block(t->body, depth_);
    out_ << " catch ";
    if (t->var) out_ << "(" << t->var->name << ") ";
    block(t->handler, depth_);
    out_ << "\n";
  }
  void visit_return(const ReturnStmt* r) {
    out_ << "return";
    if (r->value) {
      out_ << " ";
      expr(r->value);
    }
    out_ << ";\n";
  }
  void visit_delete(const DeleteStmt* d) {
    out_ << "delete ";
    expr(d->target);
    out_ << ";\n";
  }

  void block(const BlockStmt* b, int depth) {
    out_ << "{\n";
    for (const Stmt* s : b->stmts) stmt(s, depth + 1);
    indent(depth);
    out_ << "}";
  }

  void points(std::span<ProbePoint* const> ps) {
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) out_ << ", ";
      out_ << ps[i]->to_string();
      if (ps[i]->condition) {
        out_ << " if (";
        expr(ps[i]->condition);
        out_ << ")";
      }
    }
  }

  void script(const Script& s) {
    for (const EmbeddedDecl* e : s.embedded) out_ << "%{" << e->code << "%}\n";
    for (const GlobalDecl* g : s.globals) {
      if (g->is_private) out_ << "private ";
      out_ << "global " << g->name;
      if (g->wrap) out_ << "%";
      if (g->sized) out_ << "[" << g->max_entries << "]";
      if (g->init) {
        out_ << " = ";
        expr(g->init);
      }
      out_ << "\n";
    }
    for (const FunctionDecl* f : s.functions) {
      if (f->is_private) out_ << "private ";
      out_ << "function " << f->name;
      if (f->declared != Type::Unknown) out_ << ":" << type_name(f->declared);
      out_ << " (";
      for (size_t i = 0; i < f->params.size(); ++i) {
        if (i) out_ << ", ";
        out_ << f->params[i].name;
        if (f->params[i].declared != Type::Unknown) out_ << ":" << type_name(f->params[i].declared);
      }
      out_ << ") ";
      if (f->is_embedded)
        out_ << "%{" << f->embedded_code << "%}";
      else
        block(f->body, 0);
      out_ << "\n";
    }
    for (const AliasDecl* a : s.aliases) {
      out_ << "probe ";
      points(a->names);
      out_ << (a->epilogue ? " += " : " = ");
      points(a->targets);
      out_ << " ";
      block(a->body, 0);
      if (a->second) {
        out_ << ", ";
        block(a->second, 0);
      }
      out_ << "\n";
    }
    for (const ProbeDecl* p : s.probes) {
      out_ << "probe ";
      points(p->points);
      out_ << " ";
      block(p->body, 0);
      out_ << "\n";
    }
  }

 private:
  void indent(int depth) {
    for (int i = 0; i < depth; ++i) out_ << "    ";
  }
  void list(std::span<Expr* const> es) {
    for (size_t i = 0; i < es.size(); ++i) {
      if (i) out_ << ", ";
      expr(es[i]);
    }
  }

  std::ostream& out_;
  int depth_ = 0;  // of the statement being printed
};

}  // namespace

void print_script(std::ostream& out, const Script& script) { Printer(out).script(script); }
void print_expr(std::ostream& out, const Expr* e) { Printer(out).expr(e); }

}  // namespace stapx

namespace stapx::ast {

std::string ProbePoint::to_string(bool hex_addresses) const {
  std::string s;
  for (size_t i = 0; i < components.size(); ++i) {
    if (i) s += ".";
    s += components[i].name;
    if (const Expr* a = components[i].arg) {
      s += "(";
      if (hex_addresses && a->kind == ExprKind::Number && components[0].name != "kprobe" &&
          (components[i].name == "function" || components[i].name == "statement"))
        s += fmt::format("{:#x}", static_cast<uint64_t>(static_cast<const NumberLit*>(a)->value));
      else if (a->kind == ExprKind::Number)
        s += std::to_string(static_cast<const NumberLit*>(a)->value);
      else
        s += escape_string(static_cast<const StringLit*>(a)->value);
      s += ")";
    }
  }
  // "!" implies "?": a point shows the one it was written with.
  if (sufficient)
    s += "!";
  else if (optional)
    s += "?";
  return s;
}

}  // namespace stapx::ast
