// Macro expansion and conditional preprocessing over tokens (see
// preprocess.h). Tokens keep their real file and offset, and the expansion
// they came through, so diagnostics point at the user's text.
#include "frontend/preprocess.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <span>

#include "frontend/pp_condition.h"

namespace stapx {

namespace {

constexpr int kMaxExpansionDepth = 64;
// Macros that double their output at every level (or recurse twice) would
// expand exponentially; past this many tokens the expansion stops.
constexpr size_t kMaxExpandedTokens = 1'000'000;

using PTok = Tok;

// The language's own @ operators ("@cast"...), which are no macros.
bool is_at_operator(std::string_view s) {
  if (s.size() > 5 && is_this_var_name(s.substr(1))) return true;  // @this1, @this2 ...
  switch (s.size()) {
    case 4: return s == "@var" || s == "@sum" || s == "@min" || s == "@max" || s == "@avg";
    case 5: return s == "@cast" || s == "@perf";
    case 6: return s == "@entry" || s == "@const" || s == "@count";
    case 8: return s == "@defined";
    case 9: return s == "@variance" || s == "@hist_log";
    case 10: return s == "@kregister" || s == "@uregister";
    case 11: return s == "@probewrite";
    case 12: return s == "@hist_linear";
    default: return false;
  }
}

using TokBuffer = TokenArray<PTok>;

// The token buffers of one run, kept from file to file: pass 1 preprocesses
// hundreds of files, and fresh buffers for each cost page faults as the heap
// fragments.
struct Scratch {
  TokBuffer in;
  std::vector<PTok> cond;
  // Per expansion depth: a macro call's arguments and its body.
  struct Level {
    std::vector<std::span<const PTok>> args;
    std::vector<size_t> commas;
    TokBuffer body;
  };
  std::vector<Level> levels;
  bool busy = false;
};

// One pass over a file's tokens: macros are expanded (expand), and each
// token that expansion yields goes straight on to the conditionals
// (choose), a state machine whose chosen tokens are checked (survives) and
// kept; where the conditionals drop tokens, expansion only passes them on
// (dropping), as stap's does. Expansion's errors are reported as they happen; the
// conditionals' and the survivors' are held until the file is done, so that
// all of them come in the order of separate passes (expansion, then
// conditionals, then survivors). Library files (.stpm) take conditionals
// first, then expansion, whose tokens only count (see run()).
class Preprocessor {
 public:
  Preprocessor(SourceManager& sm, uint32_t file, const PreprocessFacts& facts, MacroTable& macros,
               DiagSink& diags, bool library, std::vector<bool>* args_used)
      : sm_(sm), file_(file), facts_(facts), macros_(macros), diags_(diags), library_(library),
        args_used_(args_used) {}

  uint32_t run();

 private:
  static std::string_view text(const PTok& t) { return t.view(); }
  static bool is(const PTok& t, std::string_view s) { return t.view() == s; }
  static bool is(const PTok& t, PpMark m) { return t.pp == m; }
  static SourceLoc loc(const PTok& t) { return t.loc; }
  // A diagnostic's location: with the expansion chain that brought the token.
  SourceLoc where(const PTok& t) { return sm_.located(t.loc.file, t.loc.offset, t.expansion); }
  // Preprocessor errors show their token after "at:", as stap's do.
  void error(const PTok& t, const std::string& expected) { report(DiagId::PpExpected, where(t), expected); }
  void error_text(const PTok& t, const std::string& text) { report(DiagId::PpError, where(t), text); }
  void report(DiagId id, SourceLoc at, const std::string& arg) {
    failed_ = true;
    if (held_)
      held_->push_back({id, at, arg});
    else
      diags_.report(id, at, arg);
  }

  // Expansion: each token it yields goes to emit().
  void expand(std::span<const PTok> in, int depth);
  bool argument(const PTok& t, int depth);
  void mark_argument(const PTok& t);
  size_t define(std::span<const PTok> in, size_t i);
  std::optional<std::vector<Tok>> pre_choose(const MacroTable::Macro& m);
  // Whether the conditionals drop what comes now: in a branch not taken,
  // or in an @define they drop. (A '%?' waiting for its first token is
  // decided first, on `next`.)
  bool dropping(const PTok& next) {
    if (mode_ == Mode::Decide) {
      Holding hold(*this, held_conditionals_);
      decide(&next);
    }
    return (mode_ == Mode::Plain && !active_) || mode_ == Mode::Definition;
  }
  __attribute__((always_inline)) void emit(const PTok& t) {
    ++emitted_;
    if (!library_) choose(t);
  }
  // In place of a token that was reported (a macro call with bad
  // arguments, an unknown @name, an argument past the last): a token no
  // rule takes, which the parser knows for a reported error (see
  // is_reported_token()), so that what the token's absence breaks around it
  // is not reported too.
  static PTok reported(const PTok& t) {
    PTok failed = t;
    failed.kind = TokKind::Error;
    failed.ops = kSpecial;
    failed.word = Word::None;
    failed.code = 0;
    return failed;
  }
  void emit_failed_call(const PTok& t) { emit(reported(t)); }

  // Conditionals: choose() takes the tokens in order, choose_end() the end.
  __attribute__((always_inline)) void choose(const PTok& t) {
    if (mode_ != Mode::Plain || t.pp != PpMark::None || t.kind == TokKind::At) {
      choose_marked(t);
      return;
    }
    if (active_) keep(t);
  }
  template <bool kStopAtNames, bool kMake, bool kExpanded = true>
  const PTok* choose_run(const PTok* p, const PTok* end);
  void choose_marked(const PTok& t);
  void choose_end();
  void decide(const PTok* after);
  // Condition `c`, ended by the '%?' `end`, with `after` after it (if
  // any): see ConditionReader.
  bool condition(std::span<const PTok> c, const PTok& end, const PTok* after) {
    ConditionReader read(facts_, [this](const PTok& t, bool expected, const std::string& what) {
      expected ? error(t, what) : error_text(t, what);
    });
    return read(c, end, after);
  }

  __attribute__((always_inline)) void keep(const PTok& t) {
    // A library file's tokens are read again (its macros'); a script's
    // are made for the grammar.
    if (library_)
      out_->push_back(t);
    else if (check_ && (t.kind == TokKind::Dollar || t.kind == TokKind::At) && !survives(t))
      out_->make(reported(t));
    else
      out_->make(t);
  }
  bool survives(const PTok& t);

  SourceManager& sm_;
  uint32_t file_;
  const PreprocessFacts& facts_;
  MacroTable& macros_;
  DiagSink& diags_;
  bool library_;
  std::vector<bool>* args_used_;
  bool failed_ = false;
  bool stop_ = false;  // a runaway macro expansion: expand nothing more
  size_t emitted_ = 0;  // tokens expansion has yielded
  bool cond_failed_call_ = false;  // the condition being read holds a failed macro call
  size_t pending_ = 0;  // tokens of macro bodies being expanded (all depths)
  Scratch* sc_ = nullptr;

  // The conditionals' state.
  enum class Mode : uint8_t {
    Plain,       // copying (or dropping) tokens
    Condition,   // reading a condition, up to its '%?' (into sc_->cond)
    Decide,      // after the '%?': decided when the next token (or the end) comes
    Definition,  // copying an @define whole (its body may hold '%(' '%)')
    Failed,      // an error ended the conditionals
  };
  struct Frame {
    PTok open;          // the '%('
    bool outer = true;  // whether the tokens around the conditional are kept
    bool taken = false;
    bool in_else = false;
  };
  Mode mode_ = Mode::Plain;
  bool active_ = true;  // whether tokens are kept here
  std::vector<Frame> frames_;
  int definition_depth_ = 0;
  PTok then_{};                       // the '%?' of the condition to decide
  SourceManager::TokenRun* out_ = nullptr;  // where chosen tokens go
  bool check_ = false;                // check the chosen tokens (survives)

  // Diagnostics held back (see the class comment).
  struct Held {
    DiagId id;
    SourceLoc loc;
    std::string arg;
  };
  std::vector<Held>* held_ = nullptr;  // where reports go instead of diags_
  std::vector<Held> held_conditionals_, held_survivors_;
  struct Holding {
    Preprocessor& p;
    std::vector<Held>* saved;
    Holding(Preprocessor& pp, std::vector<Held>& to) : p(pp), saved(pp.held_) { p.held_ = &to; }
    ~Holding() { p.held_ = saved; }
  };

  // The command-line arguments as a source of tokens: for argument i, its
  // text and then its text as a string literal; last, their number.
  uint32_t args_file_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> arg_text_, arg_string_;
  std::pair<uint32_t, uint32_t> arg_count_, arg_count_str_;
};

// A $N or @N that a conditional drops still counts as a use of argument
// N (stap warns of fewer arguments so); argument() marks the kept ones.
void Preprocessor::mark_argument(const PTok& t) {
  if (!args_used_ || t.len < 2 || (t.kind != TokKind::Dollar && t.kind != TokKind::At)) return;
  std::string_view s = text(t);
  if (s.find_first_not_of("0123456789", 1) != std::string_view::npos) return;
  size_t index = std::strtoul(std::string(s.substr(1)).c_str(), nullptr, 10);
  if (index >= 1 && index <= args_used_->size()) (*args_used_)[index - 1] = true;
}

// $N becomes the N-th argument's tokens, @N its text as a string literal,
// $# and @# their number (stap substitutes them while lexing).
bool Preprocessor::argument(const PTok& t, int depth) {
  std::string_view s = text(t);
  bool count = s.size() == 2 && s[1] == '#';
  if (!count && (s.size() < 2 || !std::isdigit(static_cast<unsigned char>(s[1])) ||
                 s.find_first_not_of("0123456789", 1) != std::string_view::npos))
    return false;
  if (!args_file_) {
    std::string all;
    for (const std::string& a : facts_.args) {
      arg_text_.push_back({static_cast<uint32_t>(all.size()), static_cast<uint32_t>(a.size())});
      all += a + "\n";
      std::string quoted = "\"";
      for (char c : a) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
      }
      quoted += "\"";
      arg_string_.push_back({static_cast<uint32_t>(all.size()), static_cast<uint32_t>(quoted.size())});
      all += quoted + "\n";
    }
    std::string n = std::to_string(facts_.args.size());
    arg_count_ = {static_cast<uint32_t>(all.size()), static_cast<uint32_t>(n.size())};
    all += n + "\n";
    arg_count_str_ = {static_cast<uint32_t>(all.size()), static_cast<uint32_t>(n.size() + 2)};
    all += "\"" + n + "\"\n";
    args_file_ = sm_.add(std::string(kArgumentsFile), std::move(all));
  }
  uint32_t exp = sm_.add_expansion(s, loc(t), t.expansion);
  auto token = [&](TokKind k, std::pair<uint32_t, uint32_t> r) {
    PTok x;
    x.kind = k;
    x.len = r.second;
    x.expansion = exp;
    x.text = sm_.file(args_file_).text.data() + r.first;
    x.loc = {args_file_, r.first};
    return x;
  };
  if (count) {
    // $# is a number, @# the same as a string.
    emit(s[0] == '$' ? token(TokKind::Number, arg_count_) : token(TokKind::String, arg_count_str_));
    return true;
  }
  size_t index = std::strtoul(std::string(s.substr(1)).c_str(), nullptr, 10);
  // A missing argument is an error only where a conditional keeps it:
  // run() reports those that survive.
  if (index == 0 || index > facts_.args.size()) return false;
  if (args_used_) (*args_used_)[index - 1] = true;
  if (s[0] == '@') {
    emit(token(TokKind::String, arg_string_[index - 1]));
    return true;
  }
  auto [begin, len] = arg_text_[index - 1];
  std::vector<PTok> sub;
  // (Lexed from a copy of the argument, ended as the lexer needs; the
  // tokens are moved into the arguments' file.)
  const std::string& all = sm_.file(args_file_).text;
  std::string arg = all.substr(begin, len);
  for (Tok a : tokenize(arg, args_file_)) {
    if (a.kind == TokKind::Error) {
      diags_.report(DiagId::ParseArgTokens, where(t), index, facts_.args[index - 1]);
      failed_ = true;
      return true;
    }
    // An argument's text is not searched for $N or @N again (stap's rule):
    // "$1" given as $1 would otherwise expand into itself for ever.
    if ((a.kind == TokKind::Dollar || a.kind == TokKind::At) && a.len >= 2 &&
        (a.text[1] == '#' || std::isdigit(static_cast<unsigned char>(a.text[1])))) {
      diags_.report(DiagId::ParseArgNested, where(t));
      failed_ = true;
      return true;
    }
    a.text = all.data() + begin + (a.text - arg.data());
    a.loc.offset += begin;
    a.expansion = exp;
    sub.push_back(a);
  }
  expand(sub, depth + 1);
  return true;
}

// A macro body's conditionals chosen at its definition, when every
// expansion would choose the same: each condition is facts and literals
// (no parameter, macro or $1), is no error (an erroneous one is reported
// where the macro is expanded), and the conditionals are whole within the
// body. What a conditional drops is never expanded (see dropping()), so
// the dropped tokens, parameters or calls, do not matter. None when the
// body has no conditional, or they must be chosen at each expansion.
std::optional<std::vector<Tok>> Preprocessor::pre_choose(const MacroTable::Macro& m) {
  const std::vector<Tok>& body = m.body;
  if (std::none_of(body.begin(), body.end(), [](const Tok& t) { return t.pp != PpMark::None; }))
    return std::nullopt;
  // A trial: the conditions' errors are held here and dropped with it.
  std::vector<Held> errors;
  Holding hold(*this, errors);
  bool failed = failed_;
  std::vector<Frame> frames;
  bool active = true;
  std::vector<Tok> out;
  for (size_t i = 0; i < body.size(); ++i) {
    const Tok& t = body[i];
    switch (t.pp) {
      case PpMark::Open: {
        size_t j = i + 1;
        for (; j < body.size() && body[j].pp == PpMark::None; ++j)
          if (body[j].kind == TokKind::At || body[j].kind == TokKind::Dollar) return std::nullopt;
        if (j == body.size() || body[j].pp != PpMark::Then || j == i + 1) return std::nullopt;
        bool taken = false;
        if (active) {
          std::span<const PTok> cond(body.data() + i + 1, j - i - 1);
          taken = condition(cond, body[j], j + 1 < body.size() ? &body[j + 1] : nullptr);
          failed_ = failed;
          if (!errors.empty()) return std::nullopt;
        }
        frames.push_back({t, active, taken, false});
        active = taken;
        i = j;
        break;
      }
      case PpMark::Else:
        if (frames.empty() || frames.back().in_else) return std::nullopt;
        frames.back().in_else = true;
        active = frames.back().outer && !frames.back().taken;
        break;
      case PpMark::Close:
        if (frames.empty()) return std::nullopt;
        active = frames.back().outer;
        frames.pop_back();
        break;
      case PpMark::Then: return std::nullopt;
      case PpMark::None: {
        if (t.kind == TokKind::At && text(t) == "@define") return std::nullopt;
        if (active) out.push_back(t);
        break;
      }
    }
  }
  if (!frames.empty()) return std::nullopt;
  return out;
}

// @define NAME %( BODY %)  or  @define NAME(A, B) %( BODY %)
size_t Preprocessor::define(std::span<const PTok> in, size_t i) {
  const PTok& at = in[i++];
  if (i >= in.size() || in[i].kind != TokKind::Ident) {
    error(i < in.size() ? in[i] : at, "identifier");
    return in.size();
  }
  const PTok& name_tok = in[i];
  std::string name(text(in[i++]));
  MacroTable::Macro m;
  m.file = in[i - 1].loc.file;
  m.loc = loc(at);
  if (i < in.size() && is(in[i], "(")) {
    ++i;
    if (i < in.size() && is(in[i], ")")) {
      error(in[i], "identifier");  // a parameter name
      return in.size();
    }
    while (i < in.size() && !is(in[i], ")")) {
      if (in[i].kind != TokKind::Ident) {
        error(in[i], "identifier");
        return in.size();
      }
      m.params.emplace_back(text(in[i++]));
      if (i < in.size() && is(in[i], ",")) {
        ++i;
        if (i < in.size() && in[i].kind != TokKind::Ident) {
          error(in[i], "identifier");
          return in.size();
        }
      } else if (i < in.size() && !is(in[i], ")")) {
        error(in[i], "',' or ')'");
        return in.size();
      }
    }
    if (i >= in.size()) {
      error(at, "')' closing the macro parameters");
      return in.size();
    }
    ++i;
  }
  if (i >= in.size() || !is(in[i], PpMark::Open)) {
    error(i < in.size() ? in[i] : at, "'%(' or '('");
    return in.size();
  }
  int depth = 1;
  size_t body_begin = ++i;
  for (; i < in.size(); ++i) {
    if (is(in[i], PpMark::Open)) ++depth;
    if (is(in[i], PpMark::Close) && --depth == 0) break;
  }
  if (i >= in.size()) {
    error_text(name_tok, "incomplete macro definition - missing '%)'");
    return in.size();
  }
  // (The body's tokens as in no expansion: each call's is theirs.)
  m.body.assign(in.begin() + static_cast<ptrdiff_t>(body_begin), in.begin() + static_cast<ptrdiff_t>(i));
  for (Tok& b : m.body) b.expansion = 0;
  m.chosen = pre_choose(m);
  if (!macros_.define(m.file, name, std::move(m), library_)) {
    diags_.report(DiagId::ParseMacroRedefined, where(name_tok), name);
    failed_ = true;
  }
  return i + 1;
}

void Preprocessor::expand(std::span<const PTok> in, int depth) {
  for (size_t i = 0; i < in.size() && !stop_;) {
    const PTok& t = in[i];
    if (t.kind != TokKind::Dollar && t.kind != TokKind::At) {
      // The tokens up to the next $name or @name, emitted in one go.
      const PTok* from = &t;
      const PTok* end = in.data() + in.size();
      const PTok* to = from + 1;
      if (library_) {
        while (to != end && to->kind != TokKind::Dollar && to->kind != TokKind::At) ++to;
      } else {
        // (The file's own tokens, at depth 0, came through no expansion:
        // their view locations are their own.)
        to = depth == 0 ? choose_run<true, true, false>(from, end) : choose_run<true, true>(from, end);
      }
      emitted_ += static_cast<size_t>(to - from);
      i = static_cast<size_t>(to - in.data());
      continue;
    }
    // As stap, nothing is expanded (nor defined) where a conditional drops
    // it: there the token goes on to be dropped.
    if (!library_ && dropping(t)) {
      mark_argument(t);
      emit(t);
      ++i;
      continue;
    }
    // (Most @names and $names are no argument: told by their second byte.)
    if (t.len >= 2 && ((t.text[1] >= '0' && t.text[1] <= '9') || t.text[1] == '#') && argument(t, depth)) {
      ++i;
      continue;
    }
    if (t.kind != TokKind::At) {
      emit(t);
      ++i;
      continue;
    }
    std::string_view at_name = text(t);
    std::string_view name = at_name.substr(1);
    if (name == "define") {
      i = define(in, i);
      continue;
    }
    const MacroTable::Macro* m = macros_.find(file_, name);
    if (!m) {
      // Not a macro: one of the language's @ operators, else an error.
      // Unknown names are reported after conditionals, if they survive.
      emit(t);
      ++i;
      continue;
    }
    // A runaway expansion is reported once and ends all expansion.
    if (depth >= kMaxExpansionDepth) {
      diags_.report(DiagId::ParseMacroDepth, loc(t), name);
      stop_ = failed_ = true;
      return;
    }
    auto too_large = [&](size_t more) {
      if (emitted_ + pending_ + more <= kMaxExpandedTokens) return false;
      diags_.report(DiagId::ParseMacroTooLarge, loc(t), name, kMaxExpandedTokens);
      stop_ = failed_ = true;
      return true;
    };
    if (too_large(0)) return;
    // Arguments: token runs split by commas outside brackets.
    // Each argument is a run of `in` (a view, not a copy).
    Scratch::Level& level = sc_->levels[depth];
    std::vector<std::span<const PTok>>& args = level.args;
    std::vector<size_t>& commas = level.commas;  // where each argument after the first begins
    args.clear();
    commas.clear();
    ++i;
    if (i < in.size() && is(in[i], "(") && (!m->params.empty() || in[i].text == t.text + t.len)) {
      int nest = 0;
      size_t arg_begin = i + 1;
      for (++i; i < in.size(); ++i) {
        if (in[i].kind != TokKind::Op || in[i].len != 1) continue;
        char c = text(in[i])[0];
        if ((c == ')' || c == ']' || c == '}') && nest == 0) break;
        if (c == '(' || c == '[' || c == '{') ++nest;
        if (c == ')' || c == ']' || c == '}') --nest;
        if (c == ',' && nest == 0) {
          args.emplace_back(in.data() + arg_begin, i - arg_begin);
          commas.push_back(i);
          arg_begin = i + 1;
        }
      }
      args.emplace_back(in.data() + arg_begin, std::min(i, in.size()) - arg_begin);
      if (i >= in.size() || !is(in[i], ")")) {
        error(t, "')' closing the arguments of @" + std::string(name));
        emit_failed_call(t);
        return;
      }
      ++i;
      if (args.size() == 1 && args[0].empty() && m->params.empty()) args.clear();
    } else if (!m->params.empty()) {
      // stap's words, at the token after the macro's name.
      error(i < in.size() ? in[i] : t, fmt::format("'(' in invocation of macro '@{}' taking {} parameter{}", name,
                                                   m->params.size(), m->params.size() == 1 ? "" : "s"));
      emit_failed_call(t);
      continue;
    }
    if (args.size() > m->params.size()) {
      // At the comma that starts the first argument too many.
      const PTok& extra = m->params.empty() || commas.size() < m->params.size()
                              ? (args[0].empty() ? in[i - 1] : args[0][0])
                              : in[commas[m->params.size() - 1]];
      error_text(extra, fmt::format("too many parameters for macro '@{}' (expected {})", name, m->params.size()));
      emit_failed_call(t);
      continue;
    }
    if (args.size() < m->params.size()) {
      error_text(i > 0 && i - 1 < in.size() ? in[i - 1] : t,
                 fmt::format("too few parameters for macro '@{}' (expected {})", name, m->params.size()));
      emit_failed_call(t);
      continue;
    }
    uint32_t exp = sm_.add_expansion(at_name, loc(t), t.expansion);
    TokBuffer& body = level.body;
    body.clear();
    // The body as chosen at its definition, where this call would choose
    // the same: where tokens are plainly kept (not read as a condition).
    bool pre_chosen = m->chosen && !library_ && mode_ == Mode::Plain;
    const std::vector<Tok>& src = pre_chosen ? *m->chosen : m->body;
    // The body's own tokens, copied in runs up to each parameter.
    auto copy = [&](const Tok* from, const Tok* to) {
      body.reserve(body.size() + static_cast<size_t>(to - from));
      Tok* w = body.cursor();
      for (; from != to; ++from, ++w) {
        *w = *from;
        w->expansion = exp;
      }
      body.commit(w);
    };
    const Tok* run = src.data();
    const Tok* src_end = src.data() + src.size();
    if (!m->params.empty()) {
      for (const Tok* b = run; b != src_end; ++b) {
        if (b->kind != TokKind::At) continue;
        std::string_view p = b->view().substr(1);
        size_t k = 0;
        while (k < m->params.size() && m->params[k] != p) ++k;
        if (k == m->params.size()) continue;
        copy(run, b);
        run = b + 1;
        // An argument used many times, at every level, multiplies.
        if (too_large(body.size() + args[k].size())) return;
        // Its tokens come through the parameter's expansion, in this
        // one, as stap shows them.
        uint32_t through = sm_.add_expansion(b->view(), b->loc, exp);
        for (PTok a : args[k]) {
          a.expansion = through;
          body.push_back(a);
        }
      }
    }
    copy(run, src_end);
    pending_ += body.size();
    expand(body, depth + 1);
    pending_ -= body.size();
  }
}

// choose() for each token of [p, end), in one tight loop for the common
// case: plain code, kept or dropped (kept: made for the grammar with kMake,
// else as it is). With kStopAtNames, stops at the first $name or @name
// (expansion's to look at) and returns where it stopped. Without
// kExpanded, no token of the run came through an expansion (a file's own
// tokens), and none is given an expanded location.
template <bool kStopAtNames, bool kMake, bool kExpanded>
const PTok* Preprocessor::choose_run(const PTok* p, const PTok* end) {
  // (In locals: a token's stores would make the compiler reload members,
  // and the maker's fields, each token's. They are copied field by field:
  // a copy of the whole maker, after the stores of some of its fields,
  // made the processor wait on those stores at each of the many short
  // runs, between a macro's $names and @names.)
  TokenMaker& made = out_->maker();
  TokenMaker m;  // the fields add() reads, and its problem
  Tok* to;
  ExpandedLoc* expanded;
  int depth;
  const Tok* limit;
  auto load = [&] {
    m.view = made.view;
    m.expanded_base = made.expanded_base;
    m.problem = made.problem;
    m.problem_at = made.problem_at;
    to = made.out;
    expanded = made.expanded;
    depth = made.depth;
    limit = out_->limit();
  };
  auto store = [&] {
    made.out = to;
    made.expanded = expanded;
    made.depth = depth;
    made.problem = m.problem;
    made.problem_at = m.problem_at;
  };
  load();
  Mode mode = mode_;
  bool active = active_;
  for (; p != end; ++p) {
    if ((p->ops & kPreprocess) || mode != Mode::Plain) {
      if (kStopAtNames && (p->kind == TokKind::At || p->kind == TokKind::Dollar)) break;
      store();
      choose(*p);
      load();
      mode = mode_;
      active = active_;
      continue;
    }
    if (active) {
      if (to >= limit) {
        store();
        out_->grow();
        load();
      }
      if constexpr (kMake)
        m.add<kExpanded>(to, expanded, depth, *p);
      else
        *to++ = *p;
    }
  }
  store();
  return p;
}

// A token that is a preprocessor mark, an @name, or anything while a
// condition or definition is read (choose() keeps the other tokens itself).
// `%( COND %? A %: B %)` keeps A or B; conditions are read only where the
// conditional itself is kept.
void Preprocessor::choose_marked(const PTok& t) {
  Holding hold(*this, held_conditionals_);
  switch (mode_) {
    case Mode::Failed: return;
    case Mode::Condition:
      if (is(t, PpMark::Then)) {
        if (sc_->cond.empty()) {
          error(t, "a condition");
          mode_ = Mode::Failed;
          return;
        }
        then_ = t;
        mode_ = Mode::Decide;
        return;
      }
      if (is(t, PpMark::Open) || is(t, PpMark::Close) || is(t, PpMark::Else)) {
        error(frames_.back().open, "'%?' marker for conditional");
        mode_ = Mode::Failed;
        return;
      }
      if (t.kind == TokKind::Error) {
        // A macro call that failed (reported): the condition is not read,
        // and is false, as one that cannot be read.
        cond_failed_call_ = true;
        return;
      }
      sc_->cond.push_back(t);
      return;
    case Mode::Decide:
      decide(&t);
      break;  // and t is read as any other
    case Mode::Definition:
      // Copied up to the '%)' closing its body, the first '%(' opening it.
      if (active_) keep(t);
      if (is(t, PpMark::Open))
        ++definition_depth_;
      else if (is(t, PpMark::Close) && definition_depth_ > 0 && --definition_depth_ == 0)
        mode_ = Mode::Plain;
      return;
    case Mode::Plain: break;
  }
  if (!frames_.empty() && is(t, PpMark::Else)) {
    Frame& f = frames_.back();
    if (f.in_else) {
      error_text(t, "invalid conditional - duplicate '%:'");
      mode_ = Mode::Failed;
      return;
    }
    f.in_else = true;
    active_ = f.outer && !f.taken;
    return;
  }
  if (!frames_.empty() && is(t, PpMark::Close)) {
    active_ = frames_.back().outer;
    frames_.pop_back();
    return;
  }
  if (t.kind == TokKind::At && is(t, "@define")) {
    // A definition's body is delimited by %( %) too: copy it whole.
    if (active_) keep(t);
    mode_ = Mode::Definition;
    definition_depth_ = 0;
    return;
  }
  if (is(t, PpMark::Open)) {
    frames_.push_back({t, active_});
    sc_->cond.clear();
    cond_failed_call_ = false;
    mode_ = Mode::Condition;
    return;
  }
  if (is(t, PpMark::Then) || is(t, PpMark::Else) || is(t, PpMark::Close)) {
    error_text(t, "incomplete conditional - missing '%('");
    mode_ = Mode::Failed;
    return;
  }
  if (active_) keep(t);
}

// The condition read, ended by then_; `after` is the token after the '%?'
// (none at the end of the input).
void Preprocessor::decide(const PTok* after) {
  Frame& f = frames_.back();
  f.taken = f.outer && !cond_failed_call_ && condition(sc_->cond, then_, after);
  active_ = f.taken;
  mode_ = Mode::Plain;
}

void Preprocessor::choose_end() {
  Holding hold(*this, held_conditionals_);
  if (mode_ == Mode::Failed) return;
  if (mode_ == Mode::Decide) decide(nullptr);
  if (mode_ == Mode::Condition) {
    error(frames_.back().open, "'%?' marker for conditional");
  } else if (!frames_.empty()) {
    error_text(frames_.back().open, "incomplete conditional at end of file");
  }
}

uint32_t Preprocessor::run() {
  thread_local Scratch shared;
  Scratch local;
  Scratch& sc = shared.busy ? local : shared;  // (run() does not recurse today)
  sc.busy = true;
  struct Release {
    Scratch& sc;
    ~Release() { sc.busy = false; }
  } release{sc};
  sc_ = &sc;
  if (sc.levels.size() < kMaxExpansionDepth + 2) sc.levels.resize(kMaxExpansionDepth + 2);

  const SourceFile& f = sm_.file(file_);
  TokBuffer& in = sc.in;
  tokenize(f.text, file_, in);
  // An unterminated tail is kept out of the passes (the parser reports it,
  // from the text).
  std::optional<PTok> error;
  if (!in.empty() && in.back().kind == TokKind::Error) {
    error = in.back();
    in.pop_back();
  }
  // Whether anything is there to expand or check after conditionals: a
  // macro call or definition, an unknown @name, or a $1/@1 argument.
  bool expands = false;
  for (const PTok& t : in) {
    if (t.kind == TokKind::At || t.kind == TokKind::Dollar) {
      std::string_view s = t.view();
      bool arg = s.size() > 1 && (s[1] == '#' || (s[1] >= '0' && s[1] <= '9'));
      if (arg || (t.kind == TokKind::At && !is_at_operator(s))) {
        expands = true;
        break;
      }
    }
  }
  // The chosen tokens go straight to where the view will keep them.
  SourceManager::TokenRun out = sm_.start_run(file_);
  out_ = &out;
  auto flush = [&](std::vector<Held>& held) {
    for (const Held& h : held) diags_.report(h.id, h.loc, h.arg);
    held.clear();
  };
  if (library_) {
    // .stpm files: a conditional may choose between definitions, so
    // conditionals come first; the file's only product is its macros.
    choose_run<false, false>(in.begin(), in.end());
    choose_end();
    flush(held_conditionals_);
    expand(out, 0);
    sm_.drop_run(out);
    return file_;
  }
  if (!expands) {
    // Conditionals only (most tapset files): nothing to expand, nothing to
    // check after.
    choose_run<false, true, false>(in.begin(), in.end());
    choose_end();
  } else {
    check_ = true;
    expand(in, 0);
    if (!stop_) choose_end();
  }
  if (stop_) {
    // A runaway expansion (reported): nothing worth parsing, and nothing
    // more to say about what it made.
    out.clear();
    held_conditionals_.clear();
    held_survivors_.clear();
  }
  flush(held_conditionals_);
  flush(held_survivors_);
  // Keep the unterminated tail so that the parser reports it.
  if (error) out.make(*error);

  // The parser reads the chosen tokens themselves (a view of the files
  // they came from), not a text made of them; so also where nothing was
  // expanded or dropped (an '@' in a comment sent the file here), rather
  // than lexing the file again.
  return sm_.add_view(out);
}

// After conditionals: the @names that are no macro nor operator, and the
// arguments past the last given, that a kept branch holds (each an error;
// the token goes).
bool Preprocessor::survives(const PTok& t) {
  Holding hold(*this, held_survivors_);
  std::string_view s = text(t);
  bool arg = s.size() > 1 && s.find_first_not_of("0123456789", 1) == std::string_view::npos;
  if (t.kind == TokKind::At && !arg && !is_at_operator(s)) {
    report(DiagId::ParseUnknownMacro, where(t), std::string(s.substr(1)));
    return false;
  }
  if (arg) report(DiagId::ParseArgRange, where(t), std::to_string(facts_.args.size()));
  return !arg;
}

}  // namespace

const MacroTable::Macro* MacroTable::find(uint32_t file, std::string_view name) const {
  const Slot* s = slots_.find(name);
  if (!s) return nullptr;
  for (uint32_t l = s->local; l; l = locals_[l - 1].next)
    if (locals_[l - 1].file == file) return locals_[l - 1].macro;
  return s->library;
}

bool MacroTable::define(uint32_t file, const std::string& name, Macro m, bool library) {
  Slot& s = slots_.place(name);
  if (s.name.data()) {
    if (library && s.library) {
      // A library file later in the search path (an -I directory after
      // stapx's own tapsets) replaces another file's macro of that name.
      if (s.library->file == file) return false;
      *s.library = std::move(m);
      return true;
    }
    if (!library)
      for (uint32_t l = s.local; l; l = locals_[l - 1].next)
        if (locals_[l - 1].file == file) return false;
  }
  macros_.push_back({name, std::move(m)});
  Macro* made = &macros_.back().macro;
  if (!s.name.data()) s.name = macros_.back().name;
  if (library) {
    s.library = made;
  } else {
    locals_.push_back({file, s.local, made});
    s.local = static_cast<uint32_t>(locals_.size());
  }
  return true;
}

uint32_t preprocess(SourceManager& sm, uint32_t file, const PreprocessFacts& facts, MacroTable& macros,
                    DiagSink& diags, bool library, std::vector<bool>* args_used) {
  if (!needs_preprocessing(sm.file(file).text)) return file;
  return Preprocessor(sm, file, facts, macros, diags, library, args_used).run();
}

}  // namespace stapx
