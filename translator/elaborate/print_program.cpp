// The -p2 listing: globals, functions and probes with their locals, laid
// out like stap's pass-2 output.
#include <ostream>

#include "translator/elaborate/elaborate.h"

namespace stapx {

using namespace ast;

namespace {

std::string symbol_text(const Symbol* s) {
  std::string out = s->name + ":" + type_name(s->type);
  if (s->arity > 0) {
    out += " [";
    for (size_t i = 0; i < s->key_types.size(); ++i) {
      if (i) out += ", ";
      out += type_name(s->key_types[i]);
    }
    out += "]";
  }
  return out;
}

void print_locals(std::ostream& out, const std::vector<Symbol*>& locals, size_t skip) {
  if (locals.size() <= skip) return;
  out << "  # locals\n";
  for (size_t i = skip; i < locals.size(); ++i) out << "  " << symbol_text(locals[i]) << "\n";
}

}  // namespace

void print_program(std::ostream& out, const Program& prog) {
  if (!prog.globals.empty()) out << "# globals\n";
  for (const Symbol* g : prog.globals) out << symbol_text(g) << "\n";
  if (!prog.functions.empty()) out << "# functions\n";
  for (const FunctionDecl* f : prog.functions) {
    out << f->name << ":" << type_name(f->type) << " (";
    for (size_t i = 0; i < f->param_syms.size(); ++i) {
      if (i) out << ", ";
      out << symbol_text(f->param_syms[i]);
    }
    out << ")\n";
    print_locals(out, f->locals, f->param_syms.size());
  }
  out << "# probes\n";
  const ProbeDecl* last = nullptr;
  for (const ProbeSpec& p : prog.probes) {
    out << p.pp << " /* <- " << p.point->to_string(true) << " */\n";
    if (p.decl != last) print_locals(out, p.decl->locals, 0);
    last = p.decl;
  }
}

}  // namespace stapx
