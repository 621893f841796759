// -q: stap's tapset coverage record. After pass 2, every probe, function
// and global the elaborated program kept is counted in a SQLite database
// per kernel release, in the table stap -q keeps (counts: file, line,
// col, type, name, parent, compiled, executed; one row per place and
// kind, `compiled` counting the runs that kept it), so that the queries
// people run on stap's ~/.systemtap/RELEASE.db read stapx's
// ~/.cache/stapx/coverage/RELEASE.db as well. Across many scripts it shows
// which parts of the library they use, and which none does.
#pragma once

#include <string>

#include "frontend/source.h"
#include "translator/elaborate/program.h"

namespace stapx {

// The database -q writes for `release`; empty when there is no cache
// directory (neither XDG_CACHE_HOME nor HOME).
std::string coverage_database(const std::string& release);

// Adds this program's probes (type 1), functions (type 2) and globals
// (type 4) to `database`. False after setting `error`.
bool record_coverage(const Program& prog, const SourceManager& sm, const std::string& database, std::string& error);

}  // namespace stapx
