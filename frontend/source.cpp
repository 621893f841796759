// Line tables and location rendering for source files.
#include "frontend/source.h"

#include <algorithm>
#include <cstring>

namespace stapx {

uint32_t SourceManager::add(std::string name, std::string text, bool is_tapset) {
  auto f = std::make_unique<SourceFile>();
  f->name = std::move(name);
  f->text = std::move(text);
  f->is_tapset = is_tapset;
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

// Tokens per chunk of the token store (1.25 MB): a few for a whole tapset
// library, and a run that outgrows its chunk is copied once per chunk.
constexpr size_t kStoreChunk = 64 * 1024;

SourceManager::TokenRun SourceManager::start_run() {
  TokenRun run;
  run.sm_ = this;
  run.begin_ = run.end_ = store_end_;
  run.limit_ = store_limit_;
  return run;
}

void SourceManager::grow_run(TokenRun& run) {
  size_t n = run.size();
  size_t size = std::max(kStoreChunk, 2 * n + 64);
  std::unique_ptr<ViewToken[]> chunk(new ViewToken[size]);
  if (n) std::memcpy(chunk.get(), run.begin_, n * sizeof(ViewToken));
  // A chunk that holds no view's tokens yet (the run began it) goes.
  if (!store_.empty() && store_.back().get() == run.begin_) store_.pop_back();
  run.begin_ = chunk.get();
  run.end_ = run.begin_ + n;
  run.limit_ = run.begin_ + size;
  store_end_ = run.begin_;
  store_limit_ = run.limit_;
  store_.push_back(std::move(chunk));
}

uint32_t SourceManager::add_view(std::string name, TokenRun& run, bool is_tapset) {
  uint32_t id = add(std::move(name), std::string(), is_tapset);
  files_.back()->is_view = true;
  files_.back()->tokens = run;
  store_end_ = run.end_;
  run = start_run();
  return id;
}

uint32_t SourceManager::add_expansion(Expansion e) {
  expansions_.push_back(std::move(e));
  return static_cast<uint32_t>(expansions_.size());
}

std::pair<SourceLoc, uint32_t> SourceManager::resolve(SourceLoc loc) const {
  if (!loc.valid()) return {loc, 0};
  const SourceFile& f = file(loc.file);
  if (!f.is_view) return {loc, 0};
  if (f.tokens.empty()) return {SourceLoc{loc.file, 0}, 0};
  // Past the last token (the end of the input): that token.
  const ViewToken& t = f.tokens[std::min<size_t>(loc.offset, f.tokens.size() - 1)];
  return {SourceLoc{t.file, t.tok.begin}, t.expansion};
}

std::pair<std::string_view, uint32_t> SourceManager::text_at(SourceLoc loc) const {
  const SourceFile& f = file(loc.file);
  if (!f.is_view) return {f.text, loc.offset};
  if (loc.offset >= f.tokens.size()) return {std::string_view(), 0};
  SourceLoc real = resolve(loc).first;
  return {file(real.file).text, real.offset};
}

// The file's line table, made on first use.
static const std::vector<uint32_t>& line_table(const SourceFile& f) {
  if (f.line_starts.empty()) {
    f.line_starts.push_back(0);
    const char* base = f.text.data();
    const char* end = base + f.text.size();
    for (const char* p = base; (p = static_cast<const char*>(memchr(p, '\n', end - p))); ++p)
      f.line_starts.push_back(static_cast<uint32_t>(p - base + 1));
  }
  return f.line_starts;
}

LineCol SourceManager::line_col(SourceLoc loc) const {
  if (!loc.valid()) return {};
  loc = resolve(loc).first;
  const SourceFile& f = file(loc.file);
  const std::vector<uint32_t>& starts = line_table(f);
  auto it = std::upper_bound(starts.begin(), starts.end(), loc.offset);
  uint32_t line = static_cast<uint32_t>(it - starts.begin());
  return {line, loc.offset - starts[line - 1] + 1};
}

std::string_view SourceManager::line_text(SourceLoc loc) const {
  if (!loc.valid()) return {};
  loc = resolve(loc).first;
  const SourceFile& f = file(loc.file);
  LineCol lc = line_col(loc);
  size_t begin = line_table(f)[lc.line - 1];
  size_t end = f.text.find('\n', begin);
  if (end == std::string::npos) end = f.text.size();
  return std::string_view(f.text).substr(begin, end - begin);
}

std::string SourceManager::describe(SourceLoc loc) const {
  if (!loc.valid()) return "<unknown>";
  loc = resolve(loc).first;
  LineCol lc = line_col(loc);
  return file(loc.file).name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

}  // namespace stapx
