// Memory of the large record arrays, page by page.
//
// PageVector: record arrays in memory of their own. The engine keeps freed heap memory for
// reuse (mallopt in the engine's main), so a large array there is never given back, and
// where it lay decides which later arrays fit into old pages and which fault new ones. The
// message and collective records are the largest and are read once and freed: mapped
// straight from the system, reserving their capacity costs address space only (pages are
// touched as records are written) and freeing them returns the memory at once.
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

// Faults in an array's pages ahead of its writes, 2 MiB per system call: one fault per
// 4 KiB page taken while writing costs more than the kernel filling them in bulk. Call
// after each append; the window follows the array when it moves.
class Prefault {
 public:
  template <class V>
  void after_push(const V& v) {
    uintptr_t end = reinterpret_cast<uintptr_t>(v.data() + v.size());
    if (end > begin_ && end <= done_) return;  // inside the populated window
    if (end <= begin_ || end > done_ + kStep) begin_ = done_ = end & ~uintptr_t(4095);  // first use, or moved
    uintptr_t next = std::min(reinterpret_cast<uintptr_t>(v.data() + v.capacity()), done_ + kStep);
    if (next > done_) madvise(reinterpret_cast<void*>(done_), next - done_, kPopulateWrite);
    done_ = next;
  }

 private:
  static constexpr uintptr_t kStep = uintptr_t(2) << 20;
  static constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE (Linux 5.14); older kernels refuse it, harmlessly
  uintptr_t begin_ = 0, done_ = 0;
};

}  // namespace gs
