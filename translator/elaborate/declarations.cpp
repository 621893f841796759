// Globals and functions as the scripts declare them (duplicates are
// errors; overloads by parameter count get C names of their own), and the
// initial values -G gives globals once their types are known.
#include "translator/elaborate/elaboration.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "translator/builtins/builtins.h"

namespace stapx::elab {

using namespace ast;

void collect_declarations(Elaboration& elab) {
  for (Script* script : elab.prog.scripts) {
    for (GlobalDecl* g : script->globals) {
      if (elab.globals.count(g->name)) {
        elab.diags.report(DiagId::SemDuplicateGlobal, g->loc, g->name);
        continue;
      }
      Symbol* sym = elab.new_symbol(g->name, Symbol::Scope::Global, g->loc);
      sym->index = static_cast<int>(elab.prog.globals.size());
      if (g->sized) {
        sym->arity = -2;  // an array of unknown arity
        sym->max_entries = g->max_entries;
      }
      sym->wrap = g->wrap;
      if (g->init) {
        if (g->init->kind == ExprKind::Number || g->init->kind == ExprKind::String ||
            (g->init->kind == ExprKind::Unary &&
             static_cast<UnaryExpr*>(g->init)->operand->kind == ExprKind::Number)) {
          sym->init = g->init;
          sym->arity = 0;
          sym->assigned = true;
          Type t = g->init->kind == ExprKind::String ? Type::String : Type::Long;
          sym->type = t;
          sym->type_site = g->init->loc;
          sym->fixed_type = true;
        } else {
          elab.diags.report(DiagId::SemBadInitializer, g->init->loc);
        }
      }
      g->sym = sym;
      elab.globals[g->name] = sym;
      elab.prog.globals.push_back(sym);
    }
    for (FunctionDecl* f : script->functions) {
      auto& by_arity = elab.overloads[f->name];
      if (by_arity.count(f->params.size()) || find_builtin(f->name)) {
        elab.diags.report(DiagId::SemDuplicateFunction, f->loc, f->name);
        continue;
      }
      if (by_arity.empty()) {
        elab.functions[f->name] = f;
      } else {
        elab.functions[f->name + "/" + std::to_string(f->params.size())] = f;
        f->c_name = f->name + "__" + std::to_string(f->params.size());
        for (auto& [n, other] : by_arity)
          if (other->c_name.empty()) other->c_name = other->name + "__" + std::to_string(n);
      }
      by_arity[f->params.size()] = f;
    }
  }
}

// -G NAME=VALUE replaces NAME's initializer, as stap's module parameters do:
// a number for a long global, the text for a string one. Like stap, a name
// that is no global of the script is ignored, and -G types nothing.
void apply_global_values(Elaboration& elab) {
  const auto& values = elab.opts.global_values;
  for (const auto& [name, value] : values) {
    auto it = elab.globals.find(name);
    if (it == elab.globals.end() || !elab.referenced.count(it->second)) continue;
    Symbol* g = it->second;
    if (g->arity > 0) {
      elab.diags.report(DiagId::SemGlobalValue, g->decl, name, "it is an array");
      continue;
    }
    if (g->type == Type::String) {
      auto* lit = elab.arena.make<StringLit>(g->decl);
      lit->value = elab.arena.keep(value);
      g->init = lit;
    } else if (g->type == Type::Long) {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(value.c_str(), &end, 0);
      if (*end || errno) {
        elab.diags.report(DiagId::SemGlobalValue, g->decl, name, "'" + value + "' is not a number");
        continue;
      }
      auto* lit = elab.arena.make<NumberLit>(g->decl);
      lit->value = v;
      g->init = lit;
    } else {
      continue;  // unresolved: reported below
    }
    g->assigned = true;
  }
}

}  // namespace stapx::elab
