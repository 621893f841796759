// Pass 3's code generator, split by what it writes (codegen.cpp says
// which file writes what). One Codegen per module; its members are the
// state of the body being written, shared by the files below.
#pragma once

#include <fmt/format.h>

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast_visitor.h"
#include "frontend/source.h"
#include "translator/codegen/codegen.h"
#include "translator/codegen/cwriter.h"
#include "translator/elaborate/program.h"

namespace stapx::codegen {

using namespace ast;

// A C string literal of `s`.
std::string c_string(std::string_view s);
// The C type of a script value.
inline const char* c_type(Type t) { return t == Type::String ? "const char *" : "int64_t"; }

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

class Codegen : public Visitor<Codegen, true, std::string, void> {
 public:
  static constexpr bool kEveryNode = true;

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
  friend class Visitor<Codegen, true, std::string, void>;
  // A statement's C, with its action accounting (statements.cpp), and an
  // expression's C (expressions.cpp): one visit_X for each kind of node.
  void stmt(const Stmt* s);
  std::string expr(const Expr* e);
  std::string visit_number(const NumberLit*);
  std::string visit_string(const StringLit*);
  std::string visit_var(const VarRef*);
  std::string visit_index(const IndexExpr*);
  std::string visit_in_array(const InArrayExpr*);
  std::string visit_call(const CallExpr*);
  std::string visit_unary(const UnaryExpr*);
  std::string visit_binary(const BinaryExpr*);
  std::string visit_ternary(const TernaryExpr*);
  std::string visit_assign(const AssignExpr*);
  std::string visit_at_op(const AtOpExpr*);
  std::string visit_target(const TargetExpr*);
  std::string visit_embedded(const EmbeddedExpr*);
  std::string visit_member(const MemberExpr*);
  std::string visit_wildcard(const WildcardExpr*);
  void visit_block(const BlockStmt*);
  void visit_expr_stmt(const ExprStmt*);
  void visit_if(const IfStmt*);
  void visit_while(const WhileStmt*);
  void visit_for(const ForStmt*);
  void visit_next(const SimpleStmt*);
  void visit_break(const SimpleStmt*);
  void visit_continue(const SimpleStmt*);
  void visit_return(const ReturnStmt*);
  void visit_delete(const DeleteStmt*);
  void visit_foreach(const ForeachStmt*);
  void visit_try(const TryStmt*);
  void visit_null(const SimpleStmt*);
  std::string target(const TargetAccess& t, const Expr* e);  // $var, &$var, @entry: read c->regs
  std::string resolved_target(const Expr* e);                 // a $var or p->f node's access, read
  // The values the probe being written saves at entry (Program::entry_saves),
  // and where save `slot` lives among them: C for its word offset.
  const std::vector<TargetAccess>* entry_saves_ = nullptr;
  std::string entry_offset(int slot) const;
  std::string entry_read(int slot) const;
  std::string lvalue_scalar(const VarRef* v);
  std::string keys(std::span<Expr* const> ks, const Symbol* sym, std::string& decl);
  std::string key_expr(const Expr* k, bool last);
  static int wildcard_mask(std::span<Expr* const> ks);
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
  void foreach_slice(const ForeachStmt* f, const std::string& n);
  std::string stat_read(const AtOpExpr* a);
  std::string bucket_read(const AtOpExpr* a);
  void foreach_bucket(const ForeachStmt* f);
  bool is_stat(const Symbol* s) const { return s->type == Type::Stats; }
  // The statistic's histogram descriptor, or "NULL".
  std::string hist(const Symbol* s) const {
    return s->hist == Symbol::Hist::None && !s->variance ? "NULL" : "&_stpx_h_" + s->name;
  }
  std::string print_histogram(const AtOpExpr* a, SourceLoc call, const std::string& to = "NULL");
  const Symbol* read_histogram(const AtOpExpr* a, const std::string& into, std::string& stmts);
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
  // Whether global `g` is a module parameter of its name (staprun's
  // NAME=VALUE): a number or string of the user's script.
  bool param_global(const Symbol* g) const {
    return g->arity == 0 && (g->type == Type::Long || g->type == Type::String) && g->name.rfind("_stpx", 0) != 0 &&
           (!g->decl.valid() || !sm_.file(sm_.resolve(g->decl).first.file).is_tapset);
  }

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

}  // namespace stapx::codegen
