// Page-level memory tools (pages.hpp): arrays in their own mappings, and prefaulting.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gridscope/trace/pages.hpp"
#include "gridscope/trace/timeline.hpp"

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

long minor_faults() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

const size_t kPage = size_t(sysconf(_SC_PAGESIZE));

// Three blocks of `bytes` from gs::pages, written whole (block i with 'a' + i), and freed;
// `apart`, a block taken after them and kept live, stands between their runs.
void three_freed_blocks(size_t bytes, char** apart) {
  std::vector<char*> blocks;
  for (int i = 0; i < 3; ++i) {
    blocks.push_back(static_cast<char*>(gs::pages::take(bytes)));
    std::memset(blocks.back(), 'a' + i, bytes);
  }
  *apart = static_cast<char*>(gs::pages::take(size_t(1) << 20));
  for (char* p : blocks) gs::pages::give(p, bytes);
}

}  // namespace

// A freed block's written pages are kept and serve the next block that fits: writing it
// takes no page fault; its untouched pages are not kept (given back to the system).
TEST(Pages, FreedPagesServeTheNextBlock) {
  gs::pages::release_kept();
  const size_t mb = size_t(1) << 20;
  char* a = static_cast<char*>(gs::pages::take(16 * mb));
  std::memset(a, 1, 4 * mb);  // 4 of 16 MiB written
  gs::pages::give(a, 16 * mb);
  EXPECT_EQ(gs::pages::kept_bytes(), 4 * mb);
  const long before = minor_faults();
  char* b = static_cast<char*>(gs::pages::take(3 * mb));
  std::memset(b, 2, 3 * mb);
  EXPECT_LT(minor_faults() - before, 16);  // (3 MiB of fresh pages: 768 faults)
  EXPECT_EQ(gs::pages::kept_bytes(), 1 * mb);
  gs::pages::give(b, 3 * mb);
  EXPECT_EQ(gs::pages::kept_bytes(), 4 * mb);
  gs::pages::release_kept();
  EXPECT_EQ(gs::pages::kept_bytes(), 0u);
  EXPECT_EQ(gs::pages::kept_runs(), 0u);
}

// A block larger than every kept run is made of the runs moved together (their pages stay
// resident and keep their contents), then fresh pages.
TEST(Pages, RunsTooSmallAreMovedTogether) {
  gs::pages::release_kept();
  const size_t mb = size_t(1) << 20;
  char* keep_apart;
  three_freed_blocks(2 * mb, &keep_apart);
  EXPECT_EQ(gs::pages::kept_bytes(), 6 * mb);
  char* big = static_cast<char*>(gs::pages::take(10 * mb));
  EXPECT_EQ(gs::pages::kept_bytes(), 0u);
  EXPECT_EQ(resident(big, 6 * mb), 6 * mb / kPage);  // moved, not copied or faulted
  EXPECT_EQ(resident(big + 6 * mb, 4 * mb), 0u);
  for (size_t at = 0; at < 6 * mb; at += 2 * mb) {  // each run's pages whole, in some order
    const char c = big[at];
    EXPECT_TRUE(c >= 'a' && c <= 'c');
    EXPECT_EQ(big[at + 2 * mb - 1], c);
  }
  std::memset(big, 0, 10 * mb);  // the whole block is usable
  gs::pages::give(big, 10 * mb);
  gs::pages::give(keep_apart, mb);
  gs::pages::release_kept();
}

// A block made of moved runs is several mappings; its pages, kept again as one run, may
// span them (mremap moves a range inside one mapping only): the next block made from that
// run still gets every page it can and is whole.
TEST(Pages, RunsOverSeveralMappingsStillServe) {
  gs::pages::release_kept();
  const size_t mb = size_t(1) << 20;
  char* apart;
  three_freed_blocks(2 * mb, &apart);
  char* composed = static_cast<char*>(gs::pages::take(8 * mb));  // 6 MiB moved + 2 fresh
  std::memset(composed, 2, 8 * mb);
  gs::pages::give(composed, 8 * mb);
  EXPECT_EQ(gs::pages::kept_bytes(), 8 * mb);
  char* next = static_cast<char*>(gs::pages::take(16 * mb));
  const size_t moved = resident(next, 8 * mb);
  EXPECT_LE(moved + gs::pages::kept_bytes() / kPage, 8 * mb / kPage);  // (none counted twice)
  std::memset(next, 3, 16 * mb);  // every page of the block is there
  EXPECT_EQ(next[16 * mb - 1], 3);
  gs::pages::give(next, 16 * mb);
  gs::pages::give(apart, mb);
  gs::pages::release_kept();
  EXPECT_EQ(gs::pages::kept_bytes(), 0u);
}

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

// The timeline's compact storage (timeline.hpp) gives back every value: segment ticks of
// 2^32 and more (kept aside) and negative ones; calls' long durations, a leave set twice and
// after a later call's.
TEST(Timeline, CompactStorageKeepsEveryValue) {
  gs::Timeline tl;
  const int64_t big = int64_t(1) << 40, edge = int64_t(UINT32_MAX);
  const uint32_t a = tl.calls.add(100, 7, 0);
  const uint32_t b = tl.calls.add(200, 8, 3);
  const uint32_t c = tl.calls.add(-50, gs::kNone, 5);
  tl.calls.set_leave(b, 200 + big);
  tl.calls.set_leave(a, 100 + edge);  // (set after a later call's)
  tl.calls.set_leave(c, -50);
  tl.calls.set_listed(c);
  EXPECT_EQ(tl.calls[a].enter, 100);
  EXPECT_EQ(tl.calls[a].leave, 100 + edge);
  EXPECT_EQ(tl.calls[b].leave, 200 + big);
  tl.calls.set_leave(b, 210);  // narrow again
  EXPECT_EQ(tl.calls[b].leave, 210);
  EXPECT_EQ(tl.calls[a].leave, 100 + edge);
  EXPECT_EQ(tl.calls[c].leave, -50);
  EXPECT_EQ(tl.calls[c].cp, gs::kNone);
  EXPECT_EQ(tl.calls[b].cp, 8u);
  EXPECT_EQ(tl.seg_begin(b), 3u);
  EXPECT_EQ(tl.seg_begin(c), 5u);
  EXPECT_EQ(tl.calls.seg(c), 5u | gs::kSegListed);
  EXPECT_EQ(tl.seg_end(a), 3u);

  const int64_t ticks[] = {1, edge - 1, edge, big, -3, 0};
  for (uint32_t i = 0; i < 6; ++i) tl.seg.push_back({i + 10, ticks[i]});
  ASSERT_EQ(tl.seg.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(tl.seg[i].cp, i + 10);
    EXPECT_EQ(tl.seg[i].ticks, ticks[i]);
  }
  EXPECT_EQ(sizeof(tl.seg.packed()[0]), 8u);
  EXPECT_EQ(sizeof(tl.calls.packed()[0]), 16u);
}

// Segment begins (Timeline::seg_begin) as CallList keeps them: offsets in blocks of 64 calls,
// far ones aside, the listed flag apart from the begin.
TEST(Timeline, SegmentBeginsKeptExactly) {
  gs::Timeline tl;
  std::vector<uint32_t> begin;
  uint32_t b = 5;
  for (uint32_t c = 0; c < 300; ++c) {
    b += c == 70 ? 40000 : c == 200 ? 0x7ffe : c % 3;  // two far jumps, one just short of far
    begin.push_back(b);
    tl.calls.add(c, c, b);
    if (c % 7 == 0) tl.calls.set_listed(c);
  }
  for (uint32_t c = 0; c < 300; ++c) {
    EXPECT_EQ(tl.seg_begin(c), begin[c]) << c;
    EXPECT_EQ(tl.calls.seg(c), begin[c] | (c % 7 == 0 ? gs::kSegListed : 0u)) << c;
    if (c + 1 < 300 && c % 7 != 0) EXPECT_EQ(tl.seg_end(c), begin[c + 1]) << c;
  }
}
