// Streams the events of the locations this process owns through OTF2 callbacks: call-path
// time/visits/bytes are accumulated on the fly, communication events become compact records.
#pragma once
#include <otf2/otf2.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/events.hpp"
#include "gridscope/trace/messages.hpp"
#include "gridscope/trace/pages.hpp"
#include "gridscope/trace/records.hpp"
#include "gridscope/trace/timeline.hpp"

namespace gs {

struct LocalData {
  CallTree tree;
  // the message records, sends and receives with one channel table (ids compare across them)
  std::shared_ptr<Channels> channels = std::make_shared<Channels>();
  SendRecords sends{channels};
  RecvRecords recvs{channels};  // per location in completion order
  Order recv_order;               // receives in posting order (empty: completion order is it)
  PageVector<CollRec> colls;
  PageVector<NbcRec> nbcs;        // non-blocking collectives, per location in completion order
  std::vector<WorldCall> world_calls;  // the owned ranks' MPI_Init(_thread) and MPI_Finalize calls
  std::vector<CallPathStats> cp_stats;  // per (call path, rank) with visits
  uint64_t events = 0;
  uint64_t mpi_events = 0;
  // The ranks' other locations (threads) that hold MPI events: read, and merged into their
  // rank's records (the others are read, found without MPI, and left out).
  uint64_t thread_locations = 0, thread_events = 0;
  uint64_t clock_offsets_applied = 0;
  // The earliest Enter and the latest Leave read (ticks after the global offset): the run's
  // span on these ranks (INT64_MAX / INT64_MIN: none read).
  int64_t first_ts = INT64_MAX, last_ts = INT64_MIN;
  RepairLog repairs;              // user regions repaired while reading
  Timeline timeline;              // filled when timeline.enabled is set before reading
};

// Reads the owned ranks' events (in `ranks` order) into `out`; throws gs::Error. A rank's
// threads (Defs::rank_threads) that call MPI are analysed with it: their records join the
// rank's in time order (sends by their send event, receives by completion and by posting,
// collectives by their calls), so messages and collective instances match per rank, as MPI
// matches them; call-path statistics and severities keep the thread (records.hpp). The
// timeline is the master locations' only: root causes need a trace without such threads.
void read_locations(Archive& archive, const std::vector<uint32_t>& ranks, LocalData& out);

}  // namespace gs
