// The process heap of a translator run, on transparent huge pages.
#pragma once

#include <cstdint>

namespace stapx {

// A translator run is short and allocates tens of MB of fresh heap (tokens,
// the AST, tapsets): on 4 KiB pages that is ~10,000 page faults, a fifth of
// pass 1's whole time over a tapset library. This keeps the heap in one
// region that grows in large steps and asks the kernel to back it with
// transparent huge pages (madvise(MADV_HUGEPAGE): Debian's default THP mode
// honours it). Where the kernel does not, nothing changes. Call it first
// thing in main(), before the heap grows.
void use_huge_page_heap();

// Where the region advised by use_huge_page_heap() begins (0: no advice
// given): malloc hands out no block below it after the call, bar those
// freed before it.
uintptr_t huge_page_heap_start();

}  // namespace stapx
