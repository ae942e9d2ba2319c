// The engine's large allocations (1 MiB and more) from gs::pages, the small ones from malloc.
//
// Why: the record arrays are freed between the replay and the root-cause pass, whose arrays
// are then allocated. Through malloc those arrays faulted in fresh pages (~1.3 µs each: 46 k
// of them, 0.06 s, on the benchmark's reference trace) while the records' pages went back to
// the system; through gs::pages they get the records' pages (docs/perf-analyzer.md).
//
// A block's size is known to a sized delete; an unsized one (code compiled without sized
// deallocation, inside libstdc++) finds it in the table of live blocks.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "gridscope/trace/pages.hpp"

namespace {

constexpr std::size_t kLarge = std::size_t(1) << 20;
constexpr std::size_t kMaxLive = 16384;  // beyond: further large blocks from malloc

struct Live { void* p; std::size_t bytes; };
Live live[kMaxLive];  // sorted by address
std::size_t nlive = 0;
// The span of the live blocks' addresses, read without the lock: a small block (from malloc's
// heap, below the mappings) is freed without taking it. (The engine itself has one thread; an
// MPI library may start others.)
std::atomic<std::uintptr_t> lowest{UINTPTR_MAX}, highest{0};
gs::pages::SpinLock table;
using Lock = std::lock_guard<gs::pages::SpinLock>;

std::size_t find(void* p) {  // the position of p, or where it would go
  std::size_t lo = 0, hi = nlive;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (live[mid].p < p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void* allocate(std::size_t bytes) {
  if (bytes >= kLarge) {
    Lock lock(table);
    if (nlive < kMaxLive) {
      void* p = gs::pages::take(bytes);
      const std::size_t i = find(p);
      std::memmove(live + i + 1, live + i, (nlive - i) * sizeof(Live));
      live[i] = {p, bytes};
      ++nlive;
      const auto at = reinterpret_cast<std::uintptr_t>(p);
      if (at < lowest.load(std::memory_order_relaxed)) lowest.store(at, std::memory_order_relaxed);
      if (at > highest.load(std::memory_order_relaxed)) highest.store(at, std::memory_order_relaxed);
      return p;
    }
  }
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

void release(void* p) noexcept {
  if (!p) return;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  if (at >= lowest.load(std::memory_order_relaxed) && at <= highest.load(std::memory_order_relaxed)) {
    Lock lock(table);
    const std::size_t i = find(p);
    if (i < nlive && live[i].p == p) {
      gs::pages::give(p, live[i].bytes);
      std::memmove(live + i, live + i + 1, (nlive - i - 1) * sizeof(Live));
      --nlive;
      return;
    }
  }
  std::free(p);
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
