// Line tables and location rendering for source files.
#include "frontend/source.h"

#include <algorithm>

namespace stapx {

uint32_t SourceManager::add(std::string name, std::string text, bool is_tapset) {
  auto f = std::make_unique<SourceFile>();
  f->name = std::move(name);
  f->text = std::move(text);
  f->is_tapset = is_tapset;
  f->line_starts.push_back(0);
  for (uint32_t i = 0; i < f->text.size(); ++i)
    if (f->text[i] == '\n') f->line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

LineCol SourceManager::line_col(SourceLoc loc) const {
  if (!loc.valid()) return {};
  const SourceFile& f = file(loc.file);
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), loc.offset);
  uint32_t line = static_cast<uint32_t>(it - f.line_starts.begin());
  return {line, loc.offset - f.line_starts[line - 1] + 1};
}

std::string_view SourceManager::line_text(SourceLoc loc) const {
  if (!loc.valid()) return {};
  const SourceFile& f = file(loc.file);
  LineCol lc = line_col(loc);
  size_t begin = f.line_starts[lc.line - 1];
  size_t end = f.text.find('\n', begin);
  if (end == std::string::npos) end = f.text.size();
  return std::string_view(f.text).substr(begin, end - begin);
}

std::string SourceManager::describe(SourceLoc loc) const {
  if (!loc.valid()) return "<unknown>";
  LineCol lc = line_col(loc);
  return file(loc.file).name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

}  // namespace stapx
