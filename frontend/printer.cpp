// Canonical printer for -p1. Layout: one declaration per paragraph, four
// spaces per block level, fully parenthesized binary expressions.
#include "frontend/printer.h"

#include <fmt/format.h>

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

class Printer {
 public:
  explicit Printer(std::ostream& out) : out_(out) {}

  void expr(const Expr* e) {
    switch (e->kind) {
      case ExprKind::Number: {
        // A negative literal (from "-N" in a global initializer, or a
        // 64-bit hex constant) prints in hex: it reads back as the same
        // literal, where "-N" would read back as a negation.
        int64_t v = static_cast<const NumberLit*>(e)->value;
        if (v < 0)
          out_ << fmt::format("{:#x}", static_cast<uint64_t>(v));
        else
          out_ << v;
        break;
      }
      case ExprKind::String: out_ << escape_string(static_cast<const StringLit*>(e)->value); break;
      case ExprKind::Var: out_ << static_cast<const VarRef*>(e)->name; break;
      case ExprKind::Index: {
        auto* ix = static_cast<const IndexExpr*>(e);
        out_ << ix->array->name << "[";
        list(ix->keys);
        out_ << "]";
        break;
      }
      case ExprKind::Call: {
        auto* c = static_cast<const CallExpr*>(e);
        out_ << c->name << "(";
        list(c->args);
        out_ << ")";
        break;
      }
      case ExprKind::Unary: {
        auto* u = static_cast<const UnaryExpr*>(e);
        bool post = u->op == Op::PostInc || u->op == Op::PostDec;
        out_ << "(";
        if (!post) out_ << op_text(u->op);
        expr(u->operand);
        if (post) out_ << op_text(u->op);
        out_ << ")";
        break;
      }
      case ExprKind::Binary: {
        auto* b = static_cast<const BinaryExpr*>(e);
        out_ << "(";
        expr(b->lhs);
        out_ << " " << op_text(b->op) << " ";
        expr(b->rhs);
        out_ << ")";
        break;
      }
      case ExprKind::Ternary: {
        auto* t = static_cast<const TernaryExpr*>(e);
        out_ << "(";
        expr(t->cond);
        out_ << " ? ";
        expr(t->then);
        out_ << " : ";
        expr(t->els);
        out_ << ")";
        break;
      }
      case ExprKind::Assign: {
        auto* a = static_cast<const AssignExpr*>(e);
        out_ << "(";
        expr(a->lhs);
        if (a->op == Op::Assign || a->op == Op::AggregateInto)
          out_ << " " << op_text(a->op) << " ";
        else
          out_ << " " << op_text(a->op) << "= ";
        expr(a->rhs);
        out_ << ")";
        break;
      }
      case ExprKind::InArray: {
        auto* in = static_cast<const InArrayExpr*>(e);
        out_ << "([";
        list(in->keys);
        out_ << "] in " << in->array->name << ")";
        break;
      }
      case ExprKind::Target: {
        auto* t = static_cast<const TargetExpr*>(e);
        out_ << t->base;
        components(t->components);
        out_ << t->pretty;
        break;
      }
      case ExprKind::AtOp: {
        auto* a = static_cast<const AtOpExpr*>(e);
        out_ << "@" << a->name << "(";
        list(a->args);
        out_ << ")";
        components(a->components);
        out_ << a->pretty;
        break;
      }
      case ExprKind::Embedded:
        out_ << "%{" << static_cast<const EmbeddedExpr*>(e)->code << "%}";
        break;
      case ExprKind::Member: {
        auto* m = static_cast<const MemberExpr*>(e);
        out_ << "(";
        expr(m->base);
        out_ << ")";
        components(m->components);
        out_ << m->pretty;
        break;
      }
      case ExprKind::Wildcard:
        out_ << "*";
        break;
    }
  }

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

  void stmt(const Stmt* s, int depth) {
    indent(depth);
    switch (s->kind) {
      case StmtKind::Block: block(static_cast<const BlockStmt*>(s), depth); out_ << "\n"; break;
      case StmtKind::Expr:
        expr(static_cast<const ExprStmt*>(s)->expr);
        out_ << ";\n";
        break;
      case StmtKind::If: {
        auto* i = static_cast<const IfStmt*>(s);
        out_ << "if (";
        expr(i->cond);
        out_ << ")\n";
        stmt(i->then, depth + 1);
        if (i->els) {
          indent(depth);
          out_ << "else\n";
          stmt(i->els, depth + 1);
        }
        break;
      }
      case StmtKind::While: {
        auto* w = static_cast<const WhileStmt*>(s);
        out_ << "while (";
        expr(w->cond);
        out_ << ")\n";
        stmt(w->body, depth + 1);
        break;
      }
      case StmtKind::For: {
        auto* f = static_cast<const ForStmt*>(s);
        out_ << "for (";
        if (f->init) expr(f->init);
        out_ << "; ";
        if (f->cond) expr(f->cond);
        out_ << "; ";
        if (f->incr) expr(f->incr);
        out_ << ")\n";
        stmt(f->body, depth + 1);
        break;
      }
      case StmtKind::Foreach: {
        auto* f = static_cast<const ForeachStmt*>(s);
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
        stmt(f->body, depth + 1);
        break;
      }
      case StmtKind::Next: out_ << "next;\n"; break;
      case StmtKind::Break: out_ << "break;\n"; break;
      case StmtKind::Continue: out_ << "continue;\n"; break;
      case StmtKind::Try: {
        auto* t = static_cast<const TryStmt*>(s);
        out_ << "try ";
        block(t->body, depth);
        out_ << " catch ";
        if (t->var) out_ << "(" << t->var->name << ") ";
        block(t->handler, depth);
        out_ << "\n";
        break;
      }
      case StmtKind::Return: {
        auto* r = static_cast<const ReturnStmt*>(s);
        out_ << "return";
        if (r->value) {
          out_ << " ";
          expr(r->value);
        }
        out_ << ";\n";
        break;
      }
      case StmtKind::Delete:
        out_ << "delete ";
        expr(static_cast<const DeleteStmt*>(s)->target);
        out_ << ";\n";
        break;
      case StmtKind::Null: out_ << ";\n"; break;
    }
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
};

}  // namespace

void print_script(std::ostream& out, const Script& script) { Printer(out).script(script); }
void print_expr(std::ostream& out, const Expr* e) { Printer(out).expr(e); }

}  // namespace stapx

namespace stapx::ast {

std::string ProbePoint::to_string() const {
  std::string s;
  for (size_t i = 0; i < components.size(); ++i) {
    if (i) s += ".";
    s += components[i].name;
    if (const Expr* a = components[i].arg) {
      s += "(";
      if (a->kind == ExprKind::Number)
        s += std::to_string(static_cast<const NumberLit*>(a)->value);
      else
        s += escape_string(static_cast<const StringLit*>(a)->value);
      s += ")";
    }
  }
  if (optional) s += "?";
  if (sufficient) s += "!";
  return s;
}

}  // namespace stapx::ast
