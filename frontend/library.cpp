// Tapset directory selection and library macro loading.
#include "frontend/library.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stapx {

namespace fs = std::filesystem;

std::vector<std::string> library_dirs(const std::vector<std::string>& search_path,
                                      const PreprocessFacts& facts) {
  std::vector<std::string> out;
  std::error_code ec;
  auto add = [&](const fs::path& p) {
    if (fs::is_directory(p, ec)) out.push_back(p.string());
  };
  const std::string runtime_dir = facts.runtime == "kernel" ? "linux" : facts.runtime;
  for (const std::string& root : search_path) {
    fs::path r(root);
    add(r);
    add(r / runtime_dir);
    add(r / facts.arch);
    add(r / runtime_dir / facts.arch);
  }
  return out;
}

size_t load_library_macros(SourceManager& sm, const std::vector<std::string>& dirs,
                           const PreprocessFacts& facts, MacroTable& macros, DiagSink& diags) {
  size_t n = 0;
  for (const std::string& dir : dirs) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".stpm" && e.is_regular_file(ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      uint32_t id = sm.add(f.string(), ss.str(), /*is_tapset=*/true);
      preprocess(sm, id, facts, macros, diags, /*library=*/true);
      ++n;
    }
  }
  return n;
}

}  // namespace stapx
