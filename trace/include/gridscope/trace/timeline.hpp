// What root-cause analysis needs of each rank's run (docs/root-causes.md "Timeline of a
// rank"): its synchronisation calls in order and, between them, the exclusive time per
// call path. Filled by the reader only when asked for (Timeline::enabled).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gridscope/trace/records.hpp"

namespace gs {

// Exclusive time of one call path inside a segment (a segment may list a call path twice):
// what Timeline::seg[i] gives. Held as 8 bytes (SegList).
#pragma pack(push, 4)
struct SegEntry { uint32_t cp; int64_t ticks; };
#pragma pack(pop)
static_assert(sizeof(SegEntry) == 12, "a segment entry stays at 12 bytes");

// One synchronisation call: an MPI call holding a communication event. The segment before
// it is seg[Timeline::seg_begin(c), Timeline::seg_end(c)). Each rank's list ends with a
// pseudo-call (cp = kNone, enter = leave = the rank's last event) whose segment is the rank's
// tail. Its rank is where it lies in Timeline::calls (rank_first); its segment's end is the
// next call's begin unless listed in Timeline::seg_ends; a barrier's communicator is in
// Timeline::barriers. What Timeline::calls[c] gives; held as 16 bytes (CallList).
struct SyncCall {
  int64_t enter, leave;
  uint32_t cp;
};
constexpr uint32_t kSegListed = 0x80000000u;
constexpr uint32_t kAllRanks = UINT32_MAX - 1;

// Values of 32 bits with the rare larger ones (all bits set: kWide) kept aside, by index in
// increasing order. Millions of segment entries and calls are held for the whole root-cause
// pass; a segment's time or a call's duration of 2^32 ticks and more (4.3 s at 1 GHz) is rare.
class WideValues {
 public:
  static constexpr uint32_t kWide = UINT32_MAX;
  // the 32-bit form of `v` at index `i`: v itself, or kWide with v kept aside
  uint32_t put(uint32_t i, int64_t v) {
    if (v >= 0 && v < int64_t(kWide)) return uint32_t(v);
    auto it = std::lower_bound(wide_.begin(), wide_.end(), std::make_pair(i, INT64_MIN));
    if (it != wide_.end() && it->first == i) it->second = v;
    else wide_.insert(it, {i, v});
    return kWide;
  }
  [[gnu::always_inline]] int64_t get(uint32_t i, uint32_t v32) const {
    if (v32 != kWide) [[likely]] return v32;
    return wide(i);
  }

 private:
  std::vector<std::pair<uint32_t, int64_t>> wide_;
  [[gnu::noinline, gnu::cold]] int64_t wide(uint32_t i) const {
    return std::lower_bound(wide_.begin(), wide_.end(), std::make_pair(i, INT64_MIN))->second;
  }
};

// Timeline::seg: segment entries, 8 bytes each (the call path and 32 bits of ticks).
class SegList {
 public:
  struct Packed { uint32_t cp, ticks; };
  SegEntry operator[](size_t i) const { return {v_[i].cp, wide_.get(uint32_t(i), v_[i].ticks)}; }
  size_t size() const { return v_.size(); }
  void reserve(size_t n) { v_.reserve(n); }
  void push_back(const SegEntry& e) {
    Packed& p = v_.emplace_back();
    p.cp = e.cp;
    p.ticks = wide_.put(uint32_t(v_.size() - 1), e.ticks);
  }
  const std::vector<Packed>& packed() const { return v_; }

 private:
  std::vector<Packed> v_;
  WideValues wide_;
};

// Timeline::calls: the synchronisation calls, 16 bytes each (the enter time, a 32-bit duration
// with the rare longer ones kept aside, the call path: four to a cache line, where the root-
// cause pass reads them at random) and, 2 bytes a call, their segments' begins: an offset
// from the begin of the call's block of 64 calls (begins only grow) with the kSegListed flag
// in its top bit (offsets of 2^15 - 1 and more kept aside).
class CallList {
 public:
  struct Packed { int64_t enter; uint32_t duration, cp; };
  [[gnu::always_inline]] SyncCall operator[](size_t c) const {
    const Packed& x = v_[c];
    return {x.enter, x.enter + wide_.get(uint32_t(c), x.duration), x.cp};
  }
  void prefetch(size_t c) const { __builtin_prefetch(&v_[c]); }
  size_t size() const { return v_.size(); }
  void reserve(size_t n) {
    v_.reserve(n);
    seg_off_.reserve(n);
    seg_base_.reserve(n / kBlock + 1);
  }
  // a call entered (and, until set_leave, left) at `at` whose segment begins at `seg`
  uint32_t add(int64_t at, uint32_t cp, uint32_t seg) {
    const uint32_t c = uint32_t(v_.size());
    v_.push_back({at, 0, cp});
    if (c % kBlock == 0) seg_base_.push_back(seg);
    const int64_t off = int64_t(seg) - int64_t(seg_base_[c / kBlock]);
    if (off >= 0 && off < kFar) {
      seg_off_.push_back(uint16_t(off));
    } else {
      seg_off_.push_back(kFar);
      far_.push_back({c, seg});  // (calls come in order: far_ stays sorted)
    }
    return c;
  }
  void set_leave(uint32_t c, int64_t leave) { v_[c].duration = wide_.put(c, leave - v_[c].enter); }
  // the segment's begin, with kSegListed when its end is listed (Timeline::seg_ends)
  [[gnu::always_inline]] uint32_t seg(uint32_t c) const {
    const uint16_t o = seg_off_[c];
    const uint32_t listed = o & kListed ? kSegListed : 0;
    if ((o & kFar) != kFar) [[likely]] return (seg_base_[c / kBlock] + (o & kFar)) | listed;
    return far(c) | listed;
  }
  void set_listed(uint32_t c) { seg_off_[c] |= kListed; }
  const std::vector<Packed>& packed() const { return v_; }

 private:
  static constexpr uint32_t kBlock = 64;
  static constexpr uint16_t kListed = 0x8000, kFar = 0x7fff;
  std::vector<Packed> v_;
  WideValues wide_;  // durations of 2^32 ticks and more, and negative ones
  std::vector<uint32_t> seg_base_;  // per block of kBlock calls: its first call's segment begin
  std::vector<uint16_t> seg_off_;   // per call: kListed | offset from its block's base (kFar: in far_)
  std::vector<std::pair<uint32_t, uint32_t>> far_;  // (call, segment begin) where the offset is kFar or more
  [[gnu::noinline, gnu::cold]] uint32_t far(uint32_t c) const {
    return std::lower_bound(far_.begin(), far_.end(), std::make_pair(c, uint32_t(0)))->second;
  }
};

struct Timeline {
  bool enabled = false;
  CallList calls;  // owned ranks one after the other, each in event order
  SegList seg;
  // (call, its segment's end) where that is not the next call's begin (always a rank's last
  // call), in call order
  std::vector<std::pair<uint32_t, uint32_t>> seg_ends;
  // (call, communicator) of each MPI_Barrier; kAllRanks: MPI_Init, MPI_Init_thread or
  // MPI_Finalize, which synchronise every rank
  std::vector<std::pair<uint32_t, uint32_t>> barriers;
  std::vector<uint32_t> rank_first;  // per owned rank (in reading order): its first call
  std::vector<int64_t> rank_start;   // per owned rank: its first event's time
  // per owned rank: its MPI_Init(_thread) and MPI_Finalize call (kNone: not in the trace)
  std::vector<uint32_t> rank_init, rank_finalize;
  // Per record (same index as LocalData's vectors): its synchronisation call.
  std::vector<uint32_t> send_call;       // the call holding the send event
  std::vector<uint32_t> send_done_call;  // the call completing the send (kNone: never completed)
  std::vector<uint32_t> recv_call;       // the call completing the receive
  std::vector<uint32_t> recv_post_call;  // the call posting it (MPI_Irecv, or the blocking receive)
  std::vector<uint32_t> coll_call;       // per blocking collective record

  uint32_t seg_begin(uint32_t c) const { return calls.seg(c) & ~kSegListed; }
  uint32_t seg_end(uint32_t c) const {
    if (!(calls.seg(c) & kSegListed)) return calls.seg(c + 1) & ~kSegListed;
    return std::lower_bound(seg_ends.begin(), seg_ends.end(), std::make_pair(c, uint32_t(0)))->second;
  }
};

}  // namespace gs
