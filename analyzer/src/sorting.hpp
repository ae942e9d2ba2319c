// Sorting helpers of the replay and the root-cause pass, for records that often arrive in
// order already or whose first key is a dense id.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gs {

// Sorts [first, last) by `less` unless it is sorted already (records read in time order
// usually are): checking costs one pass, sorting n log n comparisons.
template <class It, class Less>
void sort_unless_sorted(It first, It last, Less less) {
  if (!std::is_sorted(first, last, less)) std::sort(first, last, less);
}

// Sorts v[0, n) by `less`, whose first key is gid(x) < range (a global call id): a stable
// counting sort by that key, then each run of one key by `less` (runs are a few entries). The
// same order as std::sort by `less` where no two entries are equal under it (and where they
// are, the callers' equal entries are alike). Falls back to std::sort where the range is far
// larger than n (the counts would cost more than the entries).
template <class T, class Gid, class Less>
void sort_by_gid(T* v, size_t n, uint64_t range, Gid gid, Less less) {
  if (n < 2) return;
  if (range > 8 * uint64_t(n) + (1u << 20) || n >= UINT32_MAX) { std::sort(v, v + n, less); return; }
  std::vector<T> out(n);
  {
    std::vector<uint32_t> first(range + 1, 0);
    for (size_t i = 0; i < n; ++i) first[gid(v[i]) + 1]++;
    for (size_t k = 1; k <= range; ++k) first[k] += first[k - 1];
    for (size_t i = 0; i < n; ++i) out[first[gid(v[i])]++] = v[i];
  }
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    while (b < n && gid(out[b]) == gid(out[a])) ++b;
    if (b - a > 1) std::sort(out.begin() + a, out.begin() + b, less);
    a = b;
  }
  std::copy(out.begin(), out.end(), v);
}

// Sorts v by each value's bits from bit `lo` up: a stable LSD radix sort over 11-bit digits
// (the digits where all values agree are skipped), so values equal in those bits keep their
// order. `scratch` is a buffer of any size. Linear, where std::sort's n log n comparisons
// cost more than the work on the values sorted.
inline void radix_sort_from_bit(std::vector<uint64_t>& v, std::vector<uint64_t>& scratch, unsigned lo) {
  if (v.size() < 2 || lo >= 64) return;
  uint64_t any = 0, all = ~uint64_t(0);
  for (uint64_t x : v) any |= x, all &= x;
  const uint64_t differ = (any ^ all) >> lo;  // the key bits where some values differ
  constexpr unsigned kBits = 11;
  constexpr uint64_t kMask = (uint64_t(1) << kBits) - 1;
  scratch.resize(v.size());
  std::vector<size_t> count(kMask + 2);
  for (unsigned shift = lo; shift < 64 && (differ >> (shift - lo)) != 0; shift += kBits) {
    if (((differ >> (shift - lo)) & kMask) == 0) continue;
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t x : v) ++count[((x >> shift) & kMask) + 1];
    for (size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    for (uint64_t x : v) scratch[count[(x >> shift) & kMask]++] = x;
    v.swap(scratch);
  }
}

}  // namespace gs
