// Rows of the engine's output files (raw binary; layout mirrored in
// gridscope/analysis/engine_files.py) and the severity accumulator's key.
#pragma once
#include <cstdint>
#include <cstddef>

#include "../generated/gs_patterns.hpp"

namespace gs {

// `thread`: the rank's location the value belongs to (Thread, records.hpp; 0: its master).
struct SevKey {
  uint16_t metric; uint8_t cls, thread; uint32_t cp, rank;
  bool operator==(const SevKey& o) const {
    return metric == o.metric && cls == o.cls && thread == o.thread && cp == o.cp && rank == o.rank;
  }
};
struct SevKeyHash {
  size_t operator()(const SevKey& k) const { return of(k.metric, k.cls, k.thread, k.cp, k.rank); }
  static size_t of(uint16_t metric, uint8_t cls, uint8_t thread, uint32_t cp, uint32_t rank) {
    return (uint64_t(cp) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(rank) << 20) ^ (uint64_t(metric) << 8) ^ cls ^
           (uint64_t(thread) << 56);
  }
};

// A slot of a direct-mapped cache of 2^Bits entries, from all of a hash's bits (SevKeyHash's
// low bits hold only the call path and class: `% size` put a wait's class metrics, and every
// rank, in one slot).
template <int Bits>
size_t cache_slot(size_t h) {
  return size_t((uint64_t(h) * 0x9E3779B97F4A7C15ull) >> (64 - Bits));
}

// Severities through a small direct-mapped cache of a map's entries (they stay put when an
// unordered_map grows): most updates hit a key a recent one used (a rank's instances come one
// after the other, each with a few keys). The fields are compared as they are and the key is
// made only on a miss: a key made on the stack with narrow stores and compared with wide loads
// stalled on store forwarding.
class SevCache {
 public:
  template <class Map>
  double& at(Map& map, uint16_t metric, uint8_t cls, uint8_t thread, uint32_t cp, uint32_t rank) {
    Slot& s = slots_[cache_slot<kBits>(SevKeyHash::of(metric, cls, thread, cp, rank))];
    const SevKey& k = s.key;
    if (!(s.value && k.cp == cp && k.rank == rank && k.metric == metric && k.cls == cls && k.thread == thread)) {
      const SevKey key{metric, cls, thread, cp, rank};
      s = {key, &map[key]};
    }
    return *s.value;
  }

 private:
  static constexpr int kBits = 8;
  struct Slot { SevKey key{}; double* value = nullptr; };
  Slot slots_[1 << kBits];
};

// Output rows (written as raw binary; layout mirrored in gridscope/analysis/engine_files.py).
enum : uint8_t { CLS_LOCAL = 0, CLS_GRID = 1, CLS_NONE = 2 };
struct SevRow { uint16_t metric; uint8_t cls; uint8_t thread; uint32_t cp; uint32_t rank; uint32_t pad; double value; };
struct WaitRow { uint16_t metric; uint8_t cls; uint8_t pad; uint32_t cp; uint32_t rank; uint32_t pad2; double start, end; };
// Messages from one metahost to another. `ready` messages are those whose receive was
// posted before the send and whose completing call waited for at least half the transfer:
// their transfer time (receive event minus send event) is the network's, not a receiver's
// lateness (docs/analyzer.md, "WAN links"). `large` ones are the ready messages of at least
// kLargeMessageBytes; large_bytes and large_seconds are the fastest of them (a transfer
// time can only be inflated: a multi-completion call records its receives at its end).
struct PairRow {
  uint32_t from, to;
  uint64_t bytes, messages;
  double max_rate, min_duration;
  uint64_t ready_messages, large_messages, large_bytes;
  // ready_ticks: their transfer times summed in ticks (integers, exact in a double whatever
  // the order of the sum, so the same for any -j); ready_min: of the small ones (< 0: none)
  double ready_ticks, ready_min, large_seconds;
};
constexpr uint64_t kLargeMessageBytes = 32768;
static_assert(sizeof(SevRow) == 24 && sizeof(WaitRow) == 32 && sizeof(PairRow) == 88, "row layout");

}  // namespace gs
