// Tapset indexing and linking (see tapsets.h). The index comes from a token
// scan, not a parse: "function NAME", "probe NAME[, NAME] =" / "+=" and
// "global NAME[, NAME]" (not "private global").
#include "translator/elaborate/tapsets.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/ast_visitor.h"
#include "frontend/lexer.h"
#include "frontend/library.h"
#include "frontend/parse/parser.h"
#include "support/cache.h"
#include "support/glob.h"
#include "translator/builtins/builtins.h"
#include "translator/probes/probe_family.h"

namespace stapx {

using namespace ast;

namespace {

// Probe point names as written before "=" / "+=": "syscall.read", "a.b.return".
void scan_file(const std::string& path, std::map<std::string, std::vector<std::string>>& functions,
               std::vector<std::pair<std::string, std::string>>& aliases,
               std::map<std::string, std::vector<std::string>>& globals) {
  std::string text = read_text_file(path);
  std::vector<Tok> toks = tokenize(text);
  auto txt = [&](size_t i) { return i < toks.size() ? toks[i].view() : std::string_view(); };
  for (size_t i = 0; i < toks.size(); ++i) {
    if (txt(i) == "function" && i + 1 < toks.size() && toks[i + 1].kind == TokKind::Ident) {
      functions[std::string(txt(i + 1))].push_back(path);
    } else if (txt(i) == "global" && (i == 0 || txt(i - 1) != "private")) {
      // NAME [N] [%] [= literal], ... : the names at the start of each item.
      size_t j = i + 1;
      while (j < toks.size() && toks[j].kind == TokKind::Ident) {
        globals[std::string(txt(j++))].push_back(path);
        if (txt(j) == "[")
          while (j < toks.size() && txt(j++) != "]") {
          }
        if (txt(j) == "%") ++j;
        if (txt(j) == "=") j += txt(j + 1) == "-" ? 3 : 2;
        if (txt(j) != ",") break;
        ++j;
      }
    } else if (txt(i) == "probe") {
      // Collect NAME(, NAME)* and keep them if an alias operator follows.
      std::vector<std::string> names;
      std::string cur;
      size_t j = i + 1;
      for (; j < toks.size(); ++j) {
        std::string_view t = txt(j);
        if (toks[j].kind == TokKind::Ident || t == "." || t == "*") {
          cur += t;
        } else if (t == ",") {
          names.push_back(cur);
          cur.clear();
        } else {
          break;
        }
      }
      names.push_back(cur);
      if (txt(j) == "=" || txt(j) == "+=")
        for (const std::string& n : names) aliases.emplace_back(n, path);
    }
  }
}

// Every call name, variable name and probe point in a script.
struct Needs : Visitor<Needs, true> {
  std::set<std::string> calls;
  std::set<std::string> vars;
  std::vector<const ProbePoint*> points;
  void visit_call(const CallExpr* c) {
    calls.insert(c->name.str());
    walk(c);
  }
  void visit_var(const VarRef* v) { vars.insert(v->name.str()); }
};

Needs needs_of(const Script& script) {
  Needs n;
  for (const ProbeDecl* p : script.probes) {
    for (const ProbePoint* pt : p->points) n.points.push_back(pt);
    n.visit(p->body);
  }
  for (const AliasDecl* a : script.aliases) {
    for (const ProbePoint* pt : a->targets) n.points.push_back(pt);
    n.visit(a->body);
    n.visit(a->second);
  }
  for (const FunctionDecl* f : script.functions) n.visit(f->body);
  return n;
}

}  // namespace

// The index of a tapset tree is cached (under support::cache_dir()) keyed by
// every file's path, size and modification time: a changed, added or
// removed file makes a new key.
// Cache format: "stapx-tapset-index 2", then "F name\tpath", "A alias\tpath"
// and "G global\tpath" lines.
constexpr const char* kIndexMagic = "stapx-tapset-index 2";

TapsetIndex::TapsetIndex(const LibraryFiles& lib) {
  const std::vector<std::string>& files = lib.scripts;
  files_ = files.size();
  std::string key;
  for (const std::string& f : files) {
    struct stat st;
    if (stat(f.c_str(), &st) != 0) continue;
    key += f + "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + "\n";
  }
  std::string dir = support::cache_dir();
  std::string cache = dir.empty() ? "" : dir + "/tapset-index-" + std::to_string(std::hash<std::string>{}(key)) + ".txt";
  if (cache.empty() || !read_cache(cache)) {
    for (const std::string& f : files) scan_file(f, functions_, aliases_, globals_);
    if (!cache.empty()) write_cache(cache);
  }
  for (size_t i = 0; i < aliases_.size(); ++i) alias_at_[aliases_[i].first].push_back(i);
}

bool TapsetIndex::read_cache(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line) || line != kIndexMagic) return false;
  std::map<std::string, std::vector<std::string>> functions, globals;
  std::vector<std::pair<std::string, std::string>> aliases;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (line.size() < 3 || line[1] != ' ' || tab == std::string::npos) return false;
    std::string name = line.substr(2, tab - 2), path = line.substr(tab + 1);
    if (line[0] == 'F')
      functions[name].push_back(path);
    else if (line[0] == 'A')
      aliases.emplace_back(name, path);
    else if (line[0] == 'G')
      globals[name].push_back(path);
    else
      return false;
  }
  functions_ = std::move(functions);
  aliases_ = std::move(aliases);
  globals_ = std::move(globals);
  return true;
}

void TapsetIndex::write_cache(const std::string& file) const {
  std::ostringstream out;
  out << kIndexMagic << '\n';
  for (const auto& [name, paths] : functions_)
    for (const std::string& p : paths) out << "F " << name << '\t' << p << '\n';
  for (const auto& [name, path] : aliases_) out << "A " << name << '\t' << path << '\n';
  for (const auto& [name, paths] : globals_)
    for (const std::string& p : paths) out << "G " << name << '\t' << p << '\n';
  support::write_cache_file(file, out.str());
}

std::vector<std::string> TapsetIndex::files_for_function(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> TapsetIndex::files_for_global(const std::string& name) const {
  auto it = globals_.find(name);
  return it == globals_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string_view> TapsetIndex::function_names() const {
  std::vector<std::string_view> out;
  out.reserve(functions_.size());
  for (const auto& [name, files] : functions_) out.push_back(name);
  return out;
}

std::vector<std::string_view> TapsetIndex::alias_names() const {
  std::vector<std::string_view> out;
  out.reserve(aliases_.size());
  for (const auto& [name, file] : aliases_) out.push_back(name);
  return out;
}

std::vector<std::string> TapsetIndex::files_for_point(const ProbePoint& point) const {
  // The point's dotted names, without arguments: "syscall.*" or "vfs.read";
  // and each beginning of them, which may be an alias with a suffix after
  // it (perf.sw.cpu_clock.sample(1000)).
  std::vector<std::string> patterns;
  std::string pattern;
  for (const ProbePointComponent& c : point.components)
    patterns.push_back(pattern += (pattern.empty() ? "" : ".") + c.name);
  // A name without wildcards is looked up; a glob is matched against every
  // alias. (Linking the syscall library asks for thousands of literal
  // names: matching each against every alias cost half a second.)
  std::vector<size_t> hits;
  bool globs = false;
  for (const std::string& p : patterns) {
    if (support::is_glob(p)) {
      globs = true;
      continue;
    }
    if (auto it = alias_at_.find(p); it != alias_at_.end()) hits.insert(hits.end(), it->second.begin(), it->second.end());
  }
  if (globs)
    for (size_t i = 0; i < aliases_.size(); ++i)
      for (const std::string& p : patterns)
        if (support::is_glob(p) && support::glob_match(p, aliases_[i].first)) {
          hits.push_back(i);
          break;
        }
  std::sort(hits.begin(), hits.end());
  hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
  std::vector<std::string> out;
  for (size_t i : hits) out.push_back(aliases_[i].second);
  return out;
}

size_t link_tapsets(std::vector<Script*>& scripts, SourceManager& sm, Arena& arena, DiagSink& diags,
                    const LinkInputs& in) {
  std::set<std::string> loaded;
  size_t parsed = 0;
  for (size_t next = 0; next < scripts.size(); ++next) {
    Needs n = needs_of(*scripts[next]);
    std::set<std::string> defined, declared;
    for (const Script* s : scripts) {
      for (const FunctionDecl* f : s->functions) defined.insert(f->name);
      for (const GlobalDecl* g : s->globals) declared.insert(g->name);
    }
    std::vector<std::string> wanted;
    for (const std::string& call : n.calls)
      if (!defined.count(call) && !find_builtin(call))
        for (const std::string& f : in.index->files_for_function(call)) wanted.push_back(f);
    // A variable no script declares may be a library global (argv), as
    // in stap: its file comes in and the name resolves to the global.
    for (const std::string& var : n.vars)
      if (!declared.count(var))
        for (const std::string& f : in.index->files_for_global(var)) wanted.push_back(f);
    // (A built-in family's name may begin aliases too: perf.sw.cpu_clock.)
    for (const ProbePoint* pt : n.points)
      for (const std::string& f : in.index->files_for_point(*pt)) wanted.push_back(f);
    FileReader reader;
    for (const std::string& path : wanted) {
      if (!loaded.insert(path).second) continue;
      uint32_t file = sm.add(path, reader.read(path), /*is_tapset=*/true);
      file = preprocess(sm, file, *in.facts, *in.macros, diags);
      scripts.push_back(parse_file(sm, file, arena, diags, ParseOptions{in.facts->args, true}));
      ++parsed;
    }
  }
  return parsed;
}

}  // namespace stapx
