#include "frontend/heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace stapx {

namespace {
// See use_huge_page_heap(): kept for the run's whole life. (Volatile: a
// block stored where nothing reads it is one the compiler may never ask
// malloc for, and GCC 12 at -O2 did not: the heap's first blocks then came
// from below the advised region, in small pages, 300-700 more page faults.)
void* volatile heap_pad = nullptr;
uintptr_t advised_start = 0;
}  // namespace

uintptr_t huge_page_heap_start() { return advised_start; }

void use_huge_page_heap() {
  constexpr size_t kHuge = 2u << 20;   // x86-64's huge page
  constexpr size_t kStep = 64u << 20;  // the heap grows by this much at a time
  // Large blocks from the heap too (not a mapping each), and the heap's top
  // is neither handed back nor grown in small steps.
  mallopt(M_MMAP_THRESHOLD, 32u << 20);
  mallopt(M_TRIM_THRESHOLD, 256u << 20);
  mallopt(M_TOP_PAD, kStep);
  // Make the heap grow now, by a step, and advise the new region from the
  // first huge page past what malloc has written: a block larger than what
  // the heap's top can have left, after which malloc writes the header of
  // the rest. (A page touched before the advice is a small one, and then
  // its whole 2 MiB range stays in small pages: hundreds of page faults.)
  constexpr size_t kProbe = 1u << 20;
  void* probe = malloc(kProbe);
  if (!probe) return;
  auto chunk = reinterpret_cast<uintptr_t>(probe) - 2 * sizeof(size_t);  // its header
  auto begin = (reinterpret_cast<uintptr_t>(probe) + kProbe + 4096 + kHuge - 1) & ~(kHuge - 1);
  auto end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHuge - 1);
  free(probe);
  if (end <= begin) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  advised_start = begin;
  // The heap's top now starts at the probe's header, below `begin`: a block
  // that reaches exactly to `begin` (never freed, and never touched past
  // its header) makes every later block come from the advised region.
  size_t pad = begin - chunk;
  if (pad > 2 * sizeof(size_t)) heap_pad = malloc(pad - sizeof(size_t));
}

}  // namespace stapx
