// Compact records the reader keeps per owned location: only communication events are
// stored (Enter/Leave are folded into per-call-path accumulators while streaming).
#pragma once
#include <cstdint>
#include <string>
#include <vector>


namespace gs {

constexpr uint32_t kNone = UINT32_MAX;

// Record indices in posting order; an empty vector stands for the stored order.
using Order = std::vector<uint32_t>;

// Which of its rank's locations a record comes from: 0 for the rank's master location,
// k for the k-th other location of its location group (Defs::rank_threads). Severities are
// charged to (rank, thread); messages and collectives match per rank.
using Thread = uint8_t;
constexpr uint32_t kMaxThreads = 128;  // message records keep 7 bits (messages.hpp)

struct CollRec {
  uint32_t comm, seq, rank, pos, cp, root;
  uint8_t cls;
  Thread thread;
  uint64_t sent, received;
  int64_t begin, end;
};

// One rank's part in a non-blocking collective instance (MPI_Ibarrier, MPI_Iallreduce, ...):
// initiated by an MPI_I* call (NonBlockingCollectiveRequest), completed inside a Wait*/Test*
// (NonBlockingCollectiveComplete). `seq`: the k-th non-blocking collective this rank
// initiated on `comm` (MPI matches them by that order, apart from blocking ones).
struct NbcRec {
  uint32_t comm, seq, rank, pos, root;
  uint32_t cp;                   // call path of the completing Wait*/Test*
  uint32_t call;                 // that call's instance on its location (a Waitall completes several)
  uint32_t after_colls;          // blocking collective records (LocalData::colls) before this one
  // timeline calls (Timeline::calls) of the initiating MPI_I* call and of the completing
  // call (root causes; kNone without a timeline)
  uint32_t req_call, done_call;
  uint8_t cls, is_test;          // CollClass; completed by an MPI_Test*
  Thread thread;
  uint64_t sent, received;
  int64_t join;                  // enter of the initiating MPI_I* call
  int64_t enter, leave;          // the completing call's enter and leave
};

// A call of MPI_Init(_thread) (kind 0) or MPI_Finalize (kind 1) on a rank's master
// location: they synchronise every rank (patterns of the Init and Finalize classes).
struct WorldCall {
  uint32_t rank, cp;
  uint8_t kind, pad[7];
  int64_t enter, leave;
};
constexpr uint8_t kWorldInit = 0, kWorldFinalize = 1;

// Time, visits and bytes of one call path on one location (times in ticks, exclusive); the
// one-sided (RMA) and MPI-IO bytes as Score-P's profile names them.
struct CallPathStats {
  uint32_t cp, rank, thread;
  int64_t time;
  uint64_t visits, bytes_sent, bytes_received;
  uint64_t bytes_put, bytes_get, io_bytes_read, io_bytes_written;
};

// Call-path tree of one analysis process (ids are local to the process; the driver merges
// them by region-name path).
struct CallTree {
  struct Node { uint32_t parent, region, first_child, next_sibling; };
  // Call path of `region` entered from `parent`. A small direct-mapped cache in front of
  // the sibling lists makes the common case one probe (loops re-enter the same children).
  uint32_t child(uint32_t parent, uint32_t region) {
    Slot& slot = cache_[(parent * 0x9E3779B1u ^ region * 0x85EBCA77u) >> (32 - kCacheBits)];
    if (slot.id != kNone && slot.parent == parent && slot.region == region) return slot.id;
    uint32_t id = find_or_add(parent, region);
    slot = {parent, region, id};
    return id;
  }
  std::vector<Node> nodes;

 private:
  struct Slot { uint32_t parent = kNone, region = kNone, id = kNone; };
  static constexpr int kCacheBits = 10;
  Slot cache_[1 << kCacheBits];

  uint32_t find_or_add(uint32_t parent, uint32_t region) {
    uint32_t first = parent == kNone ? roots : nodes[parent].first_child;
    for (uint32_t c = first; c != kNone; c = nodes[c].next_sibling)
      if (nodes[c].region == region) return c;
    uint32_t id = nodes.size();
    nodes.push_back({parent, region, kNone, first});  // may reallocate: no pointers into nodes
    (parent == kNone ? roots : nodes[parent].first_child) = id;
    return id;
  }
  uint32_t roots = kNone;
};

static_assert(sizeof(CollRec) == 64, "compact records");

}  // namespace gs
