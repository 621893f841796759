// Statements and bodies: each statement with its action accounting, and
// the C functions of probe bodies, script functions, embedded-C functions
// and the entry handlers of .return probes that save values at entry.
#include "translator/codegen/generator.h"

#include "frontend/diagnostics.h"
#include "translator/codegen/target_c.h"

namespace stapx::codegen {

void Codegen::stmt(const Stmt* s) {
  if (s->kind != StmtKind::Block) {
    w_->line("STPX_ACTION({});", where(s->loc));
    ++action_sites_;
  }
  visit(s);
}

void Codegen::visit_block(const BlockStmt* s) {
  CWriter& w = *w_;
  auto b = w.block("");
  for (const Stmt* st : s->stmts) stmt(st);
}

void Codegen::visit_expr_stmt(const ExprStmt* s) { w_->line("(void){};", expr(s->expr)); }

void Codegen::visit_if(const IfStmt* i) {
  CWriter& w = *w_;
  {
    auto b = w.block(fmt::format("if ({})", expr(i->cond)));
    stmt(i->then);
  }
  if (i->els) {
    auto b = w.block("else");
    stmt(i->els);
  }
}

void Codegen::visit_while(const WhileStmt* wh) {
  CWriter& w = *w_;
  auto b = w.block(fmt::format("while ({})", expr(wh->cond)));
  w.line("STPX_ACTION({});", where(wh->loc));
  actions_unbounded_ = true;
  stmt(wh->body);
}

void Codegen::visit_for(const ForStmt* f) {
  CWriter& w = *w_;
  auto b = w.block(fmt::format("for ({}; {}; {})", f->init ? "(void)" + expr(f->init) : "",
                               f->cond ? expr(f->cond) : "", f->incr ? "(void)" + expr(f->incr) : ""));
  w.line("STPX_ACTION({});", where(f->loc));
  actions_unbounded_ = true;
  stmt(f->body);
}

void Codegen::visit_next(const SimpleStmt*) { w_->line("goto out;"); }
void Codegen::visit_break(const SimpleStmt*) { w_->line("break;"); }
void Codegen::visit_continue(const SimpleStmt*) { w_->line("continue;"); }

void Codegen::visit_return(const ReturnStmt* r) {
  CWriter& w = *w_;
  if (r->value && frame_->ret == Type::String)
    w.line("_stpx_strcpy(l->__retvalue, {});", expr(r->value));
  else if (r->value && frame_->ret == Type::Long)
    w.line("l->__retvalue = {};", expr(r->value));
  else if (r->value)
    w.line("(void){};", expr(r->value));
  w.line("goto out;");
}

void Codegen::visit_delete(const DeleteStmt* d) {
  CWriter& w = *w_;
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
    if (int some = wildcard_mask(ix->keys); some >= 0) {  // delete a[*, k]
      w.line("({{ {}_stpx_{}map_delete_some({}, {}, {:#x}); }});", pre, is_stat(ix->array->sym) ? "p" : "",
             global(ix->array->sym), k, some);
      return;
    }
    w.line("({{ {}{}({}, {}); }});", pre, is_stat(ix->array->sym) ? "_stpx_pmap_delete" : "_stpx_map_delete",
           global(ix->array->sym), k);
  }
}

void Codegen::visit_foreach(const ForeachStmt* s) { foreach(s); }

void Codegen::visit_try(const TryStmt* t) {
  CWriter& w = *w_;
  // Errors in the body jump to its local "err" label; the handler runs
  // outside that scope, so its own errors go to the enclosing one.
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
}

void Codegen::visit_null(const SimpleStmt*) {}

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

}  // namespace stapx::codegen
