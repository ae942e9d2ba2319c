// Large blocks whose freed resident pages serve the next blocks (pages.hpp).
//
// The kept pages are runs of addresses; a block is cut from the front of the smallest run it
// fits, or (none fits) made of the largest runs moved together in front of fresh pages. All
// state is plain (nothing allocated here: the engine's operator new comes here for large
// blocks), behind a spin lock.
#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <new>

#include "gridscope/trace/pages.hpp"

namespace gs::pages {
namespace {

constexpr uintptr_t kPage = 4096;
constexpr size_t kMaxRuns = 1024;  // beyond: a freed block's pages are unmapped, not kept

struct Run { uintptr_t at, len; };
Run runs[kMaxRuns];
size_t nruns = 0, kept = 0;
SpinLock table;
using Lock = std::lock_guard<SpinLock>;

uintptr_t round_up(size_t bytes) { return (uintptr_t(bytes ? bytes : 1) + kPage - 1) & ~(kPage - 1); }

void unmap(uintptr_t at, uintptr_t len) {
  if (len) munmap(reinterpret_cast<void*>(at), len);
}

// Keeps [at, at + len) (lock held), or unmaps it when the table is full. Runs are not
// merged: mremap moves a range inside one mapping only.
void keep(uintptr_t at, uintptr_t len) {
  if (len == 0) return;
  if (nruns == kMaxRuns) {
    unmap(at, len);
    return;
  }
  runs[nruns++] = {at, len};
  kept += len;
}

void drop(size_t i) {  // (lock held)
  kept -= runs[i].len;
  runs[i] = runs[--nruns];
}

// The first `len` bytes of run i, taken from it (lock held).
uintptr_t cut_front(size_t i, uintptr_t len) {
  const uintptr_t at = runs[i].at;
  runs[i].at += len;
  runs[i].len -= len;
  kept -= len;
  if (runs[i].len == 0) drop(i);
  return at;
}

// A fresh mapping of `len` bytes at `at` (MAP_FIXED: in place of what is there); nullptr
// when the system refuses.
void* fresh(void* at, uintptr_t len) {
  const int fixed = at ? MAP_FIXED : 0;
  void* p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | fixed, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// The front of `block` (len bytes, fresh) filled with kept runs, largest first, their pages
// moved (page tables, not copies) (lock held). A run the kernel cannot move as a whole (it
// spans two mappings) stays kept, as its two halves, and its place in the block is mapped
// fresh again.
void fill_from_runs(uintptr_t block, uintptr_t len) {
  uintptr_t filled = 0;
  while (filled < len && nruns > 0) {
    size_t largest = 0;
    for (size_t i = 1; i < nruns; ++i)
      if (runs[i].len > runs[largest].len) largest = i;
    const uintptr_t piece = std::min(runs[largest].len, len - filled);
    void* to = reinterpret_cast<void*>(block + filled);
    if (mremap(reinterpret_cast<void*>(runs[largest].at), piece, piece, MREMAP_MAYMOVE | MREMAP_FIXED, to) == to) {
      cut_front(largest, piece);
      filled += piece;
      continue;
    }
    if (!fresh(to, piece)) throw std::bad_alloc();
    const Run whole = runs[largest];
    drop(largest);
    if (whole.len < 2 * kPage) {  // (cannot be split: given back)
      unmap(whole.at, whole.len);
      continue;
    }
    const uintptr_t half = whole.len / 2 & ~(kPage - 1);
    keep(whole.at, half);
    keep(whole.at + half, whole.len - half);
  }
}

}  // namespace

void* take(size_t bytes) {
  const uintptr_t need = round_up(bytes);
  Lock lock(table);
  size_t best = nruns;
  for (size_t i = 0; i < nruns; ++i)
    if (runs[i].len >= need && (best == nruns || runs[i].len < runs[best].len)) best = i;
  if (best < nruns) return reinterpret_cast<void*>(cut_front(best, need));  // the smallest run that fits
  void* p = fresh(nullptr, need);
  if (!p) throw std::bad_alloc();
  fill_from_runs(reinterpret_cast<uintptr_t>(p), need);  // (none fits: several, moved together)
  return p;
}

void give(void* p, size_t bytes) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p), len = round_up(bytes);
  // the resident pages, 4096 at a time (a fixed buffer: nothing allocated here)
  unsigned char in[4096];
  uintptr_t run = at;  // the start of the current run of resident or untouched pages
  bool resident = true;
  Lock lock(table);
  for (uintptr_t from = at; from < at + len; from += sizeof in * kPage) {
    const uintptr_t chunk = std::min<uintptr_t>(at + len - from, sizeof in * kPage);
    if (mincore(reinterpret_cast<void*>(from), chunk, in) != 0)  // (cannot say: as if untouched)
      std::fill_n(in, chunk / kPage, 0);
    for (uintptr_t k = 0; k < chunk / kPage; ++k) {
      const bool r = in[k] & 1;
      const uintptr_t page = from + k * kPage;
      if (r != resident) {
        if (resident) keep(run, page - run);
        else unmap(run, page - run);
        run = page;
        resident = r;
      }
    }
  }
  if (resident) keep(run, at + len - run);
  else unmap(run, at + len - run);
}

size_t kept_bytes() {
  Lock lock(table);
  return kept;
}

size_t kept_runs() {
  Lock lock(table);
  return nruns;
}

void release_kept() {
  Lock lock(table);
  for (size_t i = 0; i < nruns; ++i) unmap(runs[i].at, runs[i].len);
  nruns = 0;
  kept = 0;
}

}  // namespace gs::pages
