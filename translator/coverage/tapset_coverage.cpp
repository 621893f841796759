// -q's coverage record (tapset_coverage.h).
#include "translator/coverage/tapset_coverage.h"

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <set>
#include <tuple>

#include "support/cache.h"

namespace stapx {

namespace {

// stap's codes for what a row counts (its `type` column).
enum class Kind { Probe = 1, Function = 2, Global = 4 };

struct Row {
  std::string file;
  uint32_t line, col;
  Kind kind;
  std::string name;
  bool operator<(const Row& o) const {
    return std::tie(file, line, col, kind, name) < std::tie(o.file, o.line, o.col, o.kind, o.name);
  }
};

}  // namespace

std::string coverage_database(const std::string& release) {
  std::string dir = support::cache_dir();
  return dir.empty() ? "" : dir + "/coverage/" + release + ".db";
}

bool record_coverage(const Program& prog, const SourceManager& sm, const std::string& database, std::string& error) {
  // Each kept thing once per run: a probe's several points (wildcards,
  // an alias's targets) count as its one declaration.
  std::set<Row> rows;
  auto add = [&](SourceLoc at, Kind kind, const std::string& name) {
    if (!at.valid()) return;
    SourceLoc real = sm.resolve(at).first;
    LineCol lc = sm.line_col(real);
    rows.insert(Row{sm.file(real.file).name, lc.line, lc.col, kind, name});
  };
  for (const ProbeSpec& p : prog.probes) {
    // The probe as the script names it: its point (an alias's name, not
    // the kernel points the alias expands to), where it is written.
    if (p.decl && p.decl->alias_at.valid()) add(p.decl->alias_at, Kind::Probe, p.decl->pn);
    else if (p.point) add(p.point->loc, Kind::Probe, p.point->to_string());
  }
  for (const ast::FunctionDecl* f : prog.functions) add(f->name_loc, Kind::Function, f->name);
  for (const ast::Symbol* g : prog.globals) add(g->decl, Kind::Global, g->name);

  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(database).parent_path(), ec);
  sqlite3* raw = nullptr;
  int rc = sqlite3_open(database.c_str(), &raw);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  auto failed = [&](const char* what) {
    error = std::string(what) + " " + database + ": " + (db ? sqlite3_errmsg(db.get()) : sqlite3_errstr(rc));
    return false;
  };
  if (rc != SQLITE_OK) return failed("cannot open");
  sqlite3_busy_timeout(db.get(), 10000);  // (another stapx -q may be writing)
  const char* schema =
      "CREATE TABLE IF NOT EXISTS counts (file text, line integer, col integer, type text, name text, "
      "parent text, compiled integer, executed integer);"
      "CREATE UNIQUE INDEX IF NOT EXISTS tokens on counts (file, line, col, type, name);"
      "BEGIN IMMEDIATE;";
  if (sqlite3_exec(db.get(), schema, nullptr, nullptr, nullptr) != SQLITE_OK) return failed("cannot write");
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(db.get(),
                         "INSERT INTO counts VALUES (?1, ?2, ?3, ?4, ?5, '', 1, 0) "
                         "ON CONFLICT (file, line, col, type, name) DO UPDATE SET compiled = compiled + 1",
                         -1, &raw_stmt, nullptr) != SQLITE_OK)
    return failed("cannot write");
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> insert(raw_stmt, sqlite3_finalize);
  for (const Row& r : rows) {
    sqlite3_bind_text(insert.get(), 1, r.file.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert.get(), 2, r.line);
    sqlite3_bind_int64(insert.get(), 3, r.col);
    sqlite3_bind_int(insert.get(), 4, static_cast<int>(r.kind));
    sqlite3_bind_text(insert.get(), 5, r.name.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(insert.get()) != SQLITE_DONE) return failed("cannot write");
    sqlite3_reset(insert.get());
  }
  insert.reset();
  if (sqlite3_exec(db.get(), "COMMIT;", nullptr, nullptr, nullptr) != SQLITE_OK) return failed("cannot write");
  return true;
}

}  // namespace stapx
