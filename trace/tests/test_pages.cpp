// Page-level memory tools (pages.hpp): arrays in their own mappings, and prefaulting.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <vector>

#include "gridscope/trace/pages.hpp"

namespace {

// Resident pages of [p, p + bytes) (mincore: 1 per resident page).
size_t resident(const void* p, size_t bytes) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t from = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(p) + bytes;
  std::vector<unsigned char> in((to - from + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(from), to - from, in.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

}  // namespace

TEST(PageVector, ReservingTouchesNoPages) {
  gs::PageVector<uint64_t> v;
  v.reserve(size_t(64) << 20);  // 512 MiB of address space
  EXPECT_EQ(resident(v.data(), 16 << 20), 0u);
  for (uint64_t i = 0; i < 1000; ++i) v.push_back(i * 3);
  EXPECT_EQ(v[999], 2997u);
  // 8000 bytes: the first page or two, or the first huge page where the system gives them
  EXPECT_LE(resident(v.data(), 16 << 20), size_t(2 << 20) / size_t(sysconf(_SC_PAGESIZE)));
}

TEST(Prefault, PopulatesAheadOfTheWrites) {
  gs::PageVector<char> v;
  v.reserve(8 << 20);
  gs::Prefault fault;
  v.push_back('x');
  fault.after_push(v);
  // the kernel may refuse MADV_POPULATE_WRITE (before Linux 5.14): then nothing is ahead
  const size_t ahead = resident(v.data(), 2 << 20);
  EXPECT_TRUE(ahead == 1 || ahead == (2u << 20) / uint32_t(sysconf(_SC_PAGESIZE))) << ahead;
}
