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

// Exclusive time of one call path inside a segment (a segment may list a call path twice).
// Packed to 12 bytes (not 16): millions of them are held for the whole root-cause pass.
#pragma pack(push, 4)
struct SegEntry { uint32_t cp; int64_t ticks; };
#pragma pack(pop)
static_assert(sizeof(SegEntry) == 12, "a segment entry stays at 12 bytes");

// One synchronisation call: an MPI call holding a communication event. The segment before
// it is seg[Timeline::seg_begin(c), Timeline::seg_end(c)). Each rank's list ends with a
// pseudo-call (cp = kNone, enter = leave = the rank's last event) whose segment is the rank's
// tail. Its rank is where it lies in Timeline::calls (rank_first); its segment's end is the
// next call's begin unless listed in Timeline::seg_ends; a barrier's communicator is in
// Timeline::barriers: 24 bytes a call.
struct SyncCall {
  int64_t enter, leave;
  uint32_t cp;
  uint32_t seg;  // its segment's begin; kSegListed: its end is in Timeline::seg_ends
};
static_assert(sizeof(SyncCall) == 24, "a timeline call stays at 24 bytes");
constexpr uint32_t kSegListed = 0x80000000u;
constexpr uint32_t kAllRanks = UINT32_MAX - 1;

struct Timeline {
  bool enabled = false;
  std::vector<SyncCall> calls;      // owned ranks one after the other, each in event order
  std::vector<SegEntry> seg;
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

  uint32_t seg_begin(uint32_t c) const { return calls[c].seg & ~kSegListed; }
  uint32_t seg_end(uint32_t c) const {
    if (!(calls[c].seg & kSegListed)) return calls[c + 1].seg & ~kSegListed;
    return std::lower_bound(seg_ends.begin(), seg_ends.end(), std::make_pair(c, uint32_t(0)))->second;
  }
};

}  // namespace gs
