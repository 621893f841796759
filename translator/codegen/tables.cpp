// Declarations and tables: frame structs, globals and their init and
// exit, regex DFAs and sub-match programs, and the probe table that the
// runtime arms from.
#include "translator/codegen/generator.h"

#include <algorithm>
#include <set>

#include "translator/probes/uprobe_table.h"

namespace stapx::codegen {

namespace {

// ppfunc(): the function a probe point names, as stap parses it out of
// pp(): the name in its first function("...") (else statement("...")), up
// to '@' or the quote; "" when pp() has neither (an address, a mark, a
// timer).
std::string ppfunc_of(const std::string& pp) {
  size_t at = pp.find("function(\"");
  size_t start = at != std::string::npos ? at + 10 : std::string::npos;
  if (at == std::string::npos && (at = pp.find("statement(\"")) != std::string::npos) start = at + 11;
  if (start == std::string::npos) return "";
  return pp.substr(start, pp.find_first_of("@\"", start) - start);
}

}  // namespace

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
  // (No globals, no locks: an unused array would draw a build warning.)
  if (!prog_.globals.empty()) {
    out_.line("/* Globals, each guarded by _stpx_locks[its index]. */");
    out_.line("static struct _stpx_rwlock _stpx_locks[{}];", prog_.globals.size());
  }
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
    // (module_param_cb() by hand: its name argument would be expanded as
    // a macro, and a script may name a global "current" or "min".)
    if (param_global(g)) {
      out_.line("static struct _stpx_gparam _stpx_gp_{0} = {{ .var = &{1} }};", g->name, global(g));
      out_.line("static const struct kernel_param _stpx_kp_{0} __used __section(\"__param\") "
                "__aligned(__alignof__(struct kernel_param)) = {{ .name = \"{0}\", .mod = THIS_MODULE, "
                ".ops = &_stpx_gparam_{1}_ops, .perm = 0, .level = -1, .flags = 0, .arg = &_stpx_gp_{0} }};",
                g->name, g->type == Type::String ? "string" : "long");
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
  // Lock sets, then the probe table (one entry per probe point): the
  // globals read or written, in index order (the canonical one), each
  // taken for writing if written.
  auto lock_set = [this](const std::string& name, const auto& reads, const auto& writes) {
    std::set<int> all(reads.begin(), reads.end());
    all.insert(writes.begin(), writes.end());
    if (all.empty()) return;
    std::set<int> written(writes.begin(), writes.end());
    auto b = out_.block(fmt::format("static const struct _stpx_lock_req {}[] =", name), "};");
    for (int g : all) out_.line("{{ &_stpx_locks[{}], {} }},", g, written.count(g) ? 1 : 0);
  };
  for (size_t index = 0; index < decls_.size(); ++index)
    lock_set(fmt::format("_stpx_locks_p{}", index), decls_[index]->global_reads, decls_[index]->global_writes);
  // Those of .return probes' entry halves whose @entry(...) uses globals.
  for (const auto& [decl, globals] : prog_.entry_globals)
    lock_set(fmt::format("_stpx_entry_locks_p{}", decl_index_.at(decl)), globals.reads, globals.writes);
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
      auto at = std::make_pair(p.entry_symbol, p.entry_offset);
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
    unsigned slot = 0;
    for (const ProbeSpec& p : prog_.probes) {
      int index = decl_index_.at(p.decl);
      bool locks = !p.decl->global_reads.empty() || !p.decl->global_writes.empty();
      bool interruptible = p.family->run_state() != RunState::Running;
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
        if (prog_.entry_globals.count(p.decl))
          entry += fmt::format(", .entry_locks = _stpx_entry_locks_p{0}, .nentry_locks = "
                               "ARRAY_SIZE(_stpx_entry_locks_p{0})", index);
      }
      if (auto t = tracker_of.find(&p); t != tracker_of.end())
        entry += fmt::format(", .entry_tracker = &_stpx_entry_trackers[{}]", t->second);
      // pp() is the point itself: an optional point's "?" is not part of it.
      std::string pp = p.pp;
      while (!pp.empty() && (pp.back() == '?' || pp.back() == '!')) pp.pop_back();
      out_.line("{{ .handler = _stpx_probe_{}, .pp = {}, .pn = {}, .ppfunc = {}, .func = {}, .locks = {}, "
                ".nlocks = {}, .state = {}, .interruptible = {}, .is_return = {}, .flags = {}{}, "
                ".index = {}, .loc = {} }},",
                index, c_string(pp), c_string(p.pn_text(pp)),
                c_string(ppfunc_of(pp)), c_string(p.probefunc),
                locks ? fmt::format("_stpx_locks_p{}", index) : "NULL",
                locks ? fmt::format("ARRAY_SIZE(_stpx_locks_p{})", index) : "0", run_state_c(p.family->run_state()),
                interruptible ? 1 : 0, p.is_return ? 1 : 0, probe_flags(index), entry, slot++,
                c_string(sm_.describe(p.decl->loc)));
    }
  }
  out_.blank();
  std::map<const ProbeFamily*, std::vector<const ProbeSpec*>> by_family;
  for (const ProbeFamily* fam : probe_families()) by_family[fam];
  for (const ProbeSpec& p : prog_.probes) by_family[p.family].push_back(&p);
  for (const ProbeFamily* fam : probe_families()) fam->emit_tables(out_, by_family[fam]);
  out_.blank();

  {
    // What _stpx_globals_init() below will allocate, for the check at
    // load (module.c): the same calls' sizes, in the same order.
    auto b = out_.block("static u64 _stpx_globals_bytes(void)");
    out_.line("u64 n = 0;");
    for (const Symbol* g : prog_.globals) {
      std::string types;
      for (Type t : g->key_types) types += t == Type::String ? "STPX_T_STRING, " : "STPX_T_LONG, ";
      std::string max = g->max_entries > 0 ? std::to_string(g->max_entries) : "MAXMAPENTRIES";
      if (is_stat(g) && g->arity > 0)
        out_.line("n += _stpx_pmap_bytes({}, (const u8[]){{ {}}}, {}, {});", g->arity, types, max, hist(g));
      else if (is_stat(g))
        out_.line("n += _stpx_stat_bytes({});", hist(g));
      else if (g->arity > 0)
        out_.line("n += _stpx_map_bytes({}, (const u8[]){{ {}}}, {}, _stpx_slot_size({}));", g->arity, types, max,
                  g->type == Type::String ? "STPX_T_STRING" : "STPX_T_LONG");
    }
    for (const Symbol* g : foreach_sites_)
      out_.line("n += _stpx_foreach_bufs_bytes({});",
                g->max_entries > 0 ? std::to_string(g->max_entries) : "MAXMAPENTRIES");
    out_.line("return n;");
  }
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
        // (A value stapx-run's NAME=VALUE gave comes first.)
        std::string in = param_global(g) ? "\t" : "";
        if (param_global(g)) out_.line("if (!_stpx_gp_{}.set)", g->name);
        if (g->type == Type::String)
          out_.line("{}_stpx_strcpy({}, {});", in, global(g),
                    c_string(static_cast<const StringLit*>(g->init)->value));
        else
          out_.line("{}{} = {};", in, global(g), expr(g->init));
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
  if (!opts_.user_symbol_files.empty()) {
    // Line tables only for a script that asks for lines (a library
    // function that reads them says so: /* stapx:user-lines */); they are large.
    bool with_lines = false;
    for (const ast::FunctionDecl* f : prog_.functions) with_lines = with_lines || f->has_pragma("stapx:user-lines");
    emit_user_symbols(out_, opts_.user_symbol_files, "_stpx_user", with_lines);
  }
  {
    auto b = out_.block("static int _stpx_arm_probes(void)");
    out_.line("int rc __maybe_unused = 0;");
    if (!opts_.user_symbol_files.empty())
      out_.line("_stpx_usyms_arm(_stpx_user_usyms, ARRAY_SIZE(_stpx_user_usyms));");
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
    if (!opts_.user_symbol_files.empty()) out_.line("_stpx_usyms_disarm();");
  }
}

}  // namespace stapx::codegen
