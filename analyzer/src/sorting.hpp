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

}  // namespace gs
