// process("PATH").function("NAME") and .function("NAME").return (with
// .call, which is the same for functions found in the symbol table): a
// uprobe on PATH, an executable or shared library, at each matching
// function's entry; a uretprobe for .return (runtime-c/probes/uprobes.c).
// PATH without a '/' is looked up in $PATH, as stap does, and shown
// absolute. Functions come from the file's ELF symbol table, so a program
// without debug information is probed too.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"
#include "translator/debuginfo/user_binary.h"
#include "translator/probes/probe_family.h"

namespace stapx {

namespace {

struct Uprobe : ProbeData {
  std::string path;
  uint64_t offset = 0, file_size = 0;
  std::array<uint8_t, 4> code{};
};

enum Suffix { kEntry, kCall, kReturn };

class ProcessFamily : public ProbeFamily {
 public:
  const char* name() const override { return "process"; }
  std::vector<const char*> runtime_files() const override { return {"probes/uprobes.c"}; }
  std::vector<PointPattern> patterns() const override {
    return {{"process(string).function(string)", kEntry},
            {"process(string).function(string).call", kCall},
            {"process(string).function(string).return", kReturn}};
  }

  void expand(const PointMatch& m, const ProbeSpec& base, const ProbeContext&, std::vector<ProbeSpec>& out,
              DiagSink& diags) const override {
    const bool optional = m.point->optional;
    std::string error;
    std::string path = debug::resolve_process_path(m.string_arg(0), error);
    const debug::UserBinary* bin = path.empty() ? nullptr : binary(path, error);
    if (!bin) {
      if (!optional) diags.report(DiagId::SemProcessNoFile, m.arg_loc(0), error);
      return;
    }
    const std::string pattern = m.string_arg(1);
    std::vector<debug::UserFunction> found = bin->functions(pattern);
    if (found.empty()) {
      if (!optional) diags.report(DiagId::SemNoMatch, m.arg_loc(1));
      return;
    }
    const char* suffix = m.tag == kReturn ? ".return" : m.tag == kCall ? ".call" : "";
    for (const debug::UserFunction& f : found) {
      ProbeSpec spec = base;
      spec.family = this;
      spec.is_return = m.tag == kReturn;
      spec.ppfunc = spec.probefunc = f.name;
      spec.pp = fmt::format("process(\"{}\").function(\"{}\"){}", path, f.name, suffix);
      auto u = std::make_shared<Uprobe>();
      u->path = path;
      u->offset = f.offset;
      u->file_size = bin->file_size();
      u->code = bin->code_at(f.offset);
      spec.data = std::move(u);
      out.push_back(std::move(spec));
    }
  }

  void emit_tables(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (probes.empty()) return;
    auto b = w.block("static struct _stpx_uprobe _stpx_uprobes[] =", "};");
    for (const ProbeSpec* p : probes) {
      const Uprobe& u = p->data_as<Uprobe>();
      w.line("{{ .probe = &_stpx_probes[{}], .path = {}, .offset = {:#x}, .size = {}, "
             ".code = {{ {:#04x}, {:#04x}, {:#04x}, {:#04x} }}, .is_return = {} }},",
             p->index, codegen::c_string(u.path), u.offset, u.file_size, u.code[0], u.code[1], u.code[2], u.code[3],
             p->is_return ? 1 : 0);
    }
  }
  void emit_arm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) emit_arm_call(w, "_stpx_uprobes_arm(_stpx_uprobes, ARRAY_SIZE(_stpx_uprobes))");
  }
  void emit_disarm(CWriter& w, const std::vector<const ProbeSpec*>& probes) const override {
    if (!probes.empty()) w.line("_stpx_uprobes_disarm(_stpx_uprobes, ARRAY_SIZE(_stpx_uprobes));");
  }

 private:
  // Each file is read once per translation.
  const debug::UserBinary* binary(const std::string& path, std::string& error) const {
    auto it = binaries_.find(path);
    if (it == binaries_.end()) {
      std::string why;
      it = binaries_.emplace(path, std::make_pair(debug::UserBinary::open(path, why), why)).first;
    }
    if (!it->second.first) error = it->second.second;
    return it->second.first.get();
  }
  mutable std::map<std::string, std::pair<std::unique_ptr<debug::UserBinary>, std::string>> binaries_;
};

}  // namespace

const ProbeFamily& process_family() {
  static const ProcessFamily family;
  return family;
}

}  // namespace stapx
