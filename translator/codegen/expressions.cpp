// Expressions: each becomes a C expression (a GNU statement expression
// where it needs temporaries) that evaluates its operands left to right,
// as stap does; arrays and their keys; target variables; assignments.
#include "translator/codegen/generator.h"

#include <algorithm>
#include <cctype>

#include "translator/codegen/target_c.h"

namespace stapx::codegen {

std::string Codegen::lvalue_scalar(const VarRef* v) {
  if (v->sym->scope == Symbol::Scope::Global) return global(v->sym);
  return "l->v_" + v->name;
}

// Emits key evaluation into `decl` (a statement list) and returns the key
// array's name. Keys are evaluated left to right into the array.
std::string Codegen::keys(std::span<Expr* const> ks, const Symbol*, std::string& decl) {
  std::string name = "k_" + uniq();
  decl += fmt::format("union _stpx_key {}[{}]; ", name, ks.size());
  for (size_t i = 0; i < ks.size(); ++i) {
    if (ks[i]->kind == ExprKind::Wildcard)  // '*': not compared (see wildcard_mask)
      decl += fmt::format("{}[{}].l = 0; ", name, i);
    else
      decl += fmt::format("{}[{}].{} = {}; ", name, i, ks[i]->type == Type::String ? "s" : "l",
                          key_expr(ks[i], i + 1 == ks.size()));
  }
  return name;
}

// For keys with '*' among them, the bits of the keys that are compared
// (map.c's _stpx_map_match_some); -1 when there is no '*'.
int Codegen::wildcard_mask(std::span<Expr* const> ks) {
  int some = 0;
  bool any = false;
  for (size_t i = 0; i < ks.size(); ++i) {
    if (ks[i]->kind == ExprKind::Wildcard)
      any = true;
    else
      some |= 1 << i;
  }
  return any ? some : -1;
}

// One key's value. The last key is used (by the map operation) before
// anything else runs, so a string function's result need not be copied
// out of the callee's frame.
std::string Codegen::key_expr(const Expr* k, bool last) {
  if (last && k->kind == ExprKind::Call && k->type == Type::String)
    return call(static_cast<const CallExpr*>(k), true);
  return expr(k);
}

// A call of execname() (tapsets/context.stp): an embedded-C function whose
// code, comments and blanks aside, is only the comm copy.
bool Codegen::is_execname(const Expr* e) {
  if (e->kind != ExprKind::Call) return false;
  const FunctionDecl* f = static_cast<const CallExpr*>(e)->fn;
  if (!f || !f->is_embedded || !f->params.empty() || f->type != Type::String) return false;
  std::string code;
  std::string_view text = f->embedded_code;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "/*") == 0) {
      size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) return false;
      i = end + 1;
    } else if (!std::isspace(static_cast<unsigned char>(text[i]))) {
      code += text[i];
    }
  }
  return code == "_stpx_copy_comm(STAP_RETVALUE,current);";
}

// The key argument of a one-key element function (_stpx_map_ref_l1 ...),
// `one` its suffix. m[execname()] (a one-string-key array) uses the
// functions that read the comm's words themselves (runtime-c/map.c,
// _stpx_map_ref_comm ...): `one` becomes "comm", the argument a string
// temporary they may use, and `pre` keeps the call's MAXNESTING check.
std::string Codegen::one_key_arg(const Symbol* sym, const Expr* k, std::string& one, std::string& pre) {
  if (one != "s1" || !is_execname(k)) return key_expr(k, true);
  (void)sym;
  one = "comm";
  pre += fmt::format("if (unlikely({} >= MAXNESTING)) STPX_ERROR(\"MAXNESTING exceeded\", {}); ",
                     in_probe_body_ ? "0" : "c->nesting", where(k->loc));
  return string_temp();
}

std::string Codegen::one_key(const Symbol* sym) {
  if (sym->arity != 1 || sym->key_types.size() != 1) return "";
  if (sym->key_types[0] == Type::String) return "s1";
  if (sym->key_types[0] == Type::Long) return "l1";
  return "";
}

// Statements that leave in `pre` a pointer `v_N` to the element's value
// slot (created when absent); returns that pointer's name.
std::string Codegen::map_ref(const IndexExpr* ix, std::string& pre) {
  std::string v = "v_" + uniq();
  const char* type = ix->type == Type::String ? "char" : "int64_t";
  if (std::string one = one_key(ix->array->sym); !one.empty()) {
    std::string key = one_key_arg(ix->array->sym, ix->keys[0], one, pre);
    pre += fmt::format("{} *{} = _stpx_map_ref_{}({}, {}); ", type, v, one, global(ix->array->sym), key);
  } else {
    std::string k = keys(ix->keys, ix->array->sym, pre);
    pre += fmt::format("{} *{} = _stpx_map_ref({}, {}); ", type, v, global(ix->array->sym), k);
  }
  pre += fmt::format("if (unlikely(!{})) STPX_ERROR(\"{}\", {}); ", v, overflow_message(ix->array->sym),
                     where(ix->array->loc));
  return v;
}

std::string Codegen::expr(const Expr* e) { return visit(e); }

std::string Codegen::visit_number(const NumberLit* e) {
  int64_t v = e->value;
  if (v == INT64_MIN) return "((int64_t)(-9223372036854775807LL - 1))";
  return fmt::format("((int64_t){}LL)", v);
}

std::string Codegen::visit_string(const StringLit* e) { return c_string(e->value); }
std::string Codegen::visit_var(const VarRef* e) { return lvalue_scalar(e); }

std::string Codegen::visit_index(const IndexExpr* ix) {
  std::string pre;
  if (std::string one = one_key(ix->array->sym); !one.empty()) {
    std::string n = uniq();
    std::string key = one_key_arg(ix->array->sym, ix->keys[0], one, pre);
    pre += fmt::format("const {} *p_{} = _stpx_map_get_{}({}, {}); ",
                       ix->type == Type::String ? "char" : "int64_t", n, one, global(ix->array->sym), key);
    if (ix->type == Type::String)
      return fmt::format("({{ {}_stpx_strcpy({}, p_{} ? p_{} : \"\"); }})", pre, string_temp(), n, n);
    return fmt::format("({{ {}p_{} ? *p_{} : 0; }})", pre, n, n);
  }
  std::string k = keys(ix->keys, ix->array->sym, pre);
  if (ix->type == Type::String)
    return fmt::format("({{ {}_stpx_strcpy({}, _stpx_map_get_s({}, {})); }})", pre,
                       string_temp(), global(ix->array->sym), k);
  return fmt::format("({{ {}_stpx_map_get_l({}, {}); }})", pre, global(ix->array->sym), k);
}

std::string Codegen::visit_in_array(const InArrayExpr* in) {
  std::string pre;
  if (int some = wildcard_mask(in->keys); some >= 0) {
    std::string k = keys(in->keys, in->array->sym, pre);
    return fmt::format("({{ {}(int64_t)_stpx_{}map_exists_some({}, {}, {:#x}); }})", pre,
                       is_stat(in->array->sym) ? "p" : "", global(in->array->sym), k, some);
  }
  if (std::string one = one_key(in->array->sym); !one.empty() && !is_stat(in->array->sym)) {
    std::string key = one_key_arg(in->array->sym, in->keys[0], one, pre);
    return fmt::format("({{ {}(int64_t)(_stpx_map_get_{}({}, {}) != NULL); }})", pre, one,
                       global(in->array->sym), key);
  }
  std::string k = keys(in->keys, in->array->sym, pre);
  if (is_stat(in->array->sym))
    return fmt::format("({{ {}(int64_t)_stpx_pmap_exists({}, {}); }})", pre, global(in->array->sym), k);
  return fmt::format("({{ {}(int64_t)(_stpx_map_get({}, {}) != NULL); }})", pre,
                     global(in->array->sym), k);
}

std::string Codegen::visit_call(const CallExpr* e) { return call(e); }

std::string Codegen::visit_unary(const UnaryExpr* u) {
  if (auto it = prog_.targets.find(u); it != prog_.targets.end())  // &$var
    return target(it->second, u);
  switch (u->op) {
    case Op::Neg: return fmt::format("((int64_t)(0 - (uint64_t){}))", expr(u->operand));
    case Op::Plus: return fmt::format("({})", expr(u->operand));
    case Op::Not: return fmt::format("((int64_t)!{})", expr(u->operand));
    case Op::BitNot: return fmt::format("(~{})", expr(u->operand));
    default: return incdec(u);
  }
}

std::string Codegen::visit_binary(const BinaryExpr* e) { return binary(e); }

std::string Codegen::visit_ternary(const TernaryExpr* t) {
  return fmt::format("({} ? {} : {})", expr(t->cond), expr(t->then), expr(t->els));
}

std::string Codegen::visit_assign(const AssignExpr* e) { return assign(e); }

std::string Codegen::visit_at_op(const AtOpExpr* e) {
  if (auto it = prog_.targets.find(e); it != prog_.targets.end())  // @entry(...)
    return target(it->second, e);
  if (auto it = prog_.perf_reads.find(e); it != prog_.perf_reads.end())
    return fmt::format("((int64_t)_stpx_perf_read_slot({}))", it->second);
  return stat_read(e);
}

std::string Codegen::visit_target(const TargetExpr* e) { return resolved_target(e); }

// %{ CODE %} as a value (guru mode, or a tapset), on lines of its own so
// that a // comment or a preprocessor line in it ends there; CONTEXT is
// the probe's context, as in an embedded-C function. A string's
// characters are copied before anything can change them.
std::string Codegen::visit_embedded(const EmbeddedExpr* e) {
  std::string code(e->code.view());
  if (code.find("CONTEXT") != std::string::npos) {
    uses_context_ = true;
    code = "\n#define CONTEXT c\n" + code + "\n#undef CONTEXT\n";
  } else {
    code = "\n" + code + "\n";
  }
  if (e->type == Type::String)
    return fmt::format("({{ const char *e_{0} = ({1}); _stpx_strcpy({2}, e_{0} ? e_{0} : \"\"); }})", uniq(), code,
                       string_temp());
  return fmt::format("((int64_t)({}))", code);
}

std::string Codegen::visit_member(const MemberExpr* e) { return resolved_target(e); }

// $var... or p->f...: its access, resolved at pass 2 (else an error was
// reported and no module is built; 0 keeps the walk going).
std::string Codegen::resolved_target(const Expr* e) {
  auto it = prog_.targets.find(e);
  return it == prog_.targets.end() ? "0" : target(it->second, e);
}
// Only a key of delete or `in`, which read it themselves.
std::string Codegen::visit_wildcard(const WildcardExpr*) { return "0"; }

std::string Codegen::target(const TargetAccess& t, const Expr* e) {
  uses_context_ = true;
  uses_entry_values_ = uses_entry_values_ || uses_entry_values(t);
  return target_c(t, where(e->loc), [this] { return string_temp(); }, [this](const Expr* x) { return expr(x); },
                  [this](int slot) { return entry_read(slot); });
}

// A kretprobe instance's data (runtime-c/probes/kprobes.c): a word saying
// whether the entry half ran, then the saves in order, a number in one
// word, a string in STPX_ENTRY_STR_WORDS (the size the generated module
// defines, see run()). c->entry_saved and the entry half's `saved` point
// past the first word.
std::string Codegen::entry_offset(int slot) const {
  int longs = 0, strings = 0;
  for (int i = 0; i < slot; ++i) ((*entry_saves_)[i].saves_string() ? strings : longs)++;
  return strings ? fmt::format("{} + {} * STPX_ENTRY_STR_WORDS", longs, strings) : std::to_string(longs);
}

std::string Codegen::entry_read(int slot) const {
  if ((*entry_saves_).at(slot).saves_string())
    return fmt::format("((const char *)&c->entry_saved[{}])", entry_offset(slot));
  return fmt::format("c->entry_saved[{}]", entry_offset(slot));
}

std::string Codegen::incdec(const UnaryExpr* u) {
  bool pre = u->op == Op::PreInc || u->op == Op::PreDec;
  const char* op = (u->op == Op::PreInc || u->op == Op::PostInc) ? "++" : "--";
  if (u->operand->kind == ExprKind::Var) {
    std::string x = lvalue_scalar(static_cast<const VarRef*>(u->operand));
    return pre ? fmt::format("({}{})", op, x) : fmt::format("({}{})", x, op);
  }
  if (u->operand->kind == ExprKind::Target || u->operand->kind == ExprKind::Member ||
      u->operand->kind == ExprKind::AtOp) {
    // `$var++` (guru mode): read, store the new value, yield old or new.
    const TargetAccess& t = prog_.targets.at(u->operand);
    uses_context_ = true;
    std::string n = uniq();
    std::string O = "o_" + n, V = "v_" + n;
    return fmt::format("({{ int64_t {} = {}; int64_t {} = (int64_t)((uint64_t){} {} 1); {} {}; }})", O,
                       expr(u->operand), V, O, op[0], target_write_c(t, V, where(u->operand->loc),
                                                                     [this](const Expr* x) { return expr(x); }),
                       pre ? V : O);
  }
  std::string stmts;
  std::string v = map_ref(static_cast<const IndexExpr*>(u->operand), stmts);
  return pre ? fmt::format("({{ {}{}*{}; }})", stmts, op, v)
             : fmt::format("({{ {}(*{}){}; }})", stmts, v, op);
}

std::string Codegen::binary(const BinaryExpr* b) {
  std::string n = uniq();
  std::string L = "l_" + n, R = "r_" + n;
  if (b->op == Op::LogAnd || b->op == Op::LogOr)
    return fmt::format("((int64_t)({} {} {}))", expr(b->lhs), op_text(b->op), expr(b->rhs));
  if (b->op == Op::Concat)
    return fmt::format("({{ const char *{} = {}; const char *{} = {}; _stpx_concat({}, {}, {}); }})",
                       L, expr(b->lhs), R, expr(b->rhs), string_temp(), L, R);
  if (b->op == Op::RegexMatch || b->op == Op::RegexNoMatch) {
    const std::string pattern = static_cast<const StringLit*>(b->rhs)->value.str();
    auto [it, fresh] = regex_ids_.emplace(pattern, static_cast<int>(regex_ids_.size()));
    if (prog_.submatch)  // the match is recorded for matched(), ngroups()
      return fmt::format("((int64_t){0}_stpx_regex_match_sub(&_stpx_re_{1}, &_stpx_rp_{1}, {2}, &c->re_scratch, "
                         "&c->re_last))",
                         b->op == Op::RegexNoMatch ? "!" : "", it->second, expr(b->lhs));
    return fmt::format("((int64_t){}_stpx_regex_match(&_stpx_re_{}, {}))", b->op == Op::RegexNoMatch ? "!" : "",
                       it->second, expr(b->lhs));
  }
  bool strings = b->lhs->type == Type::String;
  std::string head = fmt::format("{0} {1} = {2}; {0} {3} = {4}; ", c_type(b->lhs->type), L,
                                 expr(b->lhs), R, expr(b->rhs));
  std::string value;
  switch (b->op) {
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      value = strings ? fmt::format("(int64_t)(strcmp({}, {}) {} 0)", L, R, op_text(b->op))
                      : fmt::format("(int64_t)({} {} {})", L, op_text(b->op), R);
      break;
    case Op::Div:
    case Op::Mod:
      head += fmt::format("if (unlikely({} == 0)) STPX_ERROR(\"division by zero\", {}); ", R,
                          where(b->op_loc));
      value = fmt::format("{}({}, {})", b->op == Op::Div ? "_stpx_div" : "_stpx_mod", L, R);
      break;
    case Op::Shl: value = fmt::format("(int64_t)((uint64_t){} << ({} & 63))", L, R); break;
    case Op::Shr: value = fmt::format("({} >> ({} & 63))", L, R); break;
    case Op::UShr: value = fmt::format("(int64_t)((uint64_t){} >> ({} & 63))", L, R); break;
    case Op::Add: value = fmt::format("(int64_t)((uint64_t){} + (uint64_t){})", L, R); break;
    case Op::Sub: value = fmt::format("(int64_t)((uint64_t){} - (uint64_t){})", L, R); break;
    case Op::Mul: value = fmt::format("(int64_t)((uint64_t){} * (uint64_t){})", L, R); break;
    default: value = fmt::format("({} {} {})", L, op_text(b->op), R); break;
  }
  return fmt::format("({{ {}{}; }})", head, value);
}

std::string Codegen::assign(const AssignExpr* a) {
  std::string n = uniq();
  if (a->op == Op::AggregateInto) {
    std::string stmts = fmt::format("int64_t r_{} = {}; ", n, expr(a->rhs));
    if (a->lhs->kind == ExprKind::Var)
      return fmt::format("({{ {}_stpx_stat_add(this_cpu_ptr({}), r_{}, {}); r_{}; }})", stmts,
                         global(static_cast<const VarRef*>(a->lhs)->sym), n,
                         hist(static_cast<const VarRef*>(a->lhs)->sym), n);
    auto* ix = static_cast<const IndexExpr*>(a->lhs);
    std::string add;
    if (std::string one = one_key(ix->array->sym); !one.empty()) {
      std::string key = one_key_arg(ix->array->sym, ix->keys[0], one, stmts);
      add = fmt::format("_stpx_pmap_add_{}(this_cpu_read(_stpx_gm_{}), {}, r_{}, {})", one, ix->array->sym->name,
                        key, n, hist(ix->array->sym));
    } else
      add = fmt::format("_stpx_pmap_add({}, {}, r_{})", global(ix->array->sym), keys(ix->keys, ix->array->sym, stmts), n);
    return fmt::format("({{ {}if (unlikely({})) STPX_ERROR(\"{}\", {}); r_{}; }})", stmts, add,
                       overflow_message(ix->array->sym), where(ix->array->loc), n);
  }
  if (a->lhs->kind == ExprKind::Target || a->lhs->kind == ExprKind::Member || a->lhs->kind == ExprKind::AtOp)
    return target_assign(a);  // (an AtOp lvalue is a @cast or @var: the rest are refused)
  std::string R = "r_" + n;
  bool str = a->lhs->type == Type::String;
  std::string stmts = fmt::format("{} {} = {}; ", c_type(a->rhs->type), R, expr(a->rhs));
  // The target: a scalar, or the map slot (a char * for strings).
  std::string target;
  if (a->lhs->kind == ExprKind::Var) {
    target = lvalue_scalar(static_cast<const VarRef*>(a->lhs));
  } else {
    std::string slot = map_ref(static_cast<const IndexExpr*>(a->lhs), stmts);
    target = str ? slot : "(*" + slot + ")";
  }
  if (a->op == Op::Assign) {
    if (str) return fmt::format("({{ {}_stpx_strcpy({}, {}); }})", stmts, target, R);
    return fmt::format("({{ {}{} = {}; }})", stmts, target, R);
  }
  if (a->op == Op::Concat) {
    std::string t = string_temp();
    return fmt::format("({{ {}_stpx_concat({}, {}, {}); _stpx_strcpy({}, {}); }})", stmts, t, target, R,
                       target, t);
  }
  std::string value = compound(a, target, R, stmts);
  return fmt::format("({{ {}{} = {}; }})", stmts, target, value);
}

// `old OP= r` as a C expression; a zero divisor check goes to `stmts`.
std::string Codegen::compound(const AssignExpr* a, const std::string& old, const std::string& R, std::string& stmts) {
  switch (a->op) {
    case Op::Div:
    case Op::Mod:
      stmts += fmt::format("if (unlikely({} == 0)) STPX_ERROR(\"division by zero\", {}); ", R,
                           where(a->op_loc));
      return fmt::format("{}({}, {})", a->op == Op::Div ? "_stpx_div" : "_stpx_mod", old, R);
    case Op::Shl: return fmt::format("(int64_t)((uint64_t){} << ({} & 63))", old, R);
    case Op::Shr: return fmt::format("({} >> ({} & 63))", old, R);
    case Op::UShr: return fmt::format("(int64_t)((uint64_t){} >> ({} & 63))", old, R);
    case Op::Add: return fmt::format("(int64_t)((uint64_t){} + (uint64_t){})", old, R);
    case Op::Sub: return fmt::format("(int64_t)((uint64_t){} - (uint64_t){})", old, R);
    case Op::Mul: return fmt::format("(int64_t)((uint64_t){} * (uint64_t){})", old, R);
    default: return fmt::format("({} {} {})", old, op_text(a->op), R);
  }
}

// `$var = v`, `$var += v`... (guru mode): the new value is stored into the
// register or memory the variable lives in, and is the expression's value.
std::string Codegen::target_assign(const AssignExpr* a) {
  const TargetAccess& t = prog_.targets.at(a->lhs);
  uses_context_ = true;  // (the registers, even where nothing reads them)
  if (t.context_string) {
    // procfs's $value = s, $value .= s: into the file's text, up to its size.
    std::string n = uniq();
    return fmt::format("({{ const char *r_{0} = {1}; struct _stpx_text *t_{0} = {2}; {3}(t_{0}->buf, r_{0}, t_{0}->cap); "
                       "r_{0}; }})",
                       n, expr(a->rhs), t.context_c, a->op == Op::Concat ? "strlcat" : "strscpy");
  }
  std::string n = uniq();
  std::string R = "r_" + n, V = "v_" + n;
  std::string stmts = fmt::format("int64_t {} = {}; ", R, expr(a->rhs));
  std::string value = R;
  if (a->op != Op::Assign) {
    stmts += fmt::format("int64_t o_{} = {}; ", n, expr(a->lhs));
    value = compound(a, "o_" + n, R, stmts);
  }
  return fmt::format("({{ {}int64_t {} = {}; {} {}; }})", stmts, V, value,
                     target_write_c(t, V, where(a->lhs->loc), [this](const Expr* x) { return expr(x); }), V);
}

}  // namespace stapx::codegen
