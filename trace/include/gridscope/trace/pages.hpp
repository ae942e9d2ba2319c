// Memory of the large record arrays and other large blocks, page by page.
//
// A page touched for the first time costs the kernel ~1.3 µs on this kind of machine (a
// fault, a zeroed page, its accounting): 0.1-0.3 s for the few hundred MB an analysis holds.
// So large blocks come from `pages`: freed ones are kept with their resident pages, and those
// pages are handed out again before any fresh one is mapped. The record arrays (PageVector)
// are read once and freed, with a capacity reserved from an estimate: their untouched pages
// cost address space only and are unmapped when freed; the pages they wrote serve the next
// phase's arrays (gridscope-replay sends every large allocation here: analyzer/src/
// large_blocks.cpp).
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace gs {

namespace pages {
// A lock for the few instructions around a table of blocks (nothing allocated, constant-
// initialised: usable from operator new before main).
class SpinLock {
 public:
  void lock() { while (busy_.test_and_set(std::memory_order_acquire)) {} }
  void unlock() { busy_.clear(std::memory_order_release); }

 private:
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
};

// A block of at least `bytes` (page-aligned; never null: throws std::bad_alloc): kept pages
// that fit (the smallest such run), else a fresh mapping whose pages are touched only when
// written.
void* take(size_t bytes);
// Gives back a block from take (`bytes` as asked): its resident pages are kept for later
// blocks, the others unmapped.
void give(void* p, size_t bytes);
// The bytes kept, and the number of runs they are in (tests, reports).
size_t kept_bytes();
size_t kept_runs();
// Unmaps the kept pages.
void release_kept();
}  // namespace pages

template <class T>
struct PageAllocator {
  using value_type = T;
  PageAllocator() = default;
  template <class U>
  PageAllocator(const PageAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(pages::take(bytes(n))); }
  void deallocate(T* p, size_t n) { pages::give(p, bytes(n)); }
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
