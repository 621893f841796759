// The kernel's line table as module data, for symline() and the like
// (runtime-c/klines.c reads it). About 1.2 million rows for Debian's 6.1
// vmlinux, so they are packed: in blocks of 64 rows, each block's first
// row whole in an index searched by address, the rest as varints of the
// address step, the line step (zigzag, shifted left one bit whose 1 says
// a file index follows) and that file index. About 4 MB for 6.1.
#include "translator/codegen/kernel_lines.h"

#include <fmt/format.h>

#include "translator/codegen/cwriter.h"
#include "translator/codegen/generator.h"

namespace stapx::codegen {

namespace {

constexpr size_t kBlockRows = 64;

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

// The bytes as a C string literal, 40 a line (octal escapes: no digit
// that follows can extend one).
void string_literal(CWriter& w, const std::string& bytes) {
  std::string line;
  for (size_t i = 0; i < bytes.size(); ++i) {
    line += fmt::format("\\{:o}", static_cast<unsigned char>(bytes[i]));
    if (i % 40 == 39 || i + 1 == bytes.size()) {
      w.line("\"{}\"", line);
      line.clear();
    }
  }
  if (bytes.empty()) w.line("\"\"");
}

}  // namespace

void emit_kernel_lines(CWriter& w, const Program::KernelLines& lines) {
  w.line("#include \"klines.h\"");
  const std::vector<debug::LineRow>& rows = lines.rows;
  const uint64_t base = rows.empty() ? 0 : rows.front().addr;
  // Rows past 4 GB from the first cannot be in the index's 32 bits (none
  // are in a kernel's text): the table stops before them.
  size_t n = 0;
  while (n < rows.size() && rows[n].addr - base <= 0xffffffffULL) ++n;
  std::string data;
  {
    auto b = w.block("static const struct _stpx_kline_block _stpx_klines_index[] =", "};");
    for (size_t first = 0; first < n; first += kBlockRows) {
      const debug::LineRow& r = rows[first];
      w.line("{{ {:#x}, {}, {}, {} }},", r.addr - base, data.size(), r.file, r.line);
      for (size_t i = first + 1; i < std::min(n, first + kBlockRows); ++i) {
        const debug::LineRow& prev = rows[i - 1];
        const debug::LineRow& cur = rows[i];
        int64_t step = static_cast<int64_t>(cur.line) - static_cast<int64_t>(prev.line);
        uint64_t zigzag = step < 0 ? (static_cast<uint64_t>(-step) << 1) - 1 : static_cast<uint64_t>(step) << 1;
        bool file = cur.file != prev.file;
        varint(data, cur.addr - prev.addr);
        varint(data, zigzag << 1 | (file ? 1 : 0));
        if (file) varint(data, cur.file);
      }
    }
    if (n == 0) w.line("{ 0, 0, 0, 0 },");
  }
  w.line("#define STPX_KLINES_NBLOCKS {}", n ? (n + kBlockRows - 1) / kBlockRows : 0);
  w.line("#define STPX_KLINES_BASE {:#x}UL", base);
  {
    auto b = w.block("static const char *const _stpx_klines_files[] =", "};");
    for (const std::string& f : lines.files) w.line("{},", c_string(f));
    if (lines.files.empty()) w.line("\"\",");
  }
  w.line("static const unsigned char _stpx_klines_data[] =");
  string_literal(w, data);
  w.line(";");
}

}  // namespace stapx::codegen
