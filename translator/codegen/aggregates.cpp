// Statistics and foreach: @count/@sum/@min/@max/@avg, histogram buckets
// and printed histograms, and foreach over arrays, sorted or sliced, and
// over a histogram's buckets.
#include "translator/codegen/generator.h"

namespace stapx::codegen {

// @count(s), @sum(a[k]), ...: merge every CPU's part into a temporary.
std::string Codegen::stat_read(const AtOpExpr* a) {
  std::string n = uniq();
  const Expr* arg = a->args[0];
  if (!a->components.empty()) return bucket_read(a);
  if (a->op == At::Variance) {
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
  if (a->op == At::Count) return fmt::format("({{ {}agg_{}.count; }})", stmts, n);
  if (a->op == At::Sum) return fmt::format("({{ {}agg_{}.sum; }})", stmts, n);
  stmts += fmt::format("if (unlikely(!agg_{}.count)) STPX_ERROR(\"empty aggregate\", {}); ", n, where(a->loc));
  if (a->op == At::Min) return fmt::format("({{ {}agg_{}.min; }})", stmts, n);
  if (a->op == At::Max) return fmt::format("({{ {}agg_{}.max; }})", stmts, n);
  return fmt::format("({{ {}div64_s64(agg_{}.sum, agg_{}.count); }})", stmts, n, n);
}

// The statistic a histogram operator draws, merged from every CPU into
// `into` (a struct _stpx_stat *): statements appended to `stmts`.
const Symbol* Codegen::read_histogram(const AtOpExpr* a, const std::string& into, std::string& stmts) {
  const Expr* arg = a->args[0];
  if (arg->kind == ExprKind::Var) {
    const Symbol* g = static_cast<const VarRef*>(arg)->sym;
    stmts += fmt::format("_stpx_stat_read({}, {}, {}); ", global(g), into, hist(g));
    return g;
  }
  auto* ix = static_cast<const IndexExpr*>(arg);
  const Symbol* g = ix->array->sym;
  std::string k = keys(ix->keys, g, stmts);
  stmts += fmt::format("_stpx_pmap_read({}, {}, {}, {}); ", global(g), k, into, hist(g));
  return g;
}

// @hist_log(s)[i]: merge every CPU's buckets into the context's scratch
// space and read bucket i (0 .. buckets - 1, as _stpx_hist_bucket numbers
// them: linear 0 is "under", N + 1 "over"; log 64 holds the zeros).
std::string Codegen::bucket_read(const AtOpExpr* a) {
  std::string n = uniq();
  std::string stmts = fmt::format("int64_t i_{} = {}; struct _stpx_stat *hs_{} = (struct _stpx_stat *)c->hist_scratch; ",
                                  n, expr(a->components[0].index), n);
  const Symbol* g = read_histogram(a, "hs_" + n, stmts);
  // As stap: an empty statistic (or an absent element) has no buckets.
  stmts += fmt::format("if (unlikely(!hs_{0}->count)) STPX_ERROR(\"empty aggregate\", {1}); ", n, where(a->loc));
  stmts += fmt::format("if (unlikely(i_{0} < 0 || i_{0} >= {1}.buckets)) STPX_ERROR(\"histogram index out of range\", {2}); ",
                       n, hist(g).substr(1), where(a->loc));
  return fmt::format("({{ {}hs_{}->hist[i_{}]; }})", stmts, n, n);
}

// print(@hist_log(s)): merge every CPU's buckets into the context's
// scratch space and draw them (runtime-c/stat.c), into the string `to`
// for sprint() ("NULL": printed). An empty statistic is
// stap's "empty aggregate" error, at the print call.
std::string Codegen::print_histogram(const AtOpExpr* a, SourceLoc call, const std::string& to) {
  std::string stmts = "{ struct _stpx_stat *hs = (struct _stpx_stat *)c->hist_scratch; ";
  const Symbol* g = read_histogram(a, "hs", stmts);
  stmts += fmt::format("if (unlikely(!hs->count)) STPX_ERROR(\"empty aggregate\", {}); ", where(call));
  return stmts + fmt::format("_stpx_hist_print(c, {}, hs, {}); }} ", to, hist(g));
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
  if (!f->slice.empty()) foreach_slice(f, n);
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

// foreach (... in a[k, *]): the snapshot keeps, in order, only the entries
// whose keys equal the slice's values ('*' matches any), compared as
// "delete a[k, *]" compares them (map.c's _stpx_map_match_some), each
// value computed once before the loop; a limit counts the kept ones.
void Codegen::foreach_slice(const ForeachStmt* f, const std::string& n) {
  int some = wildcard_mask(f->slice);
  if (some < 0) some = (1 << f->slice.size()) - 1;  // no '*': every key
  if (some == 0) return;                              // only '*': every entry
  CWriter& w = *w_;
  std::string pre;
  std::string k = keys(f->slice, f->array->sym, pre);
  w.line("{}size_t kept_{} = 0;", pre, n);
  {
    auto each = w.block(fmt::format("for (i_{} = 0; i_{} < n_{}; i_{}++)", n, n, n, n));
    w.line("if (_stpx_map_match_some(m_{}, b_{}[i_{}], {}, {:#x})) b_{}[kept_{}++] = b_{}[i_{}];", n, n, n, k, some,
           n, n, n, n);
  }
  w.line("n_{} = kept_{};", n, n);
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
  if (f->value) {
    // foreach (v = b in @hist_log(s)): v is bucket b's count, merged each
    // time (the body may draw histograms in the same scratch space).
    std::string stmts = "struct _stpx_stat *hs = (struct _stpx_stat *)c->hist_scratch; ";
    read_histogram(h, "hs", stmts);
    w.line("{{ {}{} = hs->count ? hs->hist[{}] : 0; }}", stmts, lvalue_scalar(f->value), lvalue_scalar(f->keys[0]));
  }
  stmt(f->body);
}

}  // namespace stapx::codegen
