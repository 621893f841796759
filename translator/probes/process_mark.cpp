// process("PATH").mark("NAME") and process("PATH").provider("P").mark("NAME"):
// the static probes a program or library declares with sys/sdt.h
// (STAP_PROBE, DTRACE_PROBE), read from its .note.stapsdt notes at pass 2.
// Each is a uprobe at the probe's address (runtime-c/probes/uprobes.c); a
// probe with a semaphore gets the kernel's count of it (uprobe refctr), so
// the program sees it enabled while the script runs. Handlers read $arg1..
// $argN as the note's operands say (a register, a constant, or memory in
// the task), and $$name, $$provider, $$parms as stap gives them.
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>

#include "support/glob.h"
#include "support/strings.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_family.h"
#include "translator/probes/uprobe_table.h"

namespace stapx {

namespace {

// One argument: its C value (an int64_t), or why it cannot be read.
struct MarkArg {
  std::string c;
  std::string error;
};

struct Mark : Uprobe {
  std::string provider, name, function;
  uint64_t pc = 0;
  std::vector<MarkArg> args;
};

// x86-64 register names to DWARF numbers (the width is the operand's).
int dwarf_register(std::string_view r, bool& high_byte) {
  static const char* const kLegacy[8][4] = {
      {"rax", "eax", "ax", "al"},  {"rdx", "edx", "dx", "dl"},  {"rcx", "ecx", "cx", "cl"},
      {"rbx", "ebx", "bx", "bl"},  {"rsi", "esi", "si", "sil"}, {"rdi", "edi", "di", "dil"},
      {"rbp", "ebp", "bp", "bpl"}, {"rsp", "esp", "sp", "spl"}};
  high_byte = false;
  for (int n = 0; n < 8; ++n)
    for (const char* name : kLegacy[n])
      if (r == name) return n;
  static const char* const kHigh[4] = {"ah", "dh", "ch", "bh"};
  for (int n = 0; n < 4; ++n)
    if (r == kHigh[n]) {
      high_byte = true;
      return n;
    }
  if (r.size() >= 2 && r[0] == 'r' && std::isdigit(static_cast<unsigned char>(r[1]))) {
    size_t i = 1;
    int n = 0;
    while (i < r.size() && std::isdigit(static_cast<unsigned char>(r[i]))) n = n * 10 + (r[i++] - '0');
    std::string_view suffix = r.substr(i);
    if (n >= 8 && n <= 15 && (suffix.empty() || suffix == "d" || suffix == "w" || suffix == "b")) return n;
  }
  return -1;
}

const char* int_type(int size, bool is_signed) {
  switch (size) {
    case 1: return is_signed ? "int8_t" : "uint8_t";
    case 2: return is_signed ? "int16_t" : "uint16_t";
    case 4: return is_signed ? "int32_t" : "uint32_t";
    default: return is_signed ? "int64_t" : "uint64_t";
  }
}

// A register operand's C value ("%rdi", no '%').
std::string register_c(std::string_view name, std::string& error) {
  bool high = false;
  int n = dwarf_register(name, high);
  if (n < 0) {
    error = fmt::format("register %{} is not one stapx reads", name);
    return "";
  }
  return high ? fmt::format("((_stpx_dwreg(c, {}) >> 8) & 0xff)", n) : fmt::format("_stpx_dwreg(c, {})", n);
}

// "SIZE@OPERAND" (SIZE negative for a signed value; without it, 8
// bytes), in AT&T syntax: %reg, $imm, or disp(%base[,%index[,scale]])
// where disp may be a symbol (symbol(%rip)).
MarkArg parse_arg(const std::string& text, const debug::UserBinary& bin, const std::string& where) {
  MarkArg out;
  int size = 8;
  bool is_signed = false;
  std::string op = text;
  if (size_t at = text.find('@'); at != std::string::npos) {
    int n = std::atoi(text.substr(0, at).c_str());
    is_signed = n < 0;
    size = std::abs(n);
    op = text.substr(at + 1);
  }
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    out.error = fmt::format("operand '{}' has a size stapx does not read", text);
    return out;
  }
  const char* type = int_type(size, is_signed);
  if (op.size() > 1 && op[0] == '%') {
    std::string reg = register_c(std::string_view(op).substr(1), out.error);
    if (!reg.empty()) out.c = fmt::format("((int64_t)({})({}))", type, reg);
    return out;
  }
  if (op.size() > 1 && op[0] == '$') {
    char* end = nullptr;
    long long v = std::strtoll(op.c_str() + 1, &end, 0);
    if (*end) {
      out.error = fmt::format("operand '{}' is not a number", text);
      return out;
    }
    out.c = fmt::format("((int64_t)({})({}LL))", type, v);
    return out;
  }
  // Memory: disp(%base,%index,scale).
  size_t open = op.find('(');
  if (open == std::string::npos || op.back() != ')') {
    out.error = fmt::format("operand '{}' is not one stapx reads", text);
    return out;
  }
  std::string disp = op.substr(0, open);
  std::vector<std::string> regs;
  for (std::string_view part : support::split(std::string_view(op).substr(open + 1, op.size() - open - 2), ','))
    regs.emplace_back(part);
  std::string addr;
  int64_t offset = 0;
  if (!disp.empty()) {
    char* end = nullptr;
    long long v = std::strtoll(disp.c_str(), &end, 0);
    if (*end == '\0') {
      offset = v;
    } else {
      // symbol, symbol+N or symbol-N: a fixed address in the file.
      size_t sign = disp.find_first_of("+-", 1);
      std::string sym = disp.substr(0, sign);
      auto at = bin.symbol_address(sym);
      if (!at) {
        out.error = fmt::format("operand '{}' names symbol {}, which {} does not define", text, sym, bin.path());
        return out;
      }
      if (bin.shared()) {
        out.error = fmt::format("operand '{}' is a fixed address in a position-independent file", text);
        return out;
      }
      if (sign != std::string::npos) offset = std::strtoll(disp.c_str() + sign, nullptr, 0);
      addr = fmt::format("{:#x}ULL", *at);
    }
  }
  if (regs.empty() || regs[0].empty() || regs[0][0] != '%') {
    out.error = fmt::format("operand '{}' is not one stapx reads", text);
    return out;
  }
  if (regs[0] == "%rip") {
    if (addr.empty()) {
      out.error = fmt::format("operand '{}' is relative to an instruction stapx does not know", text);
      return out;
    }
  } else {
    std::string base = register_c(std::string_view(regs[0]).substr(1), out.error);
    if (base.empty()) return out;
    addr = addr.empty() ? base : addr + " + " + base;
    if (regs.size() > 1) {
      if (regs[1].size() < 2 || regs[1][0] != '%') {
        out.error = fmt::format("operand '{}' is not one stapx reads", text);
        return out;
      }
      std::string index = register_c(std::string_view(regs[1]).substr(1), out.error);
      if (index.empty()) return out;
      int scale = regs.size() > 2 ? std::atoi(regs[2].c_str()) : 1;
      addr += fmt::format(" + {} * {}", index, scale);
    }
  }
  out.c = fmt::format("((int64_t)_STPX_UREAD(c, {}, (uint64_t)({}) + ({}LL), {}))", type, addr, offset,
                      codegen::c_string(where));
  return out;
}

enum Shape { kMark, kProviderMark };

class ProcessMarkFamily : public UprobeTableFamily {
 public:
  const char* name() const override { return "process.mark"; }
  std::vector<PointPattern> patterns() const override { return shapes_.patterns(); }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext& ctx, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    std::vector<ProcessTarget> targets = process_targets(m, ctx, diags);
    if (targets.empty()) return;
    const size_t rest = process_rest(m);
    support::NamePattern provider(m.tag == kProviderMark ? m.string_arg(rest) : "*");
    const size_t name_arg = m.tag == kProviderMark ? rest + 1 : rest;
    support::NamePattern name(m.string_arg(name_arg));
    size_t before = out.size();
    for (const ProcessTarget& t : targets) {
      const debug::UserBinary* bin = t.file;
      const std::string& path = bin->path();
      for (const debug::SdtNote& note : bin->sdt_notes()) {
        if (!provider.matches(note.provider) || !name.matches(note.name)) continue;
        uint64_t offset = 0;
        if (!bin->file_offset(note.pc, offset)) continue;
        auto mark = std::make_shared<Mark>();
        static_cast<Uprobe&>(*mark) = *uprobe_at(t, offset);
        if (note.semaphore && !bin->data_offset(note.semaphore, mark->ref_ctr_offset)) mark->ref_ctr_offset = 0;
        mark->provider = note.provider;
        mark->name = note.name;
        mark->pc = note.pc;
        mark->function = bin->function_at(note.pc);
        for (std::string_view arg : support::split(note.args, ' '))
          if (!arg.empty())
            mark->args.push_back(parse_arg(std::string(arg), *bin,
                                           fmt::format("$arg{} of mark {}", mark->args.size() + 1, note.name)));
        ProbeSpec spec = base;
        spec.family = this;
        spec.pp = m.tag == kProviderMark
                      ? fmt::format("process(\"{}\").provider(\"{}\").mark(\"{}\")", path, note.provider, note.name)
                      : fmt::format("process(\"{}\").mark(\"{}\")", path, note.name);
        spec.data = std::move(mark);
        out.push_back(std::move(spec));
      }
    }
    if (out.size() == before && !m.point->optional) diags.report(DiagId::SemNoMatch, m.arg_loc(name_arg));
  }

  bool has_context_vars() const override { return true; }
  std::optional<ContextVar> context_var(const ast::TargetExpr& t, const ProbeSpec& spec,
                                        DiagSink& diags) const override {
    const Mark& mark = spec.data_as<Mark>();
    ContextVar v;
    v.readable = true;
    v.write_diag = DiagId::SemTargetWrite;
    auto literal = [](const std::string& s) {
      std::string f;
      for (char ch : s) f += ch == '%' ? std::string("%%") : std::string(1, ch);
      return f;
    };
    if (t.components.empty() && t.pretty.empty()) {
      if (t.base == "$$name" || t.base == "$$provider") {
        v.formatted = true;
        v.format = literal(t.base == "$$name" ? mark.name : mark.provider);
        return v;
      }
      if (t.base == "$$parms" || t.base == "$$vars") {
        v.formatted = true;
        for (size_t i = 0; i < mark.args.size(); ++i) {
          if (!mark.args[i].error.empty()) {
            diags.report(DiagId::SemMarkArg, t.loc, i + 1, mark.args[i].error);
            return std::nullopt;
          }
          v.format += fmt::format("{}$arg{}=%#llx", i ? " " : "", i + 1);
          v.parts.push_back(mark.args[i].c);
        }
        return v;
      }
    }
    const std::string base(t.base.view());
    size_t n = 0;
    if (base.size() > 4 && base.compare(0, 4, "$arg") == 0 && base.find_first_not_of("0123456789", 4) == std::string::npos)
      n = std::strtoul(base.c_str() + 4, nullptr, 10);
    if (n < 1 || n > mark.args.size()) {
      std::vector<std::string> alts;
      for (size_t i = 1; i <= mark.args.size(); ++i) alts.push_back(fmt::format("$arg{}", i));
      diags.report(DiagId::SemTargetUnknown, t.loc, base.substr(1), mark.pc, mark.function, spec_path(spec),
                   alts.empty() ? "none" : support::join(alts));
      return std::nullopt;
    }
    if (!t.components.empty() || !t.pretty.empty()) {
      diags.report(DiagId::SemUnsupported, t.loc, "'->', '[]' or pretty printing on a mark's argument (use @cast)");
      return std::nullopt;
    }
    const MarkArg& arg = mark.args[n - 1];
    if (!arg.error.empty()) {
      diags.report(DiagId::SemMarkArg, t.loc, n, arg.error);
      return std::nullopt;
    }
    v.c_expr = arg.c;
    return v;
  }

  std::vector<std::string> listed_vars(const ProbeSpec& spec) const override {
    std::vector<std::string> out;
    for (size_t i = 1; i <= spec.data_as<Mark>().args.size(); ++i) out.push_back(fmt::format("$arg{}:long", i));
    return out;
  }

 private:
  const char* table() const override { return "_stpx_uprobe_marks"; }
  static std::string spec_path(const ProbeSpec& spec) { return spec.data_as<Mark>().path; }

  const ProcessPatterns shapes_{{".mark(string)", kMark}, {".provider(string).mark(string)", kProviderMark}};
};

}  // namespace

const ProbeFamily& process_mark_family() {
  static const ProcessMarkFamily family;
  return family;
}

}  // namespace stapx
