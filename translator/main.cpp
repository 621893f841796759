// stapx: runs SystemTap-language scripts as kernel modules.
//
// Where each pass lives:
//   pass 1 parse      frontend/ (source, diagnostics, parse/ grammar + lowering, printer)
//   pass 2 elaborate  translator/elaborate/, translator/probes/ (families), translator/builtins/
//   pass 3 translate  translator/codegen/ (C through CWriter; behaviour in runtime-c/)
//   pass 4 build      translator/build/ (kbuild + module cache)
//   pass 5 run        runtime-c/io/stapx-run (or testsuite/vm/vm-run with --vm)
// pipeline.cpp runs them in order.
#include <exception>
#include <iostream>

#include "frontend/heap.h"
#include "translator/options.h"
#include "translator/pipeline.h"

int main(int argc, char** argv) {
  stapx::use_huge_page_heap();
  try {
    int code = 0;
    auto opts = stapx::parse_options(argc, argv, code);
    if (!opts) return code;
    return stapx::run_pipeline(*opts);
  } catch (const std::exception& e) {
    std::cerr << "stapx: internal error: " << e.what() << "\n";
    return 1;
  }
}
