// What root-cause analysis needs of each rank's run (docs/root-causes.md "Timeline of a
// rank"): its synchronisation calls in order and, between them, the exclusive time per
// call path. Filled by the reader only when asked for (Timeline::enabled).
#pragma once
#include <cstdint>
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
// it is seg[seg_begin, seg_end). Each rank's list ends with a pseudo-call (cp = kNone,
// enter = leave = the rank's last event) whose segment is the rank's tail. Its rank is
// where it lies in Timeline::calls (rank_first): 32 bytes a call, not 40.
struct SyncCall {
  int64_t enter, leave;
  uint32_t cp;
  uint32_t seg_begin, seg_end;
  uint32_t barrier_comm;  // the communicator of its MPI_Barrier (kNone: not a barrier; kAllRanks:
                          // MPI_Init, MPI_Init_thread or MPI_Finalize, which synchronise every rank)
};
static_assert(sizeof(SyncCall) == 32, "a timeline call stays at 32 bytes");
constexpr uint32_t kAllRanks = UINT32_MAX - 1;

struct Timeline {
  bool enabled = false;
  std::vector<SyncCall> calls;      // owned ranks one after the other, each in event order
  std::vector<SegEntry> seg;
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
};

}  // namespace gs
