// Autocast: a script value keeps the C type of the target expression it
// came from, so `f = $file; f->f_path` reads as `$file->f_path` does. As in
// stap, the type travels through stores into scalar variables (locals and
// globals, whatever their order in the script), ?: whose both sides have
// it, and the operations that leave a value unchanged (x + 0, x * 1...); not through arrays, function
// parameters or return values, nor through @entry. A variable given two
// different C types has none. `base->field...` then resolves against the
// type of its base, which is a number read at run time.
#include <map>
#include <optional>
#include <ostream>

#include "translator/elaborate/elaboration.h"

namespace stapx::elab {

using namespace ast;

namespace {

struct CType {
  const debug::DType* type = nullptr;
  bool address = false;  // the value is the address of an object of `type`
  bool user = false;     // in user memory (a user-space header's type)
};

bool same(const CType& a, const CType& b) {
  return a.address == b.address && a.user == b.user &&
         (a.type == b.type || a.type->to_string() == b.type->to_string());
}

bool is_number(const Expr* e, int64_t n) {
  return e->kind == ExprKind::Number && static_cast<const NumberLit*>(e)->value == n;
}

// What the stores and derefs recorded so far say, to a fixed point: each
// variable's C type, and each deref's access (which a store may carry on).
class Flow {
 public:
  explicit Flow(Elaboration& elab) : elab_(elab), quiet_(elab.diags.sources(), null_out_) { settle(); }

  std::optional<CType> type_of(const Expr* e) const {
    switch (e->kind) {
      case ExprKind::Var: {
        auto it = vars_.find(static_cast<const VarRef*>(e)->sym);
        if (it == vars_.end() || !it->second) return std::nullopt;
        return it->second;
      }
      case ExprKind::Target:
      case ExprKind::AtOp:
      case ExprKind::Unary:
      case ExprKind::Member:
        // Resolved at name resolution, or here (a deref, or the address
        // of one: &p->f).
        if (auto t = access_type(elab_.prog.targets, e)) return t;
        return access_type(derefs_, e);
      case ExprKind::Ternary: {
        const auto* t = static_cast<const TernaryExpr*>(e);
        std::optional<CType> a = type_of(t->then), b = type_of(t->els);
        return a && b && same(*a, *b) ? a : std::nullopt;  // both sides, as in stap
      }
      case ExprKind::Binary: {
        // The identities stap folds away before it looks at types.
        const auto* b = static_cast<const BinaryExpr*>(e);
        switch (b->op) {
          case Op::Add:
          case Op::BitOr:
          case Op::BitXor:
            if (is_number(b->lhs, 0)) return type_of(b->rhs);
            return is_number(b->rhs, 0) ? type_of(b->lhs) : std::nullopt;
          case Op::Mul:
            if (is_number(b->lhs, 1)) return type_of(b->rhs);
            return is_number(b->rhs, 1) ? type_of(b->lhs) : std::nullopt;
          case Op::Sub:
          case Op::Shl:
          case Op::Shr:
            return is_number(b->rhs, 0) ? type_of(b->lhs) : std::nullopt;
          case Op::Div:
            return is_number(b->rhs, 1) ? type_of(b->lhs) : std::nullopt;
          default:
            return std::nullopt;
        }
      }
      case ExprKind::Assign: {
        const auto* a = static_cast<const AssignExpr*>(e);
        return a->op == Op::Assign ? type_of(a->rhs) : std::nullopt;
      }
      case ExprKind::Number:
      case ExprKind::String:
      case ExprKind::Index:
      case ExprKind::Call:
      case ExprKind::InArray:
      case ExprKind::Embedded:
      case ExprKind::Wildcard:
        return std::nullopt;
    }
    return std::nullopt;  // not a kind
  }

  // The access a deref settled to, if it resolved.
  TargetAccess* settled(const Expr* node) {
    auto it = derefs_.find(node);
    return it == derefs_.end() ? nullptr : &it->second;
  }

  // The deref's access, reporting why not to `sink`.
  std::optional<TargetAccess> resolve(const Elaboration::Deref& d, DiagSink& sink) const {
    std::optional<CType> base = type_of(d.m->base);
    if (!base) {
      sink.report(DiagId::SemAutocastUnknown, d.m->components[0].loc);
      return std::nullopt;
    }
    return resolve_member(*d.m, base->type, base->address, sink, d.node != d.m, base->user);
  }

 private:
  template <typename Map>
  static std::optional<CType> access_type(const Map& accesses, const Expr* e) {
    auto it = accesses.find(e);
    if (it == accesses.end() || !it->second.ctype) return std::nullopt;
    return CType{it->second.ctype, it->second.address, it->second.user};
  }

  // A variable's type only grows (none, one, then none for good when a
  // second type is stored), so a deref's base settles, and so does the
  // loop: each round either changes a variable or stops.
  void settle() {
    for (bool changed = true; changed;) {
      derefs_.clear();
      for (const Elaboration::Deref& d : elab_.derefs)
        if (auto a = resolve(d, quiet_)) derefs_.emplace(d.node, std::move(*a));
      changed = false;
      for (const Elaboration::Store& s : elab_.stores) {
        std::optional<CType> t = type_of(s.value);
        if (!t) continue;
        auto [it, added] = vars_.try_emplace(s.sym, t);
        if (added) {
          changed = true;
        } else if (it->second && !same(*it->second, *t)) {
          it->second.reset();
          changed = true;
        }
      }
    }
  }

  Elaboration& elab_;
  std::ostream null_out_{nullptr};
  mutable DiagSink quiet_;
  std::map<const Symbol*, std::optional<CType>> vars_;  // nullopt: two types
  std::map<const Expr*, TargetAccess> derefs_;
};

}  // namespace

void resolve_autocasts(Elaboration& elab) {
  if (elab.derefs.empty()) return;
  Flow flow(elab);
  for (const Elaboration::Deref& d : elab.derefs) {
    std::optional<TargetAccess> access;
    if (TargetAccess* done = flow.settled(d.node))
      access = *done;
    else
      access = flow.resolve(d, elab.diags);  // (to say why not)
    if (!access) continue;
    d.m->type = access->yields_string() && d.node == d.m ? Type::String : Type::Long;
    d.node->type = d.m->type;
    if (d.write.valid())
      if (const char* why = target_write_problem(*access))
        elab.diags.report(DiagId::SemTargetNotWritable, d.write, "->" + d.m->components[0].field, why);
    elab.prog.targets[d.node] = std::move(*access);
  }
}

std::optional<TargetAccess> try_autocast(Elaboration& elab, const MemberExpr& m, const Symbol* base) {
  if (!base) return std::nullopt;
  // The deref is tried as if its base were resolved to `base`.
  VarRef v;
  v.sym = const_cast<Symbol*>(base);
  MemberExpr probe = m;
  probe.base = &v;
  Flow flow(elab);
  std::ostream null_out(nullptr);
  DiagSink quiet(elab.diags.sources(), null_out);
  return flow.resolve({&probe, &probe, {}}, quiet);
}

}  // namespace stapx::elab
