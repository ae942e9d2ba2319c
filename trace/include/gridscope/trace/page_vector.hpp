// Record arrays in memory of their own: the engine keeps freed heap memory for reuse
// (mallopt in the engine's main), so a large array there is never given back, and where
// it lay decides which later arrays fit into old pages and which fault new ones. The
// message and collective records are the largest and are read once and freed: mapped
// straight from the system, reserving their capacity costs address space only (pages are
// touched as records are written) and freeing them returns the memory at once.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <vector>

namespace gs {

template <class T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) {}
  T* allocate(size_t n) {
    void* p = mmap(nullptr, bytes(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { munmap(p, bytes(n)); }
  template <class U>
  bool operator==(const PageAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const PageAllocator<U>&) const { return false; }

 private:
  static size_t bytes(size_t n) { return n ? n * sizeof(T) : 1; }
};

template <class T>
using PageVector = std::vector<T, PageAllocator<T>>;

}  // namespace gs
