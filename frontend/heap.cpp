#include "frontend/heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace stapx {

void use_huge_page_heap() {
  constexpr size_t kHuge = 2u << 20;   // x86-64's huge page
  constexpr size_t kStep = 64u << 20;  // the heap grows by this much at a time
  // Large blocks from the heap too (not a mapping each), and the heap's top
  // is neither handed back nor grown in small steps.
  mallopt(M_MMAP_THRESHOLD, 32u << 20);
  mallopt(M_TRIM_THRESHOLD, 256u << 20);
  mallopt(M_TOP_PAD, kStep);
  // Make the heap grow now, by a step, and advise the whole new region: a
  // block larger than what the heap's top can have left.
  void* probe = malloc(1u << 20);
  if (!probe) return;
  auto begin = (reinterpret_cast<uintptr_t>(probe) + kHuge - 1) & ~(kHuge - 1);
  auto end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHuge - 1);
  free(probe);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace stapx
