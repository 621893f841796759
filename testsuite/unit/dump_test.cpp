// --dump-functions / --dump-probe-aliases / --dump-probe-types in stap's
// formats (checked against stap 4.8 on the same library file).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/library.h"
#include "translator/elaborate/dump.h"

namespace stapx::test {
namespace {

std::string dump(LibraryDump what) {
  // One directory per process: ctest runs these tests in parallel.
  std::string dir = ::testing::TempDir() + "/dump_tapset_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/a.stp") << "function f:long(a:long, b:string) { return a }\n"
                                   "function g(x) { return x . \"\" }\n"
                                   "function h() { println(\"x\") }\n"
                                   "function _hid() { return 1 }\n"
                                   "private function pv() { return 2 }\n"
                                   "function s:long(v) { return v + 1 }\n"
                                   "probe myalias = begin { }\n"
                                   "probe my.two = timer.ms(10), end { }\n"
                                   "probe my.three += begin { }\n"
                                   // A library probe whose point does not
                                   // resolve here stops no inference.
                                   "probe nosuch.point { g(\"\") }\n";
  SourceManager sm;
  PreprocessFacts facts;
  MacroTable macros;
  std::ostringstream out;
  dump_library(out, what, list_library({dir}), facts, macros, sm);
  return out.str();
}

// exit, built in, is listed as stap's library lists it.
TEST(Dump, FunctionsWithInferredTypes) {
  EXPECT_EQ(dump(LibraryDump::Functions),
            "exit:unknown ()\n"
            "f:long (a:long, b:string)\n"
            "g:string (x:string)\n"
            "h:unknown ()\n"
            "s:long (v:long)\n");
}

TEST(Dump, ProbeAliases) {
  EXPECT_EQ(dump(LibraryDump::ProbeAliases),
            "my.three += begin\n"
            "my.two = timer.ms(10), end\n"
            "myalias = begin\n");
}

TEST(Dump, ProbeTypesAreSortedAndIncludeEveryFamily) {
  std::ostringstream out;
  dump_probe_types(out);
  std::string s = out.str();
  EXPECT_EQ(s.rfind("begin\nbegin(number)\nend\nend(number)\n", 0), 0u) << s;
  EXPECT_NE(s.find("\nkprobe.function(string).return\n"), std::string::npos);
  EXPECT_NE(s.find("\ntimer.ms(number).randomize(number)\n"), std::string::npos);
  EXPECT_NE(s.find("\nnever\n"), std::string::npos);
}

}  // namespace
}  // namespace stapx::test
