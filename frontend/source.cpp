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

SourceManager::TokenRun SourceManager::start_run(uint32_t source) {
  if (live_view_) {
    files_[live_view_ - 1]->tokens = {};
    live_view_ = 0;
  }
  const SourceFile& from = file(source);
  uint32_t id = add(from.name, std::string(), from.is_tapset);
  SourceFile& v = *files_.back();
  v.is_view = true;
  v.source = source;
  if (!run_capacity_) {
    run_capacity_ = 4096;
    run_buffer_.reset(new Tok[run_capacity_]);
  }
  expanded_room(run_capacity_, 0);
  // The token that is none, before the first (see Tok::glued).
  run_buffer_[0] = none_token();
  TokenRun run;
  run.sm_ = this;
  run.begin_ = run_buffer_.get() + 1;
  // (Room for the two tokens of a split past the limit, and for the End.)
  run.limit_ = run_buffer_.get() + run_capacity_ - 2;
  run.made_ = TokenMaker(run.begin_, expanded_next_, id);
  return run;
}

void SourceManager::expanded_room(size_t n, size_t keep) {
  if (static_cast<size_t>(expanded_end_ - expanded_next_) >= n) return;
  // (A chunk holds many views' locations: 64 Ki of them, 768 KiB.)
  size_t size = std::max<size_t>(n, 64 * 1024);
  std::unique_ptr<ExpandedLoc[]> chunk(new ExpandedLoc[size]);
  if (keep) std::memcpy(chunk.get(), expanded_next_, keep * sizeof(ExpandedLoc));
  expanded_next_ = chunk.get();
  expanded_end_ = chunk.get() + size;
  expanded_chunks_.push_back(std::move(chunk));
}

void SourceManager::grow_run(TokenRun& run) {
  TokenMaker& m = run.made_;
  size_t n = static_cast<size_t>(m.out - run_buffer_.get());
  size_t k = static_cast<size_t>(m.expanded - m.expanded_base);
  size_t size = 2 * run_capacity_;
  std::unique_ptr<Tok[]> bigger(new Tok[size]);
  std::memcpy(static_cast<void*>(bigger.get()), run_buffer_.get(), n * sizeof(Tok));
  run_buffer_ = std::move(bigger);
  run_capacity_ = size;
  run.begin_ = run_buffer_.get() + 1;
  run.limit_ = run_buffer_.get() + size - 2;
  m.out = run_buffer_.get() + n;
  expanded_room(size, k);  // (moves the run's locations if their chunk is full)
  m.expanded_base = expanded_next_;
  m.expanded = m.expanded_base + k;
}

uint32_t SourceManager::add_view(TokenRun& run) {
  const TokenMaker& m = run.made_;
  SourceFile& v = *files_.at(m.view - 1);
  // The end of the input: the end of the file the view is of.
  *m.out = end_token(SourceLoc{v.source, static_cast<uint32_t>(file(v.source).text.size())});
  v.tokens = {run.begin_, run.size() + 1};
  v.expanded = {m.expanded_base, m.expanded};
  expanded_next_ = m.expanded;
  v.problem = m.problem;
  v.problem_at = m.problem_at;
  live_view_ = m.view;
  return m.view;
}

void SourceManager::drop_run(TokenRun& run) {
  if (run.made_.view == files_.size()) files_.pop_back();
}

SourceLoc SourceManager::located(uint32_t file, uint32_t offset, uint32_t expansion) {
  if (!expansion) return {file, offset};
  // A view with no tokens, of the first file it locates in: it only holds
  // these locations.
  if (!located_) {
    located_ = add("<expanded>", std::string());
    files_.back()->is_view = true;
    files_.back()->source = file;
  }
  located_locs_.push_back({file, offset, expansion});
  files_[located_ - 1]->expanded = located_locs_;
  return {located_, static_cast<uint32_t>(located_locs_.size() - 1)};
}

std::pair<SourceLoc, uint32_t> SourceManager::resolve(SourceLoc loc) const {
  if (!loc.valid()) return {loc, 0};
  const SourceFile& f = file(loc.file);
  if (!f.is_view) return {loc, 0};
  // Past the last expanded token: the end of the input, in the real file.
  if (loc.offset >= f.expanded.size()) {
    const SourceFile& src = file(f.source);
    return {SourceLoc{f.source, static_cast<uint32_t>(src.text.size())}, 0};
  }
  const ExpandedLoc& e = f.expanded[loc.offset];
  return {SourceLoc{e.file, e.offset}, e.expansion};
}

std::pair<std::string_view, uint32_t> SourceManager::text_at(SourceLoc loc) const {
  const SourceFile& f = file(loc.file);
  if (!f.is_view) return {f.text, loc.offset};
  if (loc.offset >= f.expanded.size()) return {std::string_view(), 0};
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
