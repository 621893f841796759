// use_huge_page_heap() in a process of its own, as the translator's main
// calls it: every block malloc gives after it, small or large, must come
// from the region it advised for huge pages. (A block below it is in small
// pages: it costs a page fault per 4 KiB, hundreds of them per run.)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "frontend/heap.h"

int main() {
  stapx::use_huge_page_heap();
  uintptr_t start = stapx::huge_page_heap_start();
  if (start == 0) {
    std::puts("heap_layout_test: no huge-page advice given here (heap too small to advise?)");
    return 77;  // skipped
  }
  // Sizes as a translator run asks for: tokens, nodes, vectors, texts.
  std::vector<void*> blocks;
  blocks.reserve(2000);
  int below = 0;
  for (size_t i = 0; i < 2000; ++i) {
    size_t size = size_t{16} << (i % 16);  // 16 B .. 512 KiB
    void* p = std::malloc(size);
    if (!p) return 2;
    if (reinterpret_cast<uintptr_t>(p) < start && ++below <= 5)
      std::printf("block %zu (%zu bytes) at %p, below the advised region at %#lx\n", i, size, p,
                  static_cast<unsigned long>(start));
    blocks.push_back(p);
  }
  for (void* p : blocks) std::free(p);
  if (below) {
    std::printf("heap_layout_test: %d of %zu blocks below the advised region\n", below, blocks.size());
    return 1;
  }
  std::printf("heap_layout_test: %zu blocks, all at or past %#lx\n", blocks.size(), static_cast<unsigned long>(start));
  return 0;
}
