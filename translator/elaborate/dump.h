// --dump-functions, --dump-probe-aliases and --dump-probe-types: what the
// library and the probe families offer, in stap's formats.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "frontend/library.h"
#include "frontend/preprocess.h"
#include "frontend/source.h"

namespace stapx {

// "begin", "timer.ms(number)", ...: every family's point shapes, sorted;
// with `unprivileged`, those --privilege=stapusr allows.
void dump_probe_types(std::ostream& out, bool unprivileged = false);

// Parses every library file (.stp) of `lib` and prints, sorted by name, either
// each public function as "name:type (param:type, ...)" (types inferred
// across the library; "unknown" for none) or each probe alias as
// "name = point, point" ("+=" for an epilogue alias). Returns 0.
enum class LibraryDump { Functions, ProbeAliases };
int dump_library(std::ostream& out, LibraryDump what, const LibraryFiles& lib,
                 const PreprocessFacts& facts, MacroTable& macros, SourceManager& sm);

}  // namespace stapx
