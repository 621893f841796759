// Pass 3: emits the module's C. Decisions are made here; behaviour lives in
// runtime-c. Layout of the output (the runtime's include order):
//   tunables, runtime_defs.h, frame structs and union _stpx_frame,
//   runtime.h, globals, function prototypes, function and probe bodies,
//   probe table, family tables, globals init/exit, arm/disarm,
//   runtime_tail.h.
// Expressions become C expressions (GNU statement expressions where they
// need temporaries) that evaluate operands left to right, as stap does.
// Long values are int64_t, strings `const char *` into frame buffers.
#include "translator/codegen/codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "frontend/diagnostics.h"
#include "frontend/printer.h"
#include "translator/builtins/format.h"
#include "translator/codegen/cwriter.h"
#include "translator/codegen/target_c.h"

namespace stapx {

using namespace ast;

namespace {

// The function name of a probe point's function("NAME[@FILE[:LINE]]")
// component, or "" when it has none.
std::string pp_function(const std::string& pp) {
  static const std::string key = "function(\"";
  size_t at = pp.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  size_t end = pp.find_first_of("@:\"", at);
  return pp.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::string c_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '?': out += "\\?"; break;  // no trigraphs
      default:
        if (ch < 0x20 || ch >= 0x7f)
          out += fmt::format("\\{:03o}", ch);
        else
          out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

const char* c_type(Type t) { return t == Type::String ? "const char *" : "int64_t"; }

// The frame of one probe body or function: its locals, temporaries and
// (functions) return value, as a C struct in union _stpx_frame.
struct Frame {
  std::string member;  // union member name
  std::string type;    // "struct _stpx_l_..."
  std::vector<Symbol*> locals;
  bool borrows_strings = false;  // string parameters are pointers (unmodified_fnargs)
  int string_temps = 0;
  Type ret = Type::Void;
};

class Codegen {
 public:
  Codegen(const Program& prog, const SourceManager& sm, const CodegenOptions& opts)
      : prog_(prog), sm_(sm), opts_(opts) {}

  std::string run();

 private:
  // Bodies.
  void function_body(const FunctionDecl* f, Frame& frame);
  void probe_body(const ProbeDecl* p, int index, Frame& frame);
  void entry_function(const ProbeDecl* p, int index);
  void zero_locals(const Frame& frame);
  void embedded_function(const FunctionDecl* f, const Frame& frame);
  void stmt(const Stmt* s);
  std::string expr(const Expr* e);
  std::string target(const TargetAccess& t, const Expr* e);  // $var, &$var, @entry: read c->regs
  // The values the probe being written saves at entry (Program::entry_saves),
  // and where save `slot` lives among them: C for its word offset.
  const std::vector<TargetAccess>* entry_saves_ = nullptr;
  std::string entry_offset(int slot) const;
  std::string entry_read(int slot) const;
  std::string lvalue_scalar(const VarRef* v);
  std::string keys(std::span<Expr* const> ks, const Symbol* sym, std::string& decl);
  std::string key_expr(const Expr* k, bool last);
  // "l1"/"s1" for an array of one long/string key, whose element
  // functions take that key by value (inlined in the runtime); else "".
  static std::string one_key(const Symbol* sym);
  static bool is_execname(const Expr* e);
  std::string one_key_arg(const Symbol* sym, const Expr* k, std::string& one, std::string& pre);
  std::string map_ref(const IndexExpr* ix, std::string& pre);
  std::string call(const CallExpr* c, bool borrow = false);
  std::string call_checked(const CallExpr* c, bool borrow);
  // An embedded-C function marked /* unmodified-fnargs */ promises not to
  // write its parameters: string arguments are passed as pointers to the
  // caller's values (which outlive the call) instead of copied.
  static bool unmodified_fnargs(const FunctionDecl* f) { return f->has_pragma("unmodified-fnargs"); }
  std::string call_unchecked(const CallExpr* c, bool borrow);
  std::string inline_embedded(const CallExpr* c);
  std::string script_line(SourceLoc code) const;
  std::string resume_lines(const std::string& text) const;
  static constexpr const char* kResume = "#line STAPX_RESUME";
  std::string builtin(const CallExpr* c);
  std::string binary(const BinaryExpr* b);
  void foreach(const ForeachStmt* f);
  std::string stat_read(const AtOpExpr* a);
  std::string bucket_read(const AtOpExpr* a);
  void foreach_bucket(const ForeachStmt* f);
  bool is_stat(const Symbol* s) const { return s->type == Type::Stats; }
  // The statistic's histogram descriptor, or "NULL".
  std::string hist(const Symbol* s) const {
    return s->hist == Symbol::Hist::None && !s->variance ? "NULL" : "&_stpx_h_" + s->name;
  }
  std::string print_histogram(const AtOpExpr* a, SourceLoc call);
  // How many buckets a statistic's histogram has (runtime-c/stat.c): 128
  // for @hist_log (STPX_HIST_LOG_BUCKETS); for @hist_linear under, one per
  // step from lo up to the one starting at or below hi, and over. 0 for none.
  static int64_t hist_buckets(const Symbol* g) {
    if (g->hist == Symbol::Hist::Log) return 128;
    if (g->hist == Symbol::Hist::Linear) return (g->hist_hi - g->hist_lo) / g->hist_step + 3;
    return 0;
  }
  std::string assign(const AssignExpr* a);
  std::string compound(const AssignExpr* a, const std::string& old, const std::string& R, std::string& stmts);
  std::string target_assign(const AssignExpr* a);
  std::string incdec(const UnaryExpr* u);
  std::string string_temp() { return fmt::format("l->t{}", frame_->string_temps++); }
  std::string uniq() { return std::to_string(uniq_++); }
  std::string where(SourceLoc loc);  // C literal "operator '/' at file:l:c"
  // stap's text for a full array: a sized one names its size.
  static std::string overflow_message(const Symbol* array) {
    return array->max_entries ? fmt::format("Array overflow, check size limit ({})", array->max_entries)
                              : "Array overflow, check MAXMAPENTRIES";
  }
  std::string global(const Symbol* s) { return "_stpx_g_" + s->name; }

  // Declarations.
  void frame_struct(const Frame& f);
  void globals();
  void regex_tables();
  void submatch_tables(size_t id, const regex::Prog& p);
  void tables();
  void entry_string_words();
  std::string probe_flags(int index) const;

  const Program& prog_;
  const SourceManager& sm_;
  const CodegenOptions& opts_;
  CWriter out_;
  CWriter* w_ = nullptr;  // where bodies are written
  Frame* frame_ = nullptr;
  int uniq_ = 0;
  // Action accounting of the body being written: its STPX_ACTION sites,
  // and whether it loops or calls script functions (which count their own
  // statements on the context). A body with neither and no more sites than
  // MAXACTION cannot exceed it: it counts nothing (stpx_count_actions).
  int action_sites_ = 0;
  bool actions_unbounded_ = false;
  bool in_probe_body_ = false;  // c->nesting is 0 there
  // /* stable */ functions called in the probe body being generated: their
  // value is computed once per hit and kept in a C local (stable_call).
  std::set<std::string> stable_calls_;
  std::string stable_call(const CallExpr* c, const std::string& computed);
  bool may_print_ = false;       // the body may write the print buffer
  bool uses_entry_values_ = false;  // ... reads registers recorded at its function's entry
  std::set<int> entry_value_probes_;  // handler indices whose bodies do
  bool uses_context_ = false;    // ... may read c->probe or c->regs
  std::set<int> context_probes_;  // handler indices whose bodies may
  std::set<int> printing_probes_;  // handler indices whose bodies may print
  int64_t static_maxaction() const;
  std::set<int> counting_probes_;  // handler indices whose bodies count actions
  std::map<const ProbeDecl*, int> decl_index_;
  std::vector<const ProbeDecl*> decls_;  // in handler index order
  std::vector<const Symbol*> foreach_sites_;  // each foreach's array, by site number
  std::map<std::string, int> regex_ids_;      // pattern -> its _stpx_re_N tables
};

std::string Codegen::where(SourceLoc loc) {
  if (!loc.valid()) return "NULL";
  auto [text, offset] = sm_.text_at(loc);
  std::string tok = DiagSink::describe_token(text, offset);
  return c_string(tok + " " + sm_.describe(loc));
}

std::string Codegen::lvalue_scalar(const VarRef* v) {
  if (v->sym->scope == Symbol::Scope::Global) return global(v->sym);
  return "l->v_" + v->name;
}

// Emits key evaluation into `decl` (a statement list) and returns the key
// array's name. Keys are evaluated left to right into the array.
std::string Codegen::keys(std::span<Expr* const> ks, const Symbol*, std::string& decl) {
  std::string name = "k_" + uniq();
  decl += fmt::format("union _stpx_key {}[{}]; ", name, ks.size());
  for (size_t i = 0; i < ks.size(); ++i)
    decl += fmt::format("{}[{}].{} = {}; ", name, i, ks[i]->type == Type::String ? "s" : "l",
                        key_expr(ks[i], i + 1 == ks.size()));
  return name;
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

std::string Codegen::expr(const Expr* e) {
  switch (e->kind) {
    case ExprKind::Number: {
      int64_t v = static_cast<const NumberLit*>(e)->value;
      if (v == INT64_MIN) return "((int64_t)(-9223372036854775807LL - 1))";
      return fmt::format("((int64_t){}LL)", v);
    }
    case ExprKind::String:
      return c_string(static_cast<const StringLit*>(e)->value);
    case ExprKind::Var:
      return lvalue_scalar(static_cast<const VarRef*>(e));
    case ExprKind::Index: {
      auto* ix = static_cast<const IndexExpr*>(e);
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
    case ExprKind::InArray: {
      auto* in = static_cast<const InArrayExpr*>(e);
      std::string pre;
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
    case ExprKind::Call:
      return call(static_cast<const CallExpr*>(e));
    case ExprKind::Unary: {
      auto* u = static_cast<const UnaryExpr*>(e);
      if (auto it = prog_.targets.find(e); it != prog_.targets.end())  // &$var
        return target(it->second, e);
      switch (u->op) {
        case Op::Neg: return fmt::format("((int64_t)(0 - (uint64_t){}))", expr(u->operand));
        case Op::Plus: return fmt::format("({})", expr(u->operand));
        case Op::Not: return fmt::format("((int64_t)!{})", expr(u->operand));
        case Op::BitNot: return fmt::format("(~{})", expr(u->operand));
        default: return incdec(u);
      }
    }
    case ExprKind::Binary:
      return binary(static_cast<const BinaryExpr*>(e));
    case ExprKind::Ternary: {
      auto* t = static_cast<const TernaryExpr*>(e);
      return fmt::format("({} ? {} : {})", expr(t->cond), expr(t->then), expr(t->els));
    }
    case ExprKind::Assign:
      return assign(static_cast<const AssignExpr*>(e));
    case ExprKind::AtOp:
      if (auto it = prog_.targets.find(e); it != prog_.targets.end())  // @entry(...)
        return target(it->second, e);
      return stat_read(static_cast<const AtOpExpr*>(e));
    case ExprKind::Target: {
      auto it = prog_.targets.find(e);
      if (it == prog_.targets.end()) break;
      return target(it->second, e);
    }
    case ExprKind::Embedded:
    case ExprKind::Member:
    case ExprKind::Wildcard:
      break;  // elaboration rejects these for now
  }
  return "0";
}

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

// @count(s), @sum(a[k]), ...: merge every CPU's part into a temporary.
std::string Codegen::stat_read(const AtOpExpr* a) {
  std::string n = uniq();
  const Expr* arg = a->args[0];
  if (!a->components.empty()) return bucket_read(a);
  if (a->name == "variance") {
    if (arg->kind == ExprKind::Var) {
      const Symbol* g = static_cast<const VarRef*>(arg)->sym;
      return fmt::format("_stpx_stat_variance({}, {})", global(g), hist(g));
    }
    auto* ix = static_cast<const IndexExpr*>(arg);
    std::string pre;
    std::string k = keys(ix->keys, ix->array->sym, pre);
    return fmt::format("({{ {}_stpx_pmap_variance({}, {}); }})", pre, global(ix->array->sym), k);
  }
  std::string stmts = fmt::format("struct _stpx_stat agg_{}; ", n);
  if (arg->kind == ExprKind::Var) {
    stmts += fmt::format("_stpx_stat_read({}, &agg_{}, NULL); ", global(static_cast<const VarRef*>(arg)->sym), n);
  } else {
    auto* ix = static_cast<const IndexExpr*>(arg);
    std::string k = keys(ix->keys, ix->array->sym, stmts);
    stmts += fmt::format("_stpx_pmap_read({}, {}, &agg_{}, NULL); ", global(ix->array->sym), k, n);
  }
  if (a->name == "count") return fmt::format("({{ {}agg_{}.count; }})", stmts, n);
  if (a->name == "sum") return fmt::format("({{ {}agg_{}.sum; }})", stmts, n);
  stmts += fmt::format("if (unlikely(!agg_{}.count)) STPX_ERROR(\"empty aggregate\", {}); ", n, where(a->loc));
  if (a->name == "min") return fmt::format("({{ {}agg_{}.min; }})", stmts, n);
  if (a->name == "max") return fmt::format("({{ {}agg_{}.max; }})", stmts, n);
  return fmt::format("({{ {}div64_s64(agg_{}.sum, agg_{}.count); }})", stmts, n, n);
}

// @hist_log(s)[i]: merge every CPU's buckets into the context's scratch
// space and read bucket i (0 .. buckets - 1, as _stpx_hist_bucket numbers
// them: linear 0 is "under", N + 1 "over"; log 64 holds the zeros).
std::string Codegen::bucket_read(const AtOpExpr* a) {
  std::string n = uniq();
  const Expr* arg = a->args[0];
  std::string stmts = fmt::format("int64_t i_{} = {}; struct _stpx_stat *hs_{} = (struct _stpx_stat *)c->hist_scratch; ",
                                  n, expr(a->components[0].index), n);
  const Symbol* g;
  if (arg->kind == ExprKind::Var) {
    g = static_cast<const VarRef*>(arg)->sym;
    stmts += fmt::format("_stpx_stat_read({}, hs_{}, {}); ", global(g), n, hist(g));
  } else {
    auto* ix = static_cast<const IndexExpr*>(arg);
    g = ix->array->sym;
    std::string k = keys(ix->keys, g, stmts);
    stmts += fmt::format("_stpx_pmap_read({}, {}, hs_{}, {}); ", global(g), k, n, hist(g));
  }
  // As stap: an empty statistic (or an absent element) has no buckets.
  stmts += fmt::format("if (unlikely(!hs_{0}->count)) STPX_ERROR(\"empty aggregate\", {1}); ", n, where(a->loc));
  stmts += fmt::format("if (unlikely(i_{0} < 0 || i_{0} >= {1}.buckets)) STPX_ERROR(\"histogram index out of range\", {2}); ",
                       n, hist(g).substr(1), where(a->loc));
  return fmt::format("({{ {}hs_{}->hist[i_{}]; }})", stmts, n, n);
}

// print(@hist_log(s)): merge every CPU's buckets into the context's
// scratch space and draw them (runtime-c/stat.c). An empty statistic is
// stap's "empty aggregate" error, at the print call.
std::string Codegen::print_histogram(const AtOpExpr* a, SourceLoc call) {
  const Expr* arg = a->args[0];
  std::string stmts = "{ struct _stpx_stat *hs = (struct _stpx_stat *)c->hist_scratch; ";
  const Symbol* g;
  if (arg->kind == ExprKind::Var) {
    g = static_cast<const VarRef*>(arg)->sym;
    stmts += fmt::format("_stpx_stat_read({}, hs, {}); ", global(g), hist(g));
  } else {
    auto* ix = static_cast<const IndexExpr*>(arg);
    g = ix->array->sym;
    std::string k = keys(ix->keys, g, stmts);
    stmts += fmt::format("_stpx_pmap_read({}, {}, hs, {}); ", global(g), k, hist(g));
  }
  stmts += fmt::format("if (unlikely(!hs->count)) STPX_ERROR(\"empty aggregate\", {}); ", where(call));
  return stmts + fmt::format("_stpx_hist_print(c, hs, {}); }} ", hist(g));
}

std::string Codegen::incdec(const UnaryExpr* u) {
  bool pre = u->op == Op::PreInc || u->op == Op::PreDec;
  const char* op = (u->op == Op::PreInc || u->op == Op::PostInc) ? "++" : "--";
  if (u->operand->kind == ExprKind::Var) {
    std::string x = lvalue_scalar(static_cast<const VarRef*>(u->operand));
    return pre ? fmt::format("({}{})", op, x) : fmt::format("({}{})", x, op);
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
  if (a->lhs->kind == ExprKind::Target) return target_assign(a);
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

std::string Codegen::builtin(const CallExpr* c) {
  std::string n = uniq();
  // Arguments first, left to right, into named temporaries.
  std::string stmts;
  std::vector<std::string> args;
  bool formatted = c->builtin == Builtin::Printf || c->builtin == Builtin::Sprintf;
  for (size_t i = formatted ? 1 : 0; i < c->args.size(); ++i) {
    std::string a = fmt::format("a{}_{}", i, n);
    if (c->args[i]->type == Type::Void) {  // a histogram: drawn in place, below
      args.push_back("");
      continue;
    }
    stmts += fmt::format("{} {} = {}; ", c_type(c->args[i]->type), a, expr(c->args[i]));
    args.push_back(a);
  }
  if (formatted) args.insert(args.begin(), "");  // the format: a literal, used as is
  if (c->builtin == Builtin::Printf || c->builtin == Builtin::Print || c->builtin == Builtin::Println ||
      c->builtin == Builtin::Printd || c->builtin == Builtin::Printdln)
    may_print_ = true;
  switch (c->builtin) {
    case Builtin::Printf:
    case Builtin::Sprintf: {
      // Each piece in turn: runs of plain conversions through vsnprintf,
      // the others through the runtime; sprintf appends to a temporary.
      ParsedFormat pf = parse_format(static_cast<const StringLit*>(c->args[0])->value.str());
      bool to_string = c->builtin == Builtin::Sprintf;
      std::string t = to_string ? string_temp() : "";
      if (to_string) stmts += t + "[0] = '\\0'; ";
      for (const FormatPiece& piece : pf.pieces) {
        if (!piece.special) {
          if (piece.kernel_format.empty()) continue;
          std::string call_args = c_string(piece.kernel_format);
          for (size_t i = piece.first_arg; i < piece.first_arg + piece.nargs; ++i) {
            const char* cast = pf.conversions[i].type == Type::String                         ? "(const char *)"
                               : pf.conversions[i].conv == 'c' || pf.conversions[i].conv == '*' ? "(int)"
                                                                                                 : "(long long)";
            call_args += fmt::format(", {}{}", cast, args[i + 1]);
          }
          stmts += to_string ? fmt::format("_stpx_sprintf_cat({}, {}); ", t, call_args)
                             : fmt::format("_stpx_printf(c, {}); ", call_args);
          continue;
        }
        size_t a = piece.first_arg + 1;
        std::string width = piece.width == -2 ? args[a++] : std::to_string(piece.width);
        std::string prec = piece.precision == -2 ? args[a++] : std::to_string(piece.precision);
        stmts += fmt::format(
            "{{ const char *e_{0} = _stpx_format_special(c, {1}, '{2}', {3}, {4}, {5}, {6}); "
            "if (unlikely(e_{0})) STPX_ERROR(e_{0}, {7}); }} ",
            uniq(), to_string ? t : "NULL", piece.conv, c_string(piece.flags), width, prec, args[a],
            where(c->loc));
      }
      if (to_string) return fmt::format("({{ {}(const char *){}; }})", stmts, t);
      return fmt::format("({{ {}}})", stmts);
    }
    case Builtin::Print:
    case Builtin::Println: {
      for (size_t i = 0; i < args.size(); ++i)
        stmts += c->args[i]->type == Type::Void
                     ? print_histogram(static_cast<const AtOpExpr*>(c->args[i]), c->loc)
                 : c->args[i]->type == Type::String
                     ? fmt::format("_stpx_print_str(c, {}); ", args[i])
                     : fmt::format("_stpx_printf(c, \"%lld\", (long long){}); ", args[i]);
      if (c->builtin == Builtin::Println) stmts += "_stpx_print_str(c, \"\\n\"); ";
      return fmt::format("({{ {}}})", stmts);
    }
    case Builtin::Printd:
    case Builtin::Printdln:
    case Builtin::Sprint:
    case Builtin::Sprintln:
    case Builtin::Sprintd:
    case Builtin::Sprintdln: {
      // print with a delimiter, or into a string: each value in turn.
      bool delimited = c->builtin == Builtin::Printd || c->builtin == Builtin::Printdln ||
                       c->builtin == Builtin::Sprintd || c->builtin == Builtin::Sprintdln;
      bool newline = c->builtin == Builtin::Printdln || c->builtin == Builtin::Sprintln ||
                     c->builtin == Builtin::Sprintdln;
      bool to_string = c->builtin == Builtin::Sprint || c->builtin == Builtin::Sprintln ||
                       c->builtin == Builtin::Sprintd || c->builtin == Builtin::Sprintdln;
      std::string t = to_string ? string_temp() : "";
      if (to_string) stmts += t + "[0] = '\\0'; ";
      auto emit_str = [&](const std::string& v) {
        stmts += to_string ? fmt::format("_stpx_strcat({}, {}); ", t, v) : fmt::format("_stpx_print_str(c, {}); ", v);
      };
      for (size_t i = delimited ? 1 : 0; i < args.size(); ++i) {
        if (delimited && i > 1) emit_str(args[0]);
        if (c->args[i]->type == Type::String)
          emit_str(args[i]);
        else if (to_string)
          stmts += fmt::format("_stpx_strcat_l({}, {}); ", t, args[i]);
        else
          stmts += fmt::format("_stpx_printf(c, \"%lld\", (long long){}); ", args[i]);
      }
      if (newline) emit_str("\"\\n\"");
      return to_string ? fmt::format("({{ {}(const char *){}; }})", stmts, t) : fmt::format("({{ {}}})", stmts);
    }
    case Builtin::Exit:
      return "(_stpx_request_exit(), (int64_t)0)";  // a value: stap accepts `cond && exit()`
    case Builtin::None:
      break;
  }
  return "0";
}

// A zero-argument function marked /* stable */ returns the same value
// throughout a probe hit (pid(), cpu() ...): in a probe body the first call
// computes it, later ones read it back.
std::string Codegen::stable_call(const CallExpr* c, const std::string& computed) {
  std::string v = "stable_" + c->fn->cname();
  stable_calls_.insert(c->fn->cname());
  return fmt::format("(have_{0} ? {0} : (have_{0} = 1, {0} = {1}))", v, computed);
}

// borrow: a string result may stay in the callee's frame (valid until the
// next call at this level) instead of being copied out.
std::string Codegen::call(const CallExpr* c, bool borrow) {
  if (c->builtin != Builtin::None) return builtin(c);
  const FunctionDecl* f = c->fn;
  if (in_probe_body_ && f->params.empty() && f->type == Type::Long && f->has_pragma("stable"))
    return stable_call(c, call_checked(c, borrow));
  return call_checked(c, borrow);
}

std::string Codegen::call_checked(const CallExpr* c, bool borrow) {
  if (c->check_myproc) {
    // --privilege=stapusr: a myproc-unprivileged function only in the
    // user's own processes; elsewhere the script ends with an error.
    uses_context_ = true;
    return fmt::format(
        "({{ if (unlikely(!_stpx_is_myproc())) STPX_ERROR(\"{}() may only be called in the user's own "
        "processes (--privilege=stapusr)\", {}); {}; }})",
        c->name, where(c->loc), call_unchecked(c, borrow));
  }
  return call_unchecked(c, borrow);
}

std::string Codegen::call_unchecked(const CallExpr* c, bool borrow) {
  const FunctionDecl* f = c->fn;
  if (std::string in = inline_embedded(c); !in.empty()) return in;
  may_print_ = uses_context_ = true;  // what the function does is not known here
  if (!f->is_embedded) actions_unbounded_ = true;  // its statements count on c->actioncount
  std::string n = uniq();
  std::string stmts;
  std::vector<std::string> args;
  for (size_t i = 0; i < c->args.size(); ++i) {
    std::string a = fmt::format("a{}_{}", i, n);
    stmts += fmt::format("{} {} = {}; ", c_type(c->args[i]->type), a, expr(c->args[i]));
    args.push_back(a);
  }
  std::string callee = fmt::format("c->frames[c->nesting + 1].f_{}", f->cname());
  stmts += fmt::format("if (unlikely(c->nesting >= MAXNESTING)) STPX_ERROR(\"MAXNESTING exceeded\", {}); ",
                       where(c->loc));
  bool borrow_args = unmodified_fnargs(f);
  for (size_t i = 0; i < args.size(); ++i) {
    const Symbol* p = f->param_syms[i];
    if (p->type == Type::String && !borrow_args)
      stmts += fmt::format("_stpx_strcpy({}.v_{}, {}); ", callee, p->name, args[i]);
    else
      stmts += fmt::format("{}.v_{} = {}; ", callee, p->name, args[i]);
  }
  stmts += fmt::format("c->nesting++; _stpx_fn_{}(c); c->nesting--; ", f->cname());
  stmts += "if (unlikely(c->last_error)) goto err; ";
  if (f->type == Type::String && borrow)
    return fmt::format("({{ {}(const char *){}.__retvalue; }})", stmts, callee);
  if (f->type == Type::String)
    return fmt::format("({{ {}_stpx_strcpy({}, {}.__retvalue); }})", stmts, string_temp(), callee);
  if (f->type == Type::Long) return fmt::format("({{ {}{}.__retvalue; }})", stmts, callee);
  return fmt::format("({{ {}}})", stmts);
}

// An embedded-C function without parameters whose code only sets
// STAP_RETVALUE (pid(), execname(), ...) runs in place, its result in a
// temporary: no frame, no call. Anything else in its code (errors,
// returns, its frame, preprocessor lines) keeps the call. "" if not.
std::string Codegen::inline_embedded(const CallExpr* c) {
  const FunctionDecl* f = c->fn;
  if (!f->is_embedded || !f->params.empty() || (f->type != Type::Long && f->type != Type::String)) return "";
  static const std::set<std::string> forbidden = {"return", "goto", "__label__", "l", "last_error", "STAP_RETURN",
                                                  "STAP_ERROR", "STAP_PRINTF", "STAP_ARG", "asm", "__asm__"};
  std::string_view code = f->embedded_code;
  if (code.find('#') != std::string::npos) return "";
  if (code.find("print") != std::string::npos || code.find("PRINT") != std::string::npos) return "";
  if (code.find("CONTEXT") != std::string::npos) uses_context_ = true;
  std::string n = uniq();
  std::string rv = f->type == Type::String ? string_temp() : "rv_" + n;
  std::string body;
  for (size_t i = 0; i < code.size();) {
    unsigned char ch = static_cast<unsigned char>(code[i]);
    if (!std::isalpha(ch) && ch != '_') {
      // Comments and literals pass through whole (no identifiers in them).
      size_t end = i + 1;
      if (code.compare(i, 2, "/*") == 0) {
        end = code.find("*/", i + 2);
        end = end == std::string::npos ? code.size() : end + 2;
      } else if (code.compare(i, 2, "//") == 0) {
        end = code.find('\n', i);
        if (end == std::string::npos) end = code.size();
      } else if (ch == '"' || ch == '\'') {
        while (end < code.size() && code[end] != code[i]) end += code[end] == '\\' ? 2 : 1;
        end = std::min(end + 1, code.size());
      } else if (std::isdigit(ch)) {
        while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
      }
      body.append(code, i, end - i);
      i = end;
      continue;
    }
    size_t end = i;
    while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
    std::string id(code.substr(i, end - i));
    if (forbidden.count(id) || id.rfind("STAP_ARG_", 0) == 0) return "";
    body += id == "STAP_RETVALUE" ? rv : id == "CONTEXT" ? "c" : id;
    i = end;
  }
  // The call's MAXNESTING check stays (probe bodies run at depth 0).
  std::string stmts = fmt::format("if (unlikely({} >= MAXNESTING)) STPX_ERROR(\"MAXNESTING exceeded\", {}); ",
                                  in_probe_body_ ? "0" : "c->nesting", where(c->loc));
  if (f->type == Type::String)
    return fmt::format("({{ {}{}[0] = '\\0'; {{ {} }} (const char *){}; }})", stmts, rv, body, rv);
  return fmt::format("({{ {}int64_t {} = 0; {{ {} }} {}; }})", stmts, rv, body, rv);
}

void Codegen::stmt(const Stmt* s) {
  CWriter& w = *w_;
  if (s->kind != StmtKind::Block) {
    w.line("STPX_ACTION({});", where(s->loc));
    ++action_sites_;
  }
  switch (s->kind) {
    case StmtKind::Block: {
      auto b = w.block("");
      for (const Stmt* st : static_cast<const BlockStmt*>(s)->stmts) stmt(st);
      break;
    }
    case StmtKind::Expr:
      w.line("(void){};", expr(static_cast<const ExprStmt*>(s)->expr));
      break;
    case StmtKind::If: {
      auto* i = static_cast<const IfStmt*>(s);
      {
        auto b = w.block(fmt::format("if ({})", expr(i->cond)));
        stmt(i->then);
      }
      if (i->els) {
        auto b = w.block("else");
        stmt(i->els);
      }
      break;
    }
    case StmtKind::While: {
      auto* wh = static_cast<const WhileStmt*>(s);
      auto b = w.block(fmt::format("while ({})", expr(wh->cond)));
      w.line("STPX_ACTION({});", where(s->loc));
      actions_unbounded_ = true;
      stmt(wh->body);
      break;
    }
    case StmtKind::For: {
      auto* f = static_cast<const ForStmt*>(s);
      auto b = w.block(fmt::format("for ({}; {}; {})", f->init ? "(void)" + expr(f->init) : "",
                                   f->cond ? expr(f->cond) : "", f->incr ? "(void)" + expr(f->incr) : ""));
      w.line("STPX_ACTION({});", where(s->loc));
      actions_unbounded_ = true;
      stmt(f->body);
      break;
    }
    case StmtKind::Next:
      w.line("goto out;");
      break;
    case StmtKind::Break:
      w.line("break;");
      break;
    case StmtKind::Continue:
      w.line("continue;");
      break;
    case StmtKind::Return: {
      auto* r = static_cast<const ReturnStmt*>(s);
      if (r->value && frame_->ret == Type::String)
        w.line("_stpx_strcpy(l->__retvalue, {});", expr(r->value));
      else if (r->value && frame_->ret == Type::Long)
        w.line("l->__retvalue = {};", expr(r->value));
      else if (r->value)
        w.line("(void){};", expr(r->value));
      w.line("goto out;");
      break;
    }
    case StmtKind::Delete: {
      auto* d = static_cast<const DeleteStmt*>(s);
      if (d->target->kind == ExprKind::Var) {
        auto* v = static_cast<const VarRef*>(d->target);
        if (v->sym->arity > 0 && is_stat(v->sym))
          w.line("_stpx_pmap_clear({});", global(v->sym));
        else if (is_stat(v->sym))
          w.line("_stpx_stat_clear({}, {});", global(v->sym), hist(v->sym));
        else if (v->sym->arity > 0)
          w.line("_stpx_map_clear({});", global(v->sym));
        else if (v->sym->type == Type::String)
          w.line("{}[0] = '\\0';", lvalue_scalar(v));
        else
          w.line("{} = 0;", lvalue_scalar(v));
      } else {
        auto* ix = static_cast<const IndexExpr*>(d->target);
        std::string pre;
        std::string k = keys(ix->keys, ix->array->sym, pre);
        w.line("({{ {}{}({}, {}); }});", pre, is_stat(ix->array->sym) ? "_stpx_pmap_delete" : "_stpx_map_delete",
               global(ix->array->sym), k);
      }
      break;
    }
    case StmtKind::Foreach:
      foreach(static_cast<const ForeachStmt*>(s));
      break;
    case StmtKind::Try: {
      // Errors in the body jump to its local "err" label; the handler runs
      // outside that scope, so its own errors go to the enclosing one.
      auto* t = static_cast<const TryStmt*>(s);
      std::string n = uniq();
      {
        auto outer = w.block("");
        {
          auto inner = w.block("");
          w.line("__label__ err;");
          stmt(t->body);
          w.line("goto try_ok_{};", n);
          w.line("err: __attribute__((unused));");
          w.line(";");
        }
        // abort() is no error to catch: on to the enclosing "err".
        w.line("if (unlikely(c->last_error == _stpx_abort_msg)) goto err;");
        if (t->var) w.line("_stpx_strcpy({}, c->last_error);", lvalue_scalar(t->var));
        w.line("c->last_error = NULL;");
        w.line("c->last_loc = NULL;");
        stmt(t->handler);
      }
      w.line("try_ok_{}: ;", n);
      break;
    }
    case StmtKind::Null:
      break;
  }
}

// foreach: snapshot the map's nodes into this site's per-CPU buffer, sort
// them if asked, then bind keys and value for each (the body may not
// modify the map: elaboration rejects that).
void Codegen::foreach(const ForeachStmt* f) {
  CWriter& w = *w_;
  if (f->histogram) {
    foreach_bucket(f);
    return;
  }
  const Symbol* a = f->array->sym;
  size_t site = foreach_sites_.size();
  foreach_sites_.push_back(a);
  std::string n = uniq();
  auto outer = w.block("");
  if (is_stat(a)) {
    // Statistics: iterate over the merge of every CPU's map.
    w.line("int err_{};", n);
    w.line("struct _stpx_map *m_{} = _stpx_pmap_merge({}, &err_{});", n, global(a), n);
    w.line("if (unlikely(err_{})) STPX_ERROR(\"{}\", {});", n, overflow_message(a), where(f->array->loc));
  } else {
    w.line("struct _stpx_map *m_{} = {};", n, global(a));
  }
  w.line("struct _stpx_map_node **b_{} = this_cpu_read(_stpx_fe_buf_{});", n, site);
  w.line("size_t n_{} = _stpx_map_snapshot(m_{}, b_{}), i_{};", n, n, n, n);
  static const std::map<std::string, const char*> aggs = {{"", "STPX_AGG_COUNT"},    {"count", "STPX_AGG_COUNT"},
                                                         {"sum", "STPX_AGG_SUM"}, {"min", "STPX_AGG_MIN"},
                                                         {"max", "STPX_AGG_MAX"}, {"avg", "STPX_AGG_AVG"}};
  if (f->sort_column != 0)
    w.line("_stpx_map_sort(m_{}, b_{}, n_{}, {}, {}, {});", n, n, n, f->sort_column > 0 ? f->sort_column : 0,
           f->sort_descending ? 1 : 0, aggs.at(f->aggregate.str()));
  std::string bound = fmt::format("i_{} < n_{}", n, n);
  if (f->limit) {
    w.line("int64_t lim_{} = {};", n, expr(f->limit));
    bound += fmt::format(" && (int64_t)i_{} < lim_{}", n, n);
  }
  auto loop = w.block(fmt::format("for (i_{} = 0; {}; i_{}++)", n, bound, n));
  w.line("STPX_ACTION({});", where(f->loc));
  actions_unbounded_ = true;
  w.line("struct _stpx_map_node *e_{} = b_{}[i_{}];", n, n, n);
  auto bind = [&](const VarRef* v, const std::string& slot) {
    if (v->sym->type == Type::String)
      w.line("_stpx_strcpy({}, {});", lvalue_scalar(v), slot);
    else
      w.line("{} = *(int64_t *){};", lvalue_scalar(v), slot);
  };
  for (size_t i = 0; i < f->keys.size(); ++i)
    bind(f->keys[i], fmt::format("_stpx_map_key(m_{}, e_{}, {})", n, n, i));
  if (f->value) bind(f->value, fmt::format("_stpx_map_value(m_{}, e_{})", n, n));
  stmt(f->body);
}

// foreach (b in @hist_log(s)): b runs over every bucket index, ascending
// (or descending with b-), including the empty and out-of-range buckets.
void Codegen::foreach_bucket(const ForeachStmt* f) {
  CWriter& w = *w_;
  auto* h = static_cast<const AtOpExpr*>(f->histogram);
  const Expr* arg = h->args[0];
  const Symbol* g = arg->kind == ExprKind::Var ? static_cast<const VarRef*>(arg)->sym
                                               : static_cast<const IndexExpr*>(arg)->array->sym;
  std::string n = uniq();
  auto outer = w.block("");
  w.line("int64_t nb_{} = {}.buckets, i_{};", n, hist(g).substr(1), n);
  std::string bound = fmt::format("i_{} < nb_{}", n, n);
  if (f->limit) {
    w.line("int64_t lim_{} = {};", n, expr(f->limit));
    bound += fmt::format(" && i_{} < lim_{}", n, n);
  }
  auto loop = w.block(fmt::format("for (i_{} = 0; {}; i_{}++)", n, bound, n));
  w.line("STPX_ACTION({});", where(f->loc));
  actions_unbounded_ = true;
  w.line("{} = {};", lvalue_scalar(f->keys[0]), f->sort_descending ? fmt::format("nb_{} - 1 - i_{}", n, n) : "i_" + n);
  stmt(f->body);
}

void Codegen::zero_locals(const Frame& frame) {
  for (const Symbol* s : frame.locals) {
    if (s->scope == Symbol::Scope::Param) continue;
    if (s->type == Type::String)
      w_->line("l->v_{}[0] = '\\0';", s->name);
    else
      w_->line("l->v_{} = 0;", s->name);
  }
}

void Codegen::function_body(const FunctionDecl* f, Frame& frame) {
  frame_ = &frame;
  CWriter& w = *w_;
  auto b = w.block(fmt::format("static void _stpx_fn_{}(struct _stpx_context *c)", f->cname()));
  // Unused in an embedded-C body with no parameters and no value.
  w.line("{} *l __attribute__((unused)) = &c->frames[c->nesting].{};", frame.type, frame.member);
  if (!f->is_embedded) w.line("enum { stpx_count_actions = 1 };");
  if (f->is_embedded) {
    embedded_function(f, frame);
    return;
  }
  zero_locals(frame);
  if (frame.ret == Type::String)
    w.line("l->__retvalue[0] = '\\0';");
  else if (frame.ret == Type::Long)
    w.line("l->__retvalue = 0;");
  stmt(f->body);
  w.line("err: __attribute__((unused));");
  w.line("out: __attribute__((unused));");
  w.line("return;");
}

// An embedded-C body with stap's conventions: STAP_ARG_name,
// STAP_RETVALUE, STAP_RETURN(v), STAP_ERROR(fmt, ...), CONTEXT.
void Codegen::embedded_function(const FunctionDecl* f, const Frame& frame) {
  CWriter& w = *w_;
  for (const Symbol* p : f->param_syms) w.line("#define STAP_ARG_{} (l->v_{})", p->name, p->name);
  if (frame.ret == Type::String) {
    w.line("#define STAP_RETVALUE (l->__retvalue)");
    w.line("#define STAP_RETURN(v) do {{ strscpy(l->__retvalue, (v), MAXSTRINGLEN); goto out; }} while (0)");
    w.line("l->__retvalue[0] = '\\0';");
  } else if (frame.ret == Type::Long) {
    w.line("#define STAP_RETVALUE (l->__retvalue)");
    w.line("#define STAP_RETURN(v) do {{ l->__retvalue = (v); goto out; }} while (0)");
    w.line("l->__retvalue = 0;");
  } else {
    w.line("#define STAP_RETURN() goto out");
  }
  // A tapset's own location means nothing to users: its errors say only
  // the message; a guru script's name the function.
  bool tapset = sm_.file(sm_.resolve(f->loc).first.file).is_tapset;
  w.line("#define STAP_ERROR(...) do {{ snprintf(c->error_buf, MAXSTRINGLEN, __VA_ARGS__); "
         "STPX_ERROR(c->error_buf, {}); }} while (0)",
         tapset ? "NULL" : where(f->loc));
  w.line("#define CONTEXT c");
  w.line("#define STAP_PRINTF(...) _stpx_printf(c, __VA_ARGS__)");
  {
    auto body = w.block("");
    std::string at = script_line(f->body->loc);
    if (!at.empty()) w.raw(at);
    for (std::string_view rest = f->embedded_code; !rest.empty();) {
      size_t nl = rest.find('\n');
      w.raw(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    if (!at.empty()) w.raw(kResume);
  }
  w.line("goto out;");
  w.line("err: __attribute__((unused));");
  w.line("out: __attribute__((unused));");
  for (const Symbol* p : f->param_syms) w.line("#undef STAP_ARG_{}", p->name);
  w.line("#undef STAP_RETVALUE");
  w.line("#undef STAP_RETURN");
  w.line("#undef STAP_ERROR");
  w.line("#undef CONTEXT");
  w.line("#undef STAP_PRINTF");
  w.line("return;");
}

void Codegen::probe_body(const ProbeDecl* p, int index, Frame& frame) {
  frame_ = &frame;
  auto saves = prog_.entry_saves.find(p);
  entry_saves_ = saves == prog_.entry_saves.end() ? nullptr : &saves->second;
  CWriter& w = *w_;
  CWriter body;
  w_ = &body;
  action_sites_ = 0;
  actions_unbounded_ = false;
  in_probe_body_ = true;
  may_print_ = false;
  uses_context_ = false;
  uses_entry_values_ = false;
  zero_locals(frame);
  stable_calls_.clear();
  stmt(p->body);
  in_probe_body_ = false;
  w_ = &w;
  bool counts = actions_unbounded_ || action_sites_ > static_maxaction();
  if (counts) counting_probes_.insert(index);
  if (may_print_) printing_probes_.insert(index);
  if (uses_context_) context_probes_.insert(index);
  if (uses_entry_values_) entry_value_probes_.insert(index);
  // Inlined into the entry points generated for it (STPX_KPROBE_PRE).
  auto b = w.block(fmt::format("static __always_inline void _stpx_probe_{}(struct _stpx_context *c)", index));
  w.line("{} *l = &c->frames[0].{};", frame.type, frame.member);
  w.line("enum {{ stpx_count_actions = {} }};", counts ? 1 : 0);
  w.line("(void)l;");
  for (const std::string& f : stable_calls_) w.line("int64_t stable_{0} = 0; bool have_stable_{0} = 0;", f);
  w.append(body);
  // Errors are reported here, where only the error paths go.
  w.line("goto out;");
  w.line("err: __attribute__((unused));");
  w.line("_stpx_ctx_check_error(c);");
  w.line("out: __attribute__((unused));");
  w.line("return;");
}

// The least MAXACTION of any handler (interruptible ones get
// MAXACTION_INTERRUPTIBLE); 0 when -D gives one that is not a number.
int64_t Codegen::static_maxaction() const {
  int64_t maxaction = 1000, interruptible = -1;
  for (const auto& [name, value] : opts_.defines) {
    if (name != "MAXACTION" && name != "MAXACTION_INTERRUPTIBLE") continue;
    int64_t v = 0;
    size_t used = 0;
    try {
      v = std::stoll(value, &used, 0);
    } catch (const std::exception&) {
      return 0;
    }
    if (used != value.size()) return 0;
    (name == "MAXACTION" ? maxaction : interruptible) = v;
  }
  if (interruptible < 0) interruptible = maxaction * 10;
  return std::max<int64_t>(0, std::min(maxaction, interruptible));
}

// What a .return probe saves when its function is entered (run by the
// kretprobe's entry handler on the entry registers).
void Codegen::entry_function(const ProbeDecl* p, int index) {
  auto it = prog_.entry_saves.find(p);
  if (it == prog_.entry_saves.end() || it->second.empty()) return;
  entry_saves_ = &it->second;
  CWriter& w = *w_;
  auto b = w.block(fmt::format("static void _stpx_entry_{}(struct _stpx_context *c, int64_t *saved)", index));
  bool framed = false;
  for (const TargetAccess& save : it->second) framed = framed || save.entry_expr || save.is_string;
  if (framed) {  // script expressions and strings use the probe's frame for temporaries
    w.line("{} *l = &c->frames[0].{};", frame_->type, frame_->member);
    w.line("enum { stpx_count_actions = 0 };");
    w.line("(void)l;");
  }
  for (size_t i = 0; i < it->second.size(); ++i) {
    const TargetAccess& save = it->second[i];
    std::string value = save.entry_expr ? expr(save.entry_expr)
                                        : target_c(save, where(p->loc), [this] { return string_temp(); });
    std::string off = entry_offset(static_cast<int>(i));
    // A string is cut to the room it has (MAXSTRINGLEN, unless the module
    // saves so many that the kernel's limit on kretprobe data shrinks it).
    if (save.saves_string())
      w.line("strscpy((char *)&saved[{}], {}, STPX_ENTRY_STR_WORDS * sizeof(int64_t));", off, value);
    else
      w.line("saved[{}] = {};", off, value);
  }
  w.line("return;");
  w.line("err: __attribute__((unused));");
  w.line("return;");
}

// STPX_ENTRY_STR_WORDS, the words each string saved at a function's entry
// takes in a kretprobe instance: room for MAXSTRINGLEN bytes, unless the
// probe that saves the most would then pass the kernel's limit on a
// kretprobe's data (KRETPROBE_MAX_DATA_SIZE, 4096 bytes since Linux 5.16;
// register_kretprobe() refuses more): then every saved string gets the
// share that fits, and is cut to it.
void Codegen::entry_string_words() {
  constexpr int64_t kDataWords = 4096 / 8;
  int64_t fit = -1;
  for (const auto& [decl, saves] : prog_.entry_saves) {
    int64_t strings = std::count_if(saves.begin(), saves.end(), [](const TargetAccess& s) { return s.saves_string(); });
    if (!strings) continue;
    int64_t longs = 1 + static_cast<int64_t>(saves.size()) - strings;
    int64_t share = std::max<int64_t>(1, (kDataWords - longs) / strings);
    fit = fit < 0 ? share : std::min(fit, share);
  }
  if (fit < 0) return;
  out_.line("#define STPX_ENTRY_STR_WORDS (DIV_ROUND_UP(MAXSTRINGLEN, 8) < {0} ? DIV_ROUND_UP(MAXSTRINGLEN, 8) : {0})",
            fit);
}

void Codegen::frame_struct(const Frame& f) {
  auto b = out_.block(f.type, "};");
  for (const Symbol* s : f.locals) {
    if (s->type == Type::String && f.borrows_strings && s->scope == Symbol::Scope::Param)
      out_.line("const char *v_{};", s->name);
    else if (s->type == Type::String)
      out_.line("char v_{}[MAXSTRINGLEN];", s->name);
    else
      out_.line("int64_t v_{};", s->name);
  }
  for (int i = 0; i < f.string_temps; ++i) out_.line("char t{}[MAXSTRINGLEN];", i);
  if (f.ret == Type::String) out_.line("char __retvalue[MAXSTRINGLEN];");
  if (f.ret == Type::Long) out_.line("int64_t __retvalue;");
}

void Codegen::globals() {
  out_.line("/* Globals, each guarded by _stpx_locks[its index]. */");
  out_.line("static struct _stpx_rwlock _stpx_locks[{}];", std::max<size_t>(1, prog_.globals.size()));
  for (const Symbol* g : prog_.globals) {
    if (g->arity > 0 && is_stat(g)) {
      out_.line("static struct _stpx_pmap *{};", global(g));
      if (!one_key(g).empty())  // this CPU's map, for <<< (runtime-c/stat.c)
        out_.line("static DEFINE_PER_CPU(struct _stpx_map *, _stpx_gm_{});", g->name);
    } else if (is_stat(g)) {
      out_.line("static struct _stpx_stat __percpu *{};", global(g));
    } else if (g->arity > 0) {
      out_.line("static struct _stpx_map *{};", global(g));
    } else if (g->type == Type::String) {
      out_.line("static char {}[MAXSTRINGLEN];", global(g));
    } else {
      out_.line("static int64_t {};", global(g));
    }
  }
  for (size_t i = 0; i < foreach_sites_.size(); ++i)
    out_.line("static DEFINE_PER_CPU(struct _stpx_map_node **, _stpx_fe_buf_{});", i);
  // What each statistic must keep beyond count/sum/min/max.
  for (const Symbol* g : prog_.globals) {
    if (g->hist == Symbol::Hist::None && !g->variance) continue;
    std::string fields = fmt::format(".variance = {}, .shift = {}", g->variance ? 1 : 0, g->variance_shift);
    if (g->hist == Symbol::Hist::Log)
      fields += ", .kind = STPX_HIST_LOG, .buckets = STPX_HIST_LOG_BUCKETS";
    else if (g->hist == Symbol::Hist::Linear)
      fields += fmt::format(", .kind = STPX_HIST_LINEAR, .lo = {}LL, .hi = {}LL, .step = {}LL, .buckets = {}",
                            g->hist_lo, g->hist_hi, g->hist_step, hist_buckets(g));
    out_.line("static const struct _stpx_hist _stpx_h_{} = {{ {} }};", g->name, fields);
  }
  out_.blank();
}

std::string Codegen::probe_flags(int index) const {
  std::string f;
  if (counting_probes_.count(index)) f += "STPX_PROBE_ACTIONS";
  if (printing_probes_.count(index)) f += std::string(f.empty() ? "" : " | ") + "STPX_PROBE_PRINTS";
  if (context_probes_.count(index)) f += std::string(f.empty() ? "" : " | ") + "STPX_PROBE_CONTEXT";
  return f.empty() ? "0" : f;
}

// Each distinct pattern's DFA (translator/regex/regex.h) as the tables
// runtime-c/regex.c walks.
void Codegen::regex_tables() {
  std::vector<const std::string*> by_id(regex_ids_.size());
  for (const auto& [pattern, id] : regex_ids_) by_id[id] = &pattern;
  for (size_t id = 0; id < by_id.size(); ++id) {
    const regex::Dfa& dfa = prog_.regexes.at(*by_id[id]);
    std::string comment = *by_id[id];
    for (size_t p; (p = comment.find("*/")) != std::string::npos;) comment.replace(p, 2, "* /");
    for (char& ch : comment)
      if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
    out_.line("/* =~ {} */", c_string(comment));
    {
      auto b = out_.block(fmt::format("static const u8 _stpx_re_{}_classes[256] =", id), "};");
      for (int row = 0; row < 256; row += 32) {
        std::string line;
        for (int i = row; i < row + 32; ++i) line += fmt::format("{},", dfa.classes[i]);
        out_.line(line);
      }
    }
    {
      auto b = out_.block(fmt::format("static const u16 _stpx_re_{}_trans[{}] =", id, dfa.trans.size()), "};");
      for (size_t s = 0; s < dfa.states(); ++s) {
        std::string line;
        for (int c = 0; c < dfa.nclasses; ++c) line += fmt::format("{},", dfa.trans[s * dfa.nclasses + c]);
        out_.line(line);
      }
    }
    {
      auto b = out_.block(fmt::format("static const u8 _stpx_re_{}_flags[{}] =", id, dfa.states()), "};");
      std::string line;
      for (size_t s = 0; s < dfa.states(); ++s) {
        line += fmt::format("{},", dfa.flags[s]);
        if (s % 32 == 31 || s + 1 == dfa.states()) {
          out_.line(line);
          line.clear();
        }
      }
    }
    out_.line("static const struct _stpx_dfa _stpx_re_{0} = {{ .classes = _stpx_re_{0}_classes, .trans = "
              "_stpx_re_{0}_trans, .flags = _stpx_re_{0}_flags, .nclasses = {1} }};",
              id, dfa.nclasses);
    if (prog_.submatch) submatch_tables(id, prog_.submatch_progs.at(*by_id[id]));
  }
  if (!by_id.empty()) out_.blank();
}

// The sub-match program of pattern `id` (translator/regex/regex.h) as
// runtime-c/regex.c's struct _stpx_re_prog.
void Codegen::submatch_tables(size_t id, const regex::Prog& p) {
  {
    auto b = out_.block(fmt::format("static const struct _stpx_re_inst _stpx_rp_{}_insts[{}] =", id, p.insts.size()),
                        "};");
    std::string line;
    for (size_t i = 0; i < p.insts.size(); ++i) {
      const regex::Inst& in = p.insts[i];
      line += fmt::format("{{{},{},{},{}}},", in.op, in.arg, in.x, in.y);
      if (i % 8 == 7 || i + 1 == p.insts.size()) {
        out_.line(line);
        line.clear();
      }
    }
  }
  {
    auto b = out_.block(fmt::format("static const u8 _stpx_rp_{}_sets[{}][32] =", id, std::max<size_t>(1, p.sets.size())),
                        "};");
    for (const auto& set : p.sets) {
      std::string line = "{";
      for (uint8_t byte : set) line += fmt::format("{},", byte);
      out_.line(line + "},");
    }
    if (p.sets.empty()) out_.line("{0},");
  }
  out_.line("static const struct _stpx_re_prog _stpx_rp_{0} = {{ .insts = _stpx_rp_{0}_insts, .sets = "
            "_stpx_rp_{0}_sets, .ninsts = {1}, .nslots = {2} }};",
            id, p.insts.size(), p.nslots);
}

void Codegen::tables() {
  // Lock sets, then the probe table (one entry per probe point).
  for (size_t index = 0; index < decls_.size(); ++index) {
    const ProbeDecl* decl = decls_[index];
    std::set<int> all(decl->global_reads.begin(), decl->global_reads.end());
    all.insert(decl->global_writes.begin(), decl->global_writes.end());
    if (all.empty()) continue;
    std::set<int> writes(decl->global_writes.begin(), decl->global_writes.end());
    auto b = out_.block(fmt::format("static const struct _stpx_lock_req _stpx_locks_p{}[] =", index), "};");
    for (int g : all) out_.line("{{ &_stpx_locks[{}], {} }},", g, writes.count(g) ? 1 : 0);
  }
  // Entry values (DW_OP_entry_value away from the entry): one watcher of
  // the entry of each function whose probes read them, registered before
  // and unregistered after the probes (runtime-c/probes/entry_values.c).
  std::map<const ProbeSpec*, int> tracker_of;
  {
    std::map<std::pair<std::string, uint64_t>, int> trackers;
    std::vector<std::pair<std::string, uint64_t>> order;
    for (const ProbeSpec& p : prog_.probes) {
      if (!entry_value_probes_.count(decl_index_.at(p.decl))) continue;
      // The function's entry: its symbol, or the same address from the
      // symbol the probe attaches by when that one is ambiguous.
      auto at = p.attach.empty() ? std::make_pair(p.symbol, uint64_t{0})
                                 : std::make_pair(p.attach, p.attach_offset - p.offset);
      auto [it, fresh] = trackers.emplace(at, static_cast<int>(order.size()));
      if (fresh) order.push_back(at);
      tracker_of[&p] = it->second;
    }
    if (!order.empty()) {
      auto b = out_.block("static struct _stpx_entry_tracker _stpx_entry_trackers[] =", "};");
      for (const auto& [symbol, offset] : order)
        out_.line("{{ .symbol = {}{} }},", c_string(symbol), offset ? fmt::format(", .offset = {}", offset) : "");
    }
  }
  {
    auto b = out_.block("static const struct _stpx_probe _stpx_probes[] =", "};");
    for (const ProbeSpec& p : prog_.probes) {
      int index = decl_index_.at(p.decl);
      bool locks = !p.decl->global_reads.empty() || !p.decl->global_writes.empty();
      bool interruptible = std::string(p.family->run_state()) != "STPX_STATE_RUNNING";
      auto saves = prog_.entry_saves.find(p.decl);
      size_t nsaved = saves == prog_.entry_saves.end() ? 0 : saves->second.size();
      std::string entry;
      if (nsaved) {
        size_t strings = std::count_if(saves->second.begin(), saves->second.end(),
                                       [](const TargetAccess& s) { return s.saves_string(); });
        // The flag word, then the saves (see entry_offset()).
        entry = fmt::format(", .entry = _stpx_entry_{}, .nsaved = {}, .entry_size = ({}{}) * sizeof(int64_t)",
                            index, nsaved, 1 + nsaved - strings,
                            strings ? fmt::format(" + {} * STPX_ENTRY_STR_WORDS", strings) : "");
      }
      if (auto t = tracker_of.find(&p); t != tracker_of.end())
        entry += fmt::format(", .entry_tracker = &_stpx_entry_trackers[{}]", t->second);
      // ppfunc(): the function a probe point names; probefunc(): the
      // symbol a function probe is attached to.
      std::string ppfunc = pp_function(p.pp);
      // pp() is the point itself: an optional point's "?" is not part of it.
      std::string pp = p.pp;
      while (!pp.empty() && (pp.back() == '?' || pp.back() == '!')) pp.pop_back();
      std::string func = ppfunc.empty() ? "" : p.symbol;
      out_.line("{{ .handler = _stpx_probe_{}, .pp = {}, .pn = {}, .ppfunc = {}, .func = {}, .locks = {}, "
                ".nlocks = {}, .state = {}, .interruptible = {}, .is_return = {}, .flags = {}{} }},",
                index, c_string(pp), c_string(p.decl->pn.empty() ? pp : p.decl->pn), c_string(ppfunc),
                c_string(func),
                locks ? fmt::format("_stpx_locks_p{}", index) : "NULL",
                locks ? fmt::format("ARRAY_SIZE(_stpx_locks_p{})", index) : "0", p.family->run_state(),
                interruptible ? 1 : 0, p.is_return ? 1 : 0, probe_flags(index), entry);
    }
  }
  out_.blank();
  std::map<const ProbeFamily*, std::vector<const ProbeSpec*>> by_family;
  for (const ProbeFamily* fam : probe_families()) by_family[fam];
  for (const ProbeSpec& p : prog_.probes) by_family[p.family].push_back(&p);
  for (const ProbeFamily* fam : probe_families()) fam->emit_tables(out_, by_family[fam]);
  out_.blank();

  {
    auto b = out_.block("static int _stpx_globals_init(void)");
    out_.line("int cpu __maybe_unused;");
    for (const Symbol* g : prog_.globals) {
      if (is_stat(g)) {
        std::string types;
        for (Type t : g->key_types) types += t == Type::String ? "STPX_T_STRING, " : "STPX_T_LONG, ";
        if (g->arity > 0)
          out_.line("{} = _stpx_pmap_alloc({}, (const u8[]){{ {}}}, {}, {});", global(g), g->arity, types,
                    g->max_entries > 0 ? std::to_string(g->max_entries) : "MAXMAPENTRIES", hist(g));
        else
          out_.line("{} = _stpx_stat_alloc({});", global(g), hist(g));
        out_.line("if (!{})", global(g));
        out_.line("\treturn -ENOMEM;");
        if (g->arity > 0 && !one_key(g).empty())
          out_.line("for_each_possible_cpu(cpu) per_cpu(_stpx_gm_{}, cpu) = {}->cpu[cpu];", g->name, global(g));
        if (g->arity > 0 && g->wrap) out_.line("_stpx_pmap_wrap({});", global(g));
      } else if (g->arity > 0) {
        std::string types;
        for (Type t : g->key_types) types += t == Type::String ? "STPX_T_STRING, " : "STPX_T_LONG, ";
        out_.line("{} = _stpx_map_alloc({}, (const u8[]){{ {}}}, {}, {});", global(g), g->arity, types,
                  g->type == Type::String ? "STPX_T_STRING" : "STPX_T_LONG",
                  g->max_entries > 0 ? std::to_string(g->max_entries) : "MAXMAPENTRIES");
        out_.line("if (!{})", global(g));
        out_.line("\treturn -ENOMEM;");
        if (g->wrap) out_.line("{}->wrap = true;", global(g));
      } else if (g->init) {
        if (g->type == Type::String)
          out_.line("_stpx_strcpy({}, {});", global(g),
                    c_string(static_cast<const StringLit*>(g->init)->value));
        else
          out_.line("{} = {};", global(g), expr(g->init));
      }
    }
    for (size_t i = 0; i < foreach_sites_.size(); ++i) {
      out_.line("if (_stpx_foreach_bufs_alloc(&_stpx_fe_buf_{}, {}{}))", i, global(foreach_sites_[i]),
                is_stat(foreach_sites_[i]) ? "->agg" : "");
      out_.line("\treturn -ENOMEM;");
    }
    out_.line("return 0;");
  }
  {
    auto b = out_.block("static void _stpx_globals_exit(void)");
    for (size_t i = 0; i < foreach_sites_.size(); ++i) out_.line("_stpx_foreach_bufs_free(&_stpx_fe_buf_{});", i);
    for (const Symbol* g : prog_.globals) {
      if (is_stat(g))
        out_.line("{}({});", g->arity > 0 ? "_stpx_pmap_free" : "_stpx_stat_free", global(g));
      else if (g->arity > 0)
        out_.line("_stpx_map_free({});", global(g));
    }
  }
  {
    auto b = out_.block("static int _stpx_arm_probes(void)");
    out_.line("int rc __maybe_unused = 0;");
    if (!tracker_of.empty()) {
      out_.line("rc = _stpx_entry_trackers_arm(_stpx_entry_trackers, ARRAY_SIZE(_stpx_entry_trackers));");
      out_.line("if (rc)");
      out_.line("\treturn rc;");
    }
    for (const ProbeFamily* fam : probe_families()) fam->emit_arm(out_, by_family[fam]);
    out_.line("return 0;");
  }
  {
    auto b = out_.block("static void _stpx_disarm_probes(void)");
    for (auto it = probe_families().rbegin(); it != probe_families().rend(); ++it)
      (*it)->emit_disarm(out_, by_family[*it]);
    if (!tracker_of.empty())
      out_.line("_stpx_entry_trackers_disarm(_stpx_entry_trackers, ARRAY_SIZE(_stpx_entry_trackers));");
  }
}

std::string Codegen::run() {
  // Bodies first (into their own writer): they decide the frames' temps.
  CWriter bodies;
  w_ = &bodies;
  std::vector<Frame> frames;
  frames.reserve(prog_.functions.size() + prog_.probes.size());
  for (const FunctionDecl* f : prog_.functions) {
    Frame& fr = frames.emplace_back();
    fr.member = "f_" + f->cname();
    fr.type = "struct _stpx_l_f_" + f->cname();
    fr.locals = f->locals;
    fr.ret = f->type;
    fr.borrows_strings = unmodified_fnargs(f);
    function_body(f, fr);
    bodies.blank();
  }
  for (const ProbeSpec& p : prog_.probes) {
    if (decl_index_.count(p.decl)) continue;
    int index = static_cast<int>(decl_index_.size());
    decl_index_[p.decl] = index;
    decls_.push_back(p.decl);
    Frame& fr = frames.emplace_back();
    fr.member = fmt::format("p{}", index);
    fr.type = fmt::format("struct _stpx_l_p{}", index);
    fr.locals = p.decl->locals;
    probe_body(p.decl, index, fr);
    entry_function(p.decl, index);
    bodies.blank();
  }

  out_.line("/* Generated by stapx: module {}. */", opts_.module_name);
  for (const auto& [name, value] : opts_.defines) {
    out_.line("#undef {}", name);
    out_.line("#define {} {}", name, value);
  }
  out_.line("#define STPX_NESTING_DEFAULT {}", prog_.max_nesting);
  if (prog_.kaslr_anchor) out_.line("#define STPX_KASLR_ANCHOR {:#x}UL", *prog_.kaslr_anchor);
  int64_t buckets = 0;
  for (const Symbol* g : prog_.globals) buckets = std::max(buckets, hist_buckets(g));
  out_.line("#define STPX_HIST_SCRATCH_BUCKETS {}", buckets);
  entry_string_words();
  if (prog_.submatch) {  // the context's room for matched() (runtime-c/regex.h)
    size_t insts = 1, slots = 2, cells = 2;
    for (const auto& [pattern, p] : prog_.submatch_progs) {
      insts = std::max(insts, p.insts.size());
      slots = std::max(slots, static_cast<size_t>(p.nslots));
      cells = std::max(cells, p.insts.size() * p.nslots);
    }
    out_.line("#define STPX_RE_SUBMATCH 1");
    out_.line("#define STPX_RE_MAX_INSTS {}", insts);
    out_.line("#define STPX_RE_MAX_SLOTS {}", slots);
    out_.line("#define STPX_RE_MAX_CELLS {}", cells);
  }
  out_.line("#include \"runtime_defs.h\"");
  out_.blank();
  for (const Frame& f : frames) frame_struct(f);
  {
    auto b = out_.block("union _stpx_frame", "};");
    out_.line("char _none;");
    for (const Frame& f : frames) out_.line("{} {};", f.type, f.member);
  }
  out_.blank();
  out_.line("#include \"runtime.h\"");
  out_.blank();
  for (const Script* script : prog_.scripts)
    for (const EmbeddedDecl* e : script->embedded) {
      out_.line("/* embedded C from {} */", sm_.describe(e->loc));
      std::string at = script_line(e->loc);
      if (!at.empty()) out_.line(at);
      out_.line(e->code);
      if (!at.empty()) out_.line(kResume);
    }
  globals();
  regex_tables();
  for (const FunctionDecl* f : prog_.functions)
    out_.line("static void _stpx_fn_{}(struct _stpx_context *c);", f->cname());
  out_.blank();
  std::string text = out_.str() + bodies.str();
  out_ = CWriter();
  tables();
  out_.blank();
  out_.line("#include \"runtime_tail.h\"");
  return resume_lines(text + out_.str());
}

// `#line` before embedded C names the script's line, so that the C
// compiler reports errors in it against the script.
std::string Codegen::script_line(SourceLoc code) const {
  auto [at, expansion] = sm_.resolve(code);
  (void)expansion;
  if (!at.valid()) return "";
  std::string name = sm_.file(at.file).name;
  std::string quoted;
  for (char ch : name) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    quoted += ch;
  }
  return fmt::format("#line {} \"{}\"", sm_.line_col(code).line, quoted);
}

// After embedded C, the generated file's own numbering resumes: each
// kResume marker becomes `#line N "MODULE.c"` with its real line number.
std::string Codegen::resume_lines(const std::string& text) const {
  std::string out;
  out.reserve(text.size());
  size_t line = 1;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string::npos ? text.size() : nl;
    std::string_view ln(text.data() + pos, end - pos);
    size_t tabs = ln.find_first_not_of('\t');
    if (tabs != std::string_view::npos && ln.substr(tabs) == kResume)
      out += fmt::format("#line {} \"{}.c\"", line + 1, opts_.module_name);
    else
      out += ln;
    out += '\n';
    ++line;
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::string generate_c(const Program& prog, const SourceManager& sm, const CodegenOptions& opts) {
  return Codegen(prog, sm, opts).run();
}

}  // namespace stapx
