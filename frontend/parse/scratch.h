// Memory for the X3 parse tree of one top-level declaration. The tree
// lives from the declaration's first token until lowering has copied what
// it needs into the arena AST; parse_file then rewinds this memory for the
// next declaration (ScratchScope). Its containers and boxed nodes take
// memory by bumping a pointer and give nothing back one by one: a
// malloc and a free for every vector, string and boxed statement was a
// seventh of pass 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

namespace stapx::parse {

// (Trivially destructible, so that the thread's instance below is reached
// without a call: a thread_local with a destructor is reached through an
// initialization check at every use, and there is one per allocation. Its
// chunks are freed when the thread ends, by the ScratchRelease below, made
// with the first chunk.)
class Scratch {
 public:
  constexpr Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // Frees every chunk.
  void release() {
    for (Chunk* c = chunks_; c;) {
      Chunk* next = c->next;
      ::operator delete(c);
      c = next;
    }
    chunks_ = nullptr;
    cur_ = end_ = nullptr;
  }

  void* allocate(size_t bytes, size_t align) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(cur_) + align - 1) & ~(uintptr_t(align) - 1);
    if (!cur_ || p + bytes > reinterpret_cast<uintptr_t>(end_)) return grow(bytes, align);
    cur_ = reinterpret_cast<char*>(p + bytes);
    return reinterpret_cast<void*>(p);
  }

  // Forgets everything allocated. After a declaration that needed more
  // than one chunk, keeps a single chunk of their total size.
  void reset() {
    if (chunks_ && chunks_->next) {
      size_t total = 0;
      for (Chunk* c = chunks_; c;) {
        Chunk* next = c->next;
        total += c->size;
        ::operator delete(c);
        c = next;
      }
      chunks_ = nullptr;
      add_chunk(total);
    }
    if (chunks_) {
      cur_ = chunks_->data();
      end_ = cur_ + chunks_->size;
    }
  }

  // `a` then `b`, in memory that lives until the next reset.
  std::string_view concat(std::string_view a, std::string_view b) {
    char* p = static_cast<char*>(allocate(a.size() + b.size() ? a.size() + b.size() : 1, 1));
    if (!a.empty()) std::memcpy(p, a.data(), a.size());
    if (!b.empty()) std::memcpy(p + a.size(), b.data(), b.size());
    return {p, a.size() + b.size()};
  }

 private:
  struct Chunk {
    Chunk* next;
    size_t size;
    char* data() { return reinterpret_cast<char*>(this + 1); }
  };
  static constexpr size_t kChunk = 64 * 1024;

  void add_chunk(size_t size);
  void add_chunk_now(size_t size) {
    auto* c = static_cast<Chunk*>(::operator new(sizeof(Chunk) + size));
    c->next = chunks_;
    c->size = size;
    chunks_ = c;
    cur_ = c->data();
    end_ = cur_ + size;
  }
  void* grow(size_t bytes, size_t align) {
    size_t want = bytes + align;
    add_chunk(want > kChunk ? want : kChunk);
    return allocate(bytes, align);
  }

  Chunk* chunks_ = nullptr;  // newest first
  char* cur_ = nullptr;
  char* end_ = nullptr;
};

// One per thread: parse_file may run in several threads at once.
inline thread_local Scratch scratch;

// Frees the thread's scratch chunks when it ends (see Scratch).
struct ScratchRelease {
  ~ScratchRelease() { scratch.release(); }
};
inline thread_local ScratchRelease scratch_release;

inline void Scratch::add_chunk(size_t size) {
  (void)&scratch_release;  // (made now, in the thread that takes memory)
  add_chunk_now(size);
}

// Rewinds the scratch memory when the declaration's tree is gone: declare
// it before the tree.
struct ScratchScope {
  ScratchScope() = default;
  ScratchScope(const ScratchScope&) = delete;
  ~ScratchScope() { scratch.reset(); }
};

template <typename T>
struct ScratchAllocator {
  using value_type = T;
  using is_always_equal = std::true_type;
  constexpr ScratchAllocator() noexcept = default;
  template <typename U>
  constexpr ScratchAllocator(const ScratchAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(scratch.allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T*, size_t) noexcept {}
  template <typename U>
  bool operator==(const ScratchAllocator<U>&) const noexcept {
    return true;
  }
};

// The parse tree's vectors.
template <typename T>
using Vec = std::vector<T, ScratchAllocator<T>>;

// For parse-tree nodes that X3 boxes (x3::forward_ast news and deletes
// them): `struct PointGroup : Tagged, InScratch {...}`.
struct InScratch {
  static void* operator new(size_t bytes) { return scratch.allocate(bytes, alignof(std::max_align_t)); }
  static void operator delete(void*) noexcept {}
};

}  // namespace stapx::parse
