// The DWARF resolver (translator/debuginfo/dwarf.cpp) on a fixture library
// compiled with gcc -g -O2 from testsuite/fixtures/dwarf_fixture.{h,c}:
// function sites, parameters at entry, types, member layout, find_type.
// Expected layouts come from the same header compiled into this test
// (offsetof, and bitfields measured by setting them in a real object).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "testsuite/fixtures/dwarf_fixture.h"
#include "testsuite/fixtures/dwarf_fixture_opaque.h"
#include "translator/debuginfo/debuginfo.h"

namespace stapx::debug {
namespace {

const std::string kFixture = STAPX_DWARF_FIXTURE;
const std::string kFixtureDw4 = STAPX_DWARF_FIXTURE_DW4;
const std::string kFixtureNoDebug = STAPX_DWARF_FIXTURE_NODEBUG;
const std::string kFixtureRel = STAPX_DWARF_FIXTURE_REL;
const std::string kFixtureSource = std::string(STAPX_SOURCE_DIR) + "/testsuite/fixtures/dwarf_fixture.c";

// One DebugInfo per fixture file for the whole run: opening is cheap, but
// sharing also checks that answers do not depend on what was asked before.
DebugInfo& fixture(const std::string& path) {
  static std::map<std::string, std::unique_ptr<DebugInfo>> open;
  auto& d = open[path];
  if (!d) {
    std::string error;
    d = open_dwarf(path, error);
    if (!d) ADD_FAILURE() << "open_dwarf(" << path << "): " << error;
  }
  return *d;
}

// The line of the fixture source that contains `text` (1-based), 0 if none.
int source_line(const std::string& text) {
  std::ifstream in(kFixtureSource);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

const Variable* find_var(const std::vector<Variable>& vars, const std::string& name) {
  for (const Variable& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

// Where a bitfield really is: set it to all ones in a zeroed object and see
// which bits changed. {first bit, width}.
struct BitSpan {
  uint64_t first = 0;
  uint32_t width = 0;
  bool operator==(const BitSpan&) const = default;
};
template <typename T, typename Set>
BitSpan measure(Set set) {
  T obj;
  std::memset(static_cast<void*>(&obj), 0, sizeof obj);
  set(obj);
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &obj, sizeof obj);
  BitSpan span;
  bool seen = false;
  for (size_t bit = 0; bit < sizeof(T) * 8; ++bit) {
    if (!(bytes[bit / 8] >> (bit % 8) & 1)) continue;
    if (!seen) span.first = bit;
    seen = true;
    ++span.width;
  }
  return span;
}
#define BITS_OF(T, field) measure<T>([](T& o) { o.field = 0; o.field = ~o.field; })

std::ostream& operator<<(std::ostream& out, const BitSpan& s) {
  return out << "{first " << s.first << ", width " << s.width << "}";
}

class Dwarf : public ::testing::TestWithParam<std::string> {
 protected:
  DebugInfo& di() { return fixture(GetParam()); }
  ProbeSite site(const std::string& fn) {
    std::vector<ProbeSite> sites = di().function_sites(fn, false);
    EXPECT_EQ(sites.size(), 1u) << fn;
    return sites.empty() ? ProbeSite{} : sites[0];
  }
  const DType* type(const std::string& name) {
    const DType* t = di().find_type(name);
    EXPECT_NE(t, nullptr) << name;
    return t;
  }
  // A member's bit offset (looking through anonymous members), or -1.
  static int64_t bit_offset(const DType* t, const std::string& member) {
    uint64_t off = 0;
    return t->find_member(member, off) ? static_cast<int64_t>(off) : -1;
  }
  static BitSpan bits(const DType* t, const std::string& member) {
    uint64_t off = 0;
    const Member* m = t->find_member(member, off);
    if (!m) return {~0ull, 0};
    return {off, m->bit_size};
  }
};

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param == kFixtureDw4 ? "Dwarf4" : info.param == kFixtureRel ? "Relocatable" : "Dwarf5";
}
// Relocatable: an ET_REL object, as a kernel module is.
INSTANTIATE_TEST_SUITE_P(Fixture, Dwarf, ::testing::Values(kFixture, kFixtureDw4, kFixtureRel), param_name);

// ---- opening ----

TEST(DwarfOpen, SourceNamesTheFile) {
  EXPECT_EQ(fixture(kFixture).source(), "DWARF from " + kFixture);
}

TEST(DwarfOpen, FileWithoutDwarf) {
  std::string error;
  EXPECT_EQ(open_dwarf(kFixtureNoDebug, error), nullptr);
  EXPECT_EQ(error, kFixtureNoDebug + " has no DWARF debug information");
}

TEST(DwarfOpen, MissingFile) {
  std::string error;
  EXPECT_EQ(open_dwarf("/nonexistent/vmlinux-0", error), nullptr);
  EXPECT_EQ(error, "cannot open /nonexistent/vmlinux-0: No such file or directory");
}

TEST(DwarfOpen, NotAnElfFile) {
  std::string error;
  EXPECT_EQ(open_dwarf(kFixtureSource, error), nullptr);
  EXPECT_EQ(error, kFixtureSource + " is not an ELF file");
}

// ---- function sites ----

TEST_P(Dwarf, ExactNameGivesOneSiteAtTheSymbol) {
  ProbeSite s = site("fx_many");
  EXPECT_EQ(s.function, "fx_many");
  EXPECT_EQ(s.symbol, "fx_many");
  EXPECT_EQ(s.symbol_offset, 0u);
  EXPECT_EQ(std::optional<uint64_t>(s.addr), di().symbol_address("fx_many"));
  EXPECT_NE(s.addr, 0u);
  EXPECT_FALSE(s.inlined);
  EXPECT_TRUE(s.at_entry);
  ASSERT_NE(s.return_type, nullptr);
  EXPECT_EQ(s.return_type->to_string(), "long int");
}

TEST_P(Dwarf, DeclFileAndLine) {
  ProbeSite s = site("fx_many");
  const std::string suffix = "testsuite/fixtures/dwarf_fixture.c";
  EXPECT_TRUE(s.decl_file.size() >= suffix.size() &&
              s.decl_file.compare(s.decl_file.size() - suffix.size(), suffix.size(), suffix) == 0)
      << s.decl_file;
  EXPECT_EQ(s.decl_line, source_line("FX long fx_many("));
  ProbeSite d = site("fx_opaque_get");
  EXPECT_NE(d.decl_file.find("dwarf_fixture_def.c"), std::string::npos) << d.decl_file;
  EXPECT_GT(d.decl_line, 0);
}

TEST_P(Dwarf, Wildcards) {
  auto names = [&](const std::string& pattern) {
    std::vector<std::string> out;
    for (const ProbeSite& s : di().function_sites(pattern, false)) out.push_back(s.function);
    return out;
  };
  EXPECT_EQ(names("fx_take_*"), (std::vector<std::string>{"fx_take_bits", "fx_take_outer"}));
  EXPECT_EQ(names("fx_?oid"), (std::vector<std::string>{"fx_void"}));
  EXPECT_EQ(names("fx_[mv]*"), (std::vector<std::string>{"fx_many", "fx_void"}));
  EXPECT_EQ(names("fx_*"),
            (std::vector<std::string>{"fx_build", "fx_calls_clone", "fx_calls_inline", "fx_calls_twice", "fx_cloned",
                                      "fx_cold_path", "fx_consts", "fx_entry_value", "fx_kinds", "fx_many",
                                      "fx_opaque_get", "fx_pair_sum", "fx_same_name", "fx_same_name", "fx_small_sum",
                                      "fx_split", "fx_take_bits",
                                      "fx_take_outer", "fx_twice", "fx_use_opaque", "fx_void"}));
  EXPECT_TRUE(names("nosuch*").empty());
  EXPECT_TRUE(names("fx_take").empty());  // a prefix is not a match
  EXPECT_TRUE(names("fx_sink").empty());  // a variable, not a function
  EXPECT_TRUE(names("nosuch").empty());
}

// Kprobes are registered by name, and the kernel takes a name's first
// symbol: the two static fx_same_name functions are each attached by a
// function before them whose name is unique, at their own address. A
// function whose name is unique needs no anchor.
TEST_P(Dwarf, SharedNamesAreAttachedByAUniqueNeighbour) {
  std::vector<ProbeSite> sites = di().function_sites("fx_same_name", false);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_NE(sites[0].addr, sites[1].addr);
  for (const ProbeSite& s : sites) {
    EXPECT_EQ(s.symbol, "fx_same_name");
    ASSERT_FALSE(s.anchor.empty());
    EXPECT_NE(s.anchor, "fx_same_name");
    std::optional<uint64_t> a = di().symbol_address(s.anchor);
    ASSERT_TRUE(a.has_value()) << s.anchor;
    EXPECT_EQ(*a + s.anchor_offset, s.addr) << s.anchor;
    EXPECT_EQ(di().function_sites(s.anchor, false).size(), 1u) << s.anchor;
  }
  EXPECT_TRUE(site("fx_void").anchor.empty());
}

// A source line of a function inlined twice and also out of line is a
// site in each copy, as stap has it: in the out-of-line function and in
// each instance (in fx_calls_twice, its parameter read from the instance).
// Lines that share an address are one site, for the first line.
TEST_P(Dwarf, StatementsInEveryCopy) {
  int first = source_line("fx_twice: first line");
  SiteFilter one;
  one.line = [&](const std::string&, int l, int) { return l == first; };
  std::vector<ProbeSite> sites = di().statement_sites("fx_twice", one);
  ASSERT_EQ(sites.size(), 3u);
  std::optional<uint64_t> caller = di().symbol_address("fx_calls_twice");
  ASSERT_TRUE(caller.has_value());
  size_t inlined = 0;
  for (const ProbeSite& s : sites) {
    EXPECT_EQ(s.function, "fx_twice");
    EXPECT_EQ(s.decl_line, first);
    EXPECT_EQ(s.at_entry, !s.inlined && s.symbol_offset == 0);  // an instance is no frame's entry
    EXPECT_EQ(s.symbol, s.inlined ? "fx_calls_twice" : "fx_twice");
    if (s.inlined) {
      ++inlined;
      EXPECT_EQ(s.addr, *caller + s.symbol_offset);
    }
    ASSERT_EQ(s.params.size(), 1u);
    EXPECT_EQ(s.params[0].name, "v");
  }
  EXPECT_EQ(inlined, 2u);
  SiteFilter both;
  both.line = [&](const std::string&, int l, int) { return l == first || l == first + 1; };
  std::vector<ProbeSite> lines = di().statement_sites("fx_twice", both);
  EXPECT_GE(lines.size(), 3u);
  std::set<uint64_t> addrs;
  for (const ProbeSite& s : lines) EXPECT_TRUE(addrs.insert(s.addr).second) << "two sites at 0x" << std::hex << s.addr;
}

// A parameter dead after a call: at the entry in its register; after the
// call gcc describes it by its value at the entry (DW_OP_entry_value in
// DWARF 5, DW_OP_GNU_entry_value in DWARF 4): rdi as recorded at this
// call's entry, so libdw's block was read as it is encoded, and the call
// is named by the CFA there (the call frame information was found).
TEST_P(Dwarf, EntryValueAwayFromTheEntry) {
  ProbeSite entry = site("fx_entry_value");
  const Variable* a = find_var(entry.params, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(to_string(a->loc), "reg5");
  int line = source_line("fx_entry_value: after the call");
  SiteFilter one;
  one.line = [&](const std::string&, int l, int) { return l == line; };
  std::vector<ProbeSite> after = di().statement_sites("fx_entry_value", one);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_FALSE(after[0].at_entry);
  a = find_var(after[0].params, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(to_string(a->loc), "value(entry(reg5))");
  ASSERT_TRUE(a->loc.expr && a->loc.expr->a);
  EXPECT_EQ(to_string(a->loc.expr->a).rfind("reg7+", 0), 0u) << to_string(a->loc.expr->a);
  const Variable* b = find_var(after[0].params, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->loc.kind, Location::Kind::Register);
}

// A function split into hot and cold parts has DW_AT_ranges and no
// DW_AT_low_pc: found at its symbol (the hot part's entry), with its
// parameters; the cold part is no entry.
TEST_P(Dwarf, SplitFunctionAtItsHotEntry) {
  ASSERT_TRUE(di().symbol_address("fx_split.cold").has_value()) << "gcc did not split fx_split";
  ProbeSite s = site("fx_split");
  EXPECT_EQ(s.function, "fx_split");
  EXPECT_EQ(std::optional<uint64_t>(s.addr), di().symbol_address("fx_split"));
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params[0].name, "x");
  EXPECT_EQ(s.params[1].name, "y");
  EXPECT_EQ(to_string(s.params[0].loc), "reg5");
  EXPECT_EQ(di().function_sites("fx_split*", false).size(), 1u);
}

TEST_P(Dwarf, CloneNamedBySymbol) {
  std::vector<ProbeSite> sites = di().function_sites("fx_cloned.constprop.0", false);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].function, "fx_cloned");
  EXPECT_EQ(sites[0].symbol, "fx_cloned.constprop.0");
  EXPECT_EQ(di().symbol_address("fx_cloned.constprop.0"), std::optional<uint64_t>(sites[0].addr));
  ASSERT_FALSE(sites[0].params.empty());
  EXPECT_EQ(sites[0].params[0].name, "p");
  EXPECT_EQ(to_string(sites[0].params[0].loc), "reg5");
}

// A function whose only out-of-line copy is a compiler clone
// (fx_cloned.constprop.0 here; in the guest kernel e.g.
// __ep_eventpoll_poll.isra.0) is found by its source name, as stap 4.8
// resolves kernel.function("__ep_eventpoll_poll") to the clone.
TEST_P(Dwarf, CloneFoundBySourceName) {
  for (const char* pattern : {"fx_cloned", "fx_clon*"}) {
    std::vector<ProbeSite> sites = di().function_sites(pattern, false);
    ASSERT_EQ(sites.size(), 1u) << pattern;
    EXPECT_EQ(sites[0].function, "fx_cloned");
    EXPECT_EQ(sites[0].symbol, "fx_cloned.constprop.0");
  }
}

// fx_inlined_sq is inlined twice into fx_calls_inline: with `inlines`,
// each instance is a site inside fx_calls_inline, at its own offset from
// that symbol, not at the frame's entry.
TEST_P(Dwarf, InlinedInstances) {
  std::vector<ProbeSite> sites = di().function_sites("fx_inlined_sq", true);
  ASSERT_EQ(sites.size(), 2u);
  std::optional<uint64_t> outer = di().symbol_address("fx_calls_inline");
  ASSERT_TRUE(outer.has_value());
  for (const ProbeSite& s : sites) {
    EXPECT_TRUE(s.inlined);
    EXPECT_FALSE(s.at_entry);
    EXPECT_EQ(s.function, "fx_inlined_sq");
    EXPECT_EQ(s.symbol, "fx_calls_inline");
    EXPECT_EQ(s.addr, *outer + s.symbol_offset);
    EXPECT_EQ(s.decl_line, source_line("fx_inlined_sq(int v)"));
    ASSERT_EQ(s.params.size(), 1u);
    EXPECT_EQ(s.params[0].name, "v");
    EXPECT_EQ(s.params[0].type->to_string(), "int");
  }
  EXPECT_NE(sites[0].addr, sites[1].addr);
  EXPECT_TRUE(di().function_sites("fx_inlined_sq", false).empty());
  // A wildcard takes both kinds (fx_twice is inlined twice as well).
  size_t inlined = 0, out_of_line = 0;
  for (const ProbeSite& s : di().function_sites("fx_*", true)) ++(s.inlined ? inlined : out_of_line);
  EXPECT_EQ(inlined, 4u);
  EXPECT_EQ(out_of_line, di().function_sites("fx_*", false).size());
}

TEST_P(Dwarf, SymbolAddress) {
  EXPECT_TRUE(di().symbol_address("fx_sink").has_value());
  EXPECT_EQ(di().symbol_address("nosuch"), std::nullopt);
}

// ---- parameters at entry ----

TEST_P(Dwarf, SixRegisterParametersThenTheStack) {
  ProbeSite s = site("fx_many");
  struct Want {
    const char* name;
    const char* type;
    const char* loc;
  } want[] = {
      {"a1", "long int", "reg5"},                 // rdi
      {"a2", "int", "reg4"},                      // rsi
      {"a3", "short int", "reg1"},                // rdx
      {"a4", "char", "reg2"},                     // rcx
      {"a5", "long unsigned int", "reg8"},        // r8
      {"a6", "void*", "reg9"},                   // r9
      {"a7", "long int", "mem(reg7+8)"},          // above the return address
      {"a8", "int", "mem(reg7+16)"},
      {"a9", "struct fx_inner*", "mem(reg7+24)"},
  };
  ASSERT_EQ(s.params.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    const Variable& v = s.params[i];
    EXPECT_EQ(v.name, want[i].name);
    EXPECT_TRUE(v.is_param);
    ASSERT_NE(v.type, nullptr);
    EXPECT_EQ(v.type->to_string(), want[i].type) << v.name;
    EXPECT_EQ(to_string(v.loc), want[i].loc) << v.name;
  }
  EXPECT_STREQ(dwarf_reg_name(s.params[0].loc.reg), "rdi");
  EXPECT_STREQ(dwarf_reg_name(s.params[5].loc.reg), "r9");
}

TEST_P(Dwarf, ParameterTypesAreSpelledAsC) {
  ProbeSite s = site("fx_kinds");
  std::vector<std::pair<std::string, std::string>> got;
  for (const Variable& v : s.params) got.emplace_back(v.name, v.type->to_string());
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"c", "enum fx_color"},
                     {"h", "fx_handle_t"},
                     {"s", "char const*"},
                     {"argv", "char**"},
                     {"cvp", "int const volatile*"},
                     {"u", "union fx_num*"},
                     {"m", "enum fx_mode"},
                 }));
  std::vector<std::string> locs;
  for (const Variable& v : s.params) locs.push_back(to_string(v.loc));
  EXPECT_EQ(locs, (std::vector<std::string>{"reg5", "reg4", "reg1", "reg2", "reg8", "reg9", "mem(reg7+8)"}));
  ASSERT_NE(s.return_type, nullptr);
  EXPECT_EQ(s.return_type->to_string(), "int");
}

TEST_P(Dwarf, VoidFunction) {
  ProbeSite s = site("fx_void");
  EXPECT_EQ(s.return_type, nullptr);
  EXPECT_TRUE(s.params.empty());
}

TEST_P(Dwarf, StructByValue) {
  ProbeSite small = site("fx_small_sum");
  ASSERT_EQ(small.params.size(), 1u);
  EXPECT_EQ(small.params[0].type->to_string(), "struct fx_small");
  EXPECT_EQ(to_string(small.params[0].loc), "reg5");
  // Two registers: not translated (see location_test's DISABLED_SeveralRegisterPiecesSaySo).
  ProbeSite pair = site("fx_pair_sum");
  ASSERT_EQ(pair.params.size(), 1u);
  EXPECT_EQ(pair.params[0].loc.kind, Location::Kind::Unsupported) << to_string(pair.params[0].loc);
}

TEST_P(Dwarf, LocalsOfTheOuterScope) {
  ProbeSite s = site("fx_build");
  ASSERT_EQ(s.params.size(), 1u);
  EXPECT_EQ(to_string(s.params[0].loc), "reg5");
  const Variable* local = find_var(s.locals, "local");
  ASSERT_NE(local, nullptr);
  EXPECT_FALSE(local->is_param);
  EXPECT_EQ(local->type->to_string(), "struct fx_outer");
  EXPECT_EQ(local->type->size(), sizeof(fx_outer));
  // A stack slot below the CFA (frame base = DW_OP_call_frame_cfa = rsp+8).
  EXPECT_EQ(local->loc.kind, Location::Kind::Memory) << to_string(local->loc);
  EXPECT_EQ(to_string(local->loc).rfind("mem(reg7-", 0), 0u) << to_string(local->loc);
}

TEST_P(Dwarf, ConstantAndLateLocals) {
  ProbeSite s = site("fx_consts");
  ASSERT_EQ(s.params.size(), 1u);
  EXPECT_EQ(to_string(s.params[0].loc), "reg5");
  std::vector<std::string> got;
  for (const Variable& v : s.locals) got.push_back(v.name + ":" + v.type->to_string());
  EXPECT_EQ(got, (std::vector<std::string>{"k:int const", "uc:unsigned char const", "neg:long int const", "t:long int"}));
  ASSERT_EQ(s.locals.size(), 4u);
  EXPECT_EQ(to_string(s.locals[0].loc), "value(42)");  // DW_AT_const_value
  EXPECT_EQ(s.locals[1].loc.kind, Location::Kind::Value);  // 200, which gcc encodes as -56: see target_vars_test
  EXPECT_EQ(to_string(s.locals[2].loc), "value(-3)");
  // A location list that starts after the entry.
  EXPECT_EQ(to_string(s.locals[3].loc), "unavailable: not available at this address");
}

// ---- types and layout ----

TEST_P(Dwarf, StructMembersMatchTheCompiler) {
  const DType* t = type("struct fx_outer");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, DType::Kind::Struct);
  EXPECT_EQ(t->to_string(), "struct fx_outer");
  EXPECT_EQ(t->size(), sizeof(fx_outer));
  EXPECT_FALSE(t->incomplete());
#define OFF(m) EXPECT_EQ(bit_offset(t, #m), static_cast<int64_t>(offsetof(fx_outer, m) * 8)) << #m
  OFF(tag); OFF(in); OFF(pin); OFF(grid); OFF(name); OFF(cv); OFF(handle); OFF(color); OFF(u);
  OFF(ax); OFF(ay); OFF(pp); OFF(argv); OFF(label); OFF(rowp); OFF(longs);
#undef OFF
  EXPECT_EQ(bit_offset(t, "nosuch"), -1);
  std::vector<std::pair<std::string, std::string>> got;
  for (const Member& m : t->members()) {
    EXPECT_EQ(m.bit_size, 0u) << m.name;
    // Loaded first: see DISABLED_ArrayTypeSpelledBeforeItIsLoaded. rowp's
    // spelling: DISABLED_PointerToArrayTypedefIsSpelledWithItsName.
    m.type->size();
    if (m.name != "rowp") got.emplace_back(m.name, m.type->to_string());
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"tag", "char"},
                     {"in", "struct fx_inner"},
                     {"pin", "struct fx_inner*"},
                     {"grid", "int[2][3]"},
                     {"name", "char[16]"},
                     {"cv", "int const volatile"},
                     {"handle", "fx_handle_t"},
                     {"color", "enum fx_color"},
                     {"u", "union fx_num"},
                     {"", "struct {...}"},
                     {"pp", "void**"},
                     {"argv", "char**"},
                     {"label", "char const*"},
                     {"longs", "long int[5]"},
                 }));
}

TEST_P(Dwarf, NestedStructAndUnion) {
  const DType* in = type("struct fx_inner");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->size(), sizeof(fx_inner));
  EXPECT_EQ(bit_offset(in, "a"), static_cast<int64_t>(offsetof(fx_inner, a) * 8));
  EXPECT_EQ(bit_offset(in, "b"), static_cast<int64_t>(offsetof(fx_inner, b) * 8));
  EXPECT_EQ(bit_offset(in, "next"), static_cast<int64_t>(offsetof(fx_inner, next) * 8));
  uint64_t off = 0;
  const Member* next = in->find_member("next", off);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->type->strip()->target(), in);  // the self-reference is the same type
  const DType* u = type("union fx_num");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->kind, DType::Kind::Union);
  EXPECT_EQ(u->to_string(), "union fx_num");
  EXPECT_EQ(u->size(), sizeof(fx_num));
  for (const char* m : {"i", "f", "bytes", "ll"}) EXPECT_EQ(bit_offset(u, m), 0) << m;
  EXPECT_EQ(u->members().size(), 4u);
}

TEST_P(Dwarf, Arrays) {
  const DType* t = type("struct fx_outer");
  ASSERT_NE(t, nullptr);
  uint64_t off = 0;
  // size() first: `count` is read as a field, filled by the lazy load
  // (DISABLED_ArrayTypeSpelledBeforeItIsLoaded).
  const DType* grid = t->find_member("grid", off)->type;
  EXPECT_EQ(grid->kind, DType::Kind::Array);
  EXPECT_EQ(grid->size(), sizeof(fx_outer::grid));
  EXPECT_EQ(grid->count(), 2);
  const DType* row = grid->target();
  EXPECT_EQ(row->kind, DType::Kind::Array);
  EXPECT_EQ(row->count(), 3);
  EXPECT_EQ(row->size(), sizeof(fx_outer::grid[0]));
  EXPECT_EQ(row->target()->to_string(), "int");
  const DType* name = t->find_member("name", off)->type;
  EXPECT_EQ(name->size(), 16u);
  EXPECT_EQ(name->count(), 16);
  EXPECT_TRUE(name->target()->strip()->is_char);
  EXPECT_EQ(name->target()->strip()->size(), 1u);
  const DType* longs = t->find_member("longs", off)->type;
  EXPECT_EQ(longs->size(), sizeof(fx_outer::longs));
  EXPECT_EQ(longs->count(), 5);
  const DType* b = type("struct fx_inner")->find_member("b", off)->type;
  EXPECT_EQ(b->size(), sizeof(fx_inner::b));
  EXPECT_EQ(b->to_string(), "short int[3]");
}

// An array type is spelled with its counts even before anything else
// loaded it (count() loads it; it was once a plain field read as -1).
TEST(DwarfTypes, ArrayTypeSpelledBeforeItIsLoaded) {
  std::string error;
  std::unique_ptr<DebugInfo> fresh = open_dwarf(kFixture, error);
  ASSERT_NE(fresh, nullptr) << error;
  const DType* t = fresh->find_type("struct fx_outer");
  ASSERT_NE(t, nullptr);
  uint64_t off = 0;
  EXPECT_EQ(t->find_member("name", off)->type->to_string(), "char[16]");
  EXPECT_EQ(t->find_member("grid", off)->type->to_string(), "int[2][3]");
  EXPECT_EQ(t->find_member("longs", off)->type->to_string(), "long int[5]");
  const DType* row = fresh->find_type("struct fx_inner")->find_member("b", off)->type;
  EXPECT_EQ(row->count(), 3);
}

TEST_P(Dwarf, BitfieldsMatchTheCompiler) {
  const DType* t = type("struct fx_bits");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->size(), sizeof(fx_bits));
  EXPECT_EQ(bits(t, "lo"), BITS_OF(fx_bits, lo));
  EXPECT_EQ(bits(t, "s"), BITS_OF(fx_bits, s));
  EXPECT_EQ(bits(t, "mid"), BITS_OF(fx_bits, mid));
  EXPECT_EQ(bits(t, "neg"), BITS_OF(fx_bits, neg));
  EXPECT_EQ(bits(t, "flag"), BITS_OF(fx_bits, flag));
  EXPECT_EQ(bits(t, "wide"), BITS_OF(fx_bits, wide));
  EXPECT_EQ(bits(t, "ecolor"), measure<fx_bits>([](fx_bits& o) { o.ecolor = static_cast<fx_color>(-1); }));
  uint64_t off = 0;
  EXPECT_TRUE(t->find_member("s", off)->type->strip()->is_signed);
  EXPECT_FALSE(t->find_member("mid", off)->type->strip()->is_signed);
  EXPECT_EQ(t->find_member("ecolor", off)->type->to_string(), "enum fx_color");
}

// The packed struct's `x` crosses its 4-byte unit. DWARF 5 says where with
// DW_AT_data_bit_offset; DWARF 4 with DW_AT_bit_offset counted from the
// unit's most significant bit, which for `x` is negative (-2, DW_FORM_sdata).
TEST_P(Dwarf, PackedBitfieldsMatchTheCompiler) {
  const DType* t = type("struct fx_packed");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->size(), sizeof(fx_packed));
  EXPECT_EQ(bits(t, "c"), BITS_OF(fx_packed, c));
  EXPECT_EQ(bits(t, "x"), BITS_OF(fx_packed, x));
  EXPECT_EQ(bits(t, "pad"), BITS_OF(fx_packed, pad));
  EXPECT_EQ(bits(t, "y"), BITS_OF(fx_packed, y));
}

TEST_P(Dwarf, Enums) {
  const DType* c = type("enum fx_color");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->kind, DType::Kind::Enum);
  EXPECT_EQ(c->to_string(), "enum fx_color");
  EXPECT_EQ(c->size(), sizeof(fx_color));
  EXPECT_EQ(c->is_signed, std::is_signed_v<std::underlying_type_t<fx_color>>);
  EXPECT_EQ(c->enumerators(), (std::vector<std::pair<std::string, int64_t>>{
                                  {"FX_RED", FX_RED}, {"FX_GREEN", FX_GREEN}, {"FX_BLUE", FX_BLUE}}));
  const DType* m = type("enum fx_mode");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->is_signed, std::is_signed_v<std::underlying_type_t<fx_mode>>);
  EXPECT_EQ(m->enumerators(), (std::vector<std::pair<std::string, int64_t>>{
                                  {"FX_MODE_A", FX_MODE_A}, {"FX_MODE_B", FX_MODE_B}, {"FX_MODE_BIG", FX_MODE_BIG}}));
}

TEST_P(Dwarf, TypedefChainsAndQualifiers) {
  const DType* h = type("fx_handle_t");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->kind, DType::Kind::Typedef);
  EXPECT_EQ(h->to_string(), "fx_handle_t");
  EXPECT_EQ(h->target()->to_string(), "fx_id_t");
  EXPECT_EQ(h->target()->target()->to_string(), "fx_u32");
  EXPECT_EQ(h->strip()->to_string(), "unsigned int");
  EXPECT_EQ(h->strip()->kind, DType::Kind::Int);
  EXPECT_FALSE(h->strip()->is_signed);
  EXPECT_EQ(h->size(), sizeof(fx_handle_t));
  EXPECT_TRUE(h->is_integral());
  const DType* row = type("fx_row_t");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->strip()->kind, DType::Kind::Array);
  EXPECT_EQ(row->strip()->count(), 4);
  EXPECT_EQ(row->size(), sizeof(fx_row_t));
  uint64_t off = 0;
  const DType* cv = type("struct fx_outer")->find_member("cv", off)->type;
  EXPECT_TRUE(cv->kind == DType::Kind::Const || cv->kind == DType::Kind::Volatile);
  EXPECT_EQ(cv->strip()->to_string(), "int");
  EXPECT_EQ(cv->size(), sizeof(int));
  EXPECT_TRUE(cv->is_integral());
}

// A pointer to a typedef of an array needs no "(*)" declarator.
TEST_P(Dwarf, PointerToArrayTypedefIsSpelledWithItsName) {
  uint64_t off = 0;
  const DType* rowp = type("struct fx_outer")->find_member("rowp", off)->type;
  EXPECT_EQ(rowp->to_string(), "fx_row_t*");
}

TEST_P(Dwarf, FindType) {
  const DType* i = type("int");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->kind, DType::Kind::Int);
  EXPECT_TRUE(i->is_signed);
  EXPECT_EQ(i->size(), sizeof(int));
  const DType* u = type("unsigned int");
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(u->is_signed);
  const DType* ch = type("char");
  ASSERT_NE(ch, nullptr);
  EXPECT_TRUE(ch->is_char);
  // A struct by its bare tag, and with stray trailing blanks.
  EXPECT_EQ(di().find_type("fx_outer"), type("struct fx_outer"));
  EXPECT_EQ(di().find_type("struct fx_outer  "), type("struct fx_outer"));
  EXPECT_EQ(di().find_type("struct nosuch"), nullptr);
  EXPECT_EQ(di().find_type("union fx_outer"), nullptr);  // a struct, not a union
  EXPECT_EQ(di().find_type("enum nosuch"), nullptr);
  EXPECT_EQ(di().find_type("nosuch_t"), nullptr);
  // Asking twice gives the same node.
  EXPECT_EQ(type("fx_handle_t"), type("fx_handle_t"));
}

TEST_P(Dwarf, DeclaredHereDefinedThere) {
  // dwarf_fixture.c only declares struct fx_opaque; dwarf_fixture_def.c defines it.
  ProbeSite s = site("fx_use_opaque");
  const Variable* o = find_var(s.params, "o");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->type->to_string(), "struct fx_opaque*");
  const DType* decl = o->type->strip()->target()->strip();
  EXPECT_EQ(decl->kind, DType::Kind::Struct);
  EXPECT_FALSE(decl->incomplete());
  EXPECT_EQ(decl->size(), sizeof(fx_opaque));
  EXPECT_EQ(bit_offset(decl, "kind"), static_cast<int64_t>(offsetof(fx_opaque, kind) * 8));
  EXPECT_EQ(bit_offset(decl, "value"), static_cast<int64_t>(offsetof(fx_opaque, value) * 8));
  EXPECT_EQ(bit_offset(decl, "next"), static_cast<int64_t>(offsetof(fx_opaque, next) * 8));
  const DType* def = type("struct fx_opaque");
  ASSERT_NE(def, nullptr);
  EXPECT_FALSE(def->incomplete());
  EXPECT_EQ(def->size(), sizeof(fx_opaque));
  // Declared and defined nowhere: incomplete.
  const Variable* nv = find_var(s.params, "nv");
  ASSERT_NE(nv, nullptr);
  const DType* never = nv->type->strip()->target()->strip();
  EXPECT_EQ(never->to_string(), "struct fx_never");
  EXPECT_TRUE(never->incomplete());
  EXPECT_EQ(never->size(), 0u);
  EXPECT_TRUE(never->members().empty());
  EXPECT_EQ(di().find_type("struct fx_never"), nullptr);
}

}  // namespace
}  // namespace stapx::debug
