// The tapset library's layout on disk: which directories of a search path
// apply to the target (stap's rule: the directory itself, its runtime
// subdirectory "linux", and their architecture subdirectories), and loading
// the library macros (.stpm files) from them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/preprocess.h"

namespace stapx {

// The tapset directories of each search-path root that exist, in search
// order: the kernel-version subdirectories (release, version, major.minor),
// the root, then its runtime and architecture subdirectories.
std::vector<std::string> library_dirs(const std::vector<std::string>& search_path,
                                      const PreprocessFacts& facts);

// The library files of `dirs`, from one listing of each directory: the
// scripts (.stp) and the macro files (.stpm), each directory's files sorted
// by name, directories in order.
struct LibraryFiles {
  std::vector<std::string> scripts;
  std::vector<std::string> macros;
};
LibraryFiles list_library(const std::vector<std::string>& dirs);

// A whole file as text; empty when it cannot be read.
std::string read_text_file(const std::string& path);

// read_text_file() for many files, most in a few directories (a pass 1's
// tapsets): each is opened relative to its directory, held open from one
// file to the next of the same directory while the reader lives, so that
// the kernel does not walk the whole path again for every file.
class FileReader {
 public:
  FileReader() = default;
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  ~FileReader();
  std::string read(const std::string& path);

 private:
  std::string dir_;
  int dir_fd_ = -1;
};

// Defines every macro of every .stpm file of `lib` as a library macro.
// Returns the number of files read.
size_t load_library_macros(SourceManager& sm, const LibraryFiles& lib, const PreprocessFacts& facts,
                           MacroTable& macros, DiagSink& diags);

}  // namespace stapx
