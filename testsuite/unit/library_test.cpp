// Tapset directory selection: stap's kernel-version, runtime and
// architecture subdirectories of each search-path root.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/library.h"

namespace stapx {
namespace {

namespace fs = std::filesystem;

TEST(Library, VersionRuntimeAndArchSubdirectories) {
  fs::path root = fs::temp_directory_path() / ("stapx_library_test_" + std::to_string(::getpid()));
  for (const char* d : {"6.1.0-56-amd64", "6.1.0", "6.1", "6", "5.10", "linux", "x86_64", "linux/x86_64", "i386"})
    fs::create_directories(root / d);
  PreprocessFacts facts;
  facts.kernel_vr = "6.1.0-56-amd64";
  facts.kernel_v = "6.1.0";
  std::vector<std::string> got = library_dirs({root.string()}, facts);
  std::vector<std::string> want;
  for (const char* d : {"6.1.0-56-amd64", "6.1.0", "6.1", "", "linux", "x86_64", "linux/x86_64"})
    want.push_back(*d ? (root / d).string() : root.string());
  EXPECT_EQ(got, want);
  fs::remove_all(root);
}

TEST(Library, ReadTextFileReadsAllOfAFileWhateverItsSize) {
  fs::path root = fs::temp_directory_path() / ("stapx_read_test_" + std::to_string(::getpid()));
  fs::create_directories(root);
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(root / name, std::ios::binary) << text;
    return (root / name).string();
  };
  std::string big(300000, 'x');
  big[0] = 'a';
  big.back() = 'z';
  big[150000] = '\0';  // text with a NUL byte in it is kept whole
  EXPECT_EQ(read_text_file(write("big.stp", big)), big);
  EXPECT_EQ(read_text_file(write("small.stp", "probe begin {}\n")), "probe begin {}\n");
  EXPECT_EQ(read_text_file(write("empty.stp", "")), "");
  EXPECT_EQ(read_text_file((root / "missing.stp").string()), "");
  EXPECT_EQ(read_text_file(root.string()), "");  // a directory
  // A file whose size says nothing (0 in /proc) is read to its end.
  std::string status = read_text_file("/proc/self/status");
  EXPECT_NE(status.find("\nPid:"), std::string::npos) << status;
  fs::remove_all(root);
}

TEST(Library, FileReaderReadsFilesOfSeveralDirectories) {
  fs::path root = fs::temp_directory_path() / ("stapx_reader_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "linux");
  auto write = [&](const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  };
  std::string a = write(root / "a.stp", "probe a {}\n"), b = write(root / "linux" / "b.stp", "probe b {}\n"),
              c = write(root / "c.stp", std::string(100000, 'c'));
  FileReader reader;
  EXPECT_EQ(reader.read(a), "probe a {}\n");
  EXPECT_EQ(reader.read(b), "probe b {}\n");  // another directory
  EXPECT_EQ(reader.read(c), std::string(100000, 'c'));  // and back
  EXPECT_EQ(reader.read((root / "missing.stp").string()), "");
  EXPECT_EQ(reader.read((root / "nodir" / "x.stp").string()), "");
  EXPECT_EQ(reader.read("/proc/self/status").find("Pid:") != std::string::npos, true);
  fs::remove_all(root);
}

}  // namespace
}  // namespace stapx
