// The --dump-* listings. Functions are typed by elaborating the whole
// library with nothing elided; its diagnostics are not the user's concern
// here and are dropped.
#include "translator/elaborate/dump.h"

#include <set>
#include <sstream>

#include "frontend/diagnostics.h"
#include "frontend/library.h"
#include "frontend/parse/parser.h"
#include "translator/builtins/builtins.h"
#include "translator/elaborate/elaborate.h"
#include "translator/probes/probe_family.h"

namespace stapx {

void dump_probe_types(std::ostream& out, bool unprivileged) {
  for (const std::string& t : probe_grammar().listed_patterns(unprivileged)) out << t << "\n";
}

namespace {

std::string type_text(ast::Type t) {
  return t == ast::Type::Long ? "long" : t == ast::Type::String ? "string" : "unknown";
}

}  // namespace

int dump_library(std::ostream& out, LibraryDump what, const LibraryFiles& lib,
                 const PreprocessFacts& facts, MacroTable& macros, SourceManager& sm) {
  std::ostringstream sink_text;
  DiagSink diags(sm, sink_text);
  ast::Arena arena;
  std::vector<ast::Script*> scripts;
  for (const std::string& path : lib.scripts) {
    uint32_t file = sm.add(path, read_text_file(path), /*is_tapset=*/true);
    file = preprocess(sm, file, facts, macros, diags);
    scripts.push_back(parse_file(sm, file, arena, diags, ParseOptions{facts.args, true}));
  }
  std::set<std::string> lines;
  if (what == LibraryDump::ProbeAliases) {
    for (ast::Script* s : scripts) {
      for (ast::AliasDecl* a : s->aliases) {
        std::string targets;
        for (ast::ProbePoint* t : a->targets) targets += (targets.empty() ? "" : ", ") + t->to_string();
        for (ast::ProbePoint* n : a->names)
          lines.insert(n->to_string() + (a->epilogue ? " += " : " = ") + targets);
      }
    }
  } else {
    // The library's own probes are left out: one whose point needs debug
    // information this machine lacks would end elaboration before any type
    // is inferred.
    for (ast::Script* s : scripts) s->probes = {};
    ElaborateOptions o;
    o.keep_unused = true;
    o.every_function = true;
    Program prog = elaborate(scripts, o, arena, diags);
    for (ast::Script* s : scripts) {
      for (ast::FunctionDecl* f : s->functions) {
        if (f->is_private || f->name.empty() || f->name[0] == '_') continue;
        std::string params;
        for (size_t i = 0; i < f->params.size(); ++i) {
          ast::Type t = i < f->param_syms.size() ? f->param_syms[i]->type : f->params[i].declared;
          params += (i ? ", " : "") + f->params[i].name + ":" + type_text(t);
        }
        lines.insert(f->name + ":" + type_text(f->type) + " (" + params + ")");
      }
    }
    for (std::string_view name : builtin_names())  // (no parameters: exit)
      if (const BuiltinInfo* b = find_builtin(name); b->library_function)
        lines.insert(std::string(name) + ":" + type_text(b->result) + " ()");
  }
  for (const std::string& l : lines) out << l << "\n";
  return 0;
}

}  // namespace stapx
