// The kernel's line table, packed into the module (kernel_lines.cpp).
#pragma once

#include "translator/elaborate/program.h"

namespace stapx {
class CWriter;
}

namespace stapx::codegen {

// _stpx_klines_index, _stpx_klines_files, _stpx_klines_data and their
// STPX_KLINES_* sizes, for runtime-c/klines.c.
void emit_kernel_lines(CWriter& w, const Program::KernelLines& lines);

}  // namespace stapx::codegen
