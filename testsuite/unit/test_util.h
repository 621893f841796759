// Helpers shared by the unit tests: parse or elaborate a script given as
// text, capturing diagnostics.
#pragma once

#include <sstream>
#include <string>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/parse/parser.h"
#include "frontend/printer.h"
#include "translator/elaborate/elaborate.h"

namespace stapx::test {

struct Parsed {
  SourceManager sm;
  ast::Arena arena;
  std::ostringstream diag_text;
  DiagSink diags{sm, diag_text};
  ast::Script* script = nullptr;

  explicit Parsed(const std::string& text) {
    uint32_t f = sm.add("<input>", text);
    script = parse_file(sm, f, arena, diags);
  }
  std::string printed() const {
    std::ostringstream out;
    print_script(out, *script);
    return out.str();
  }
};

}  // namespace stapx::test
