// Private to the engine's forward replay: what its point-to-point half (replay.cpp, also
// the driver) and its collective half (replay_collectives.cpp) share — the collective
// records and results they exchange and the severity accumulator.
#pragma once
#include <cstdint>
#include <stdexcept>

#include "replay.hpp"

namespace gs::replay_detail {

// A collective record on its way to the instance's computing process; `index`: its position
// in the member's owner's records, so the results can be put back in that order.
struct CollMsg { CollRec rec; uint32_t index, pad; };
struct NbcMsg { NbcRec rec; uint32_t index, pad; };  // the same for a non-blocking collective
// A member's waiting time in a collective instance, sent back to the member's owner.
// `completion`: a non-blocking collective's completion delay (capped again at the owner).
// `delayer`, `delayer_index`: the member whose lateness caused the wait and its record
// position at its owner (root causes; kNone for completion delays and non-blocking ones).
struct ResMsg {
  uint16_t metric; uint8_t cls, completion; uint32_t cp, rank, index, delayer, delayer_index;
  int64_t start, value;
};

// The canonical wait-state order needs each kind of record grouped by rank in ascending
// order (the reader reads the owned locations one after the other, in rank order): checked
// by the passes that read the records anyway, where one rank's records end (`next` after
// `last`).
[[noreturn]] inline void fail_rank_order() { throw std::logic_error("records are not grouped by rank in ascending order"); }
inline void check_rank_order(uint32_t last, uint32_t next) {
  if (next < last) fail_rank_order();
}

class Accumulator {
 public:
  Accumulator(const Defs& d, ReplayResult& r) : d_(d), r_(r) {}
  void add(uint16_t metric, bool grid, uint32_t cp, uint32_t rank, Thread thread, int64_t start, int64_t ticks) {
    if (ticks <= 0) return;
    double res = double(d_.resolution);
    const uint8_t cls = grid ? CLS_GRID : CLS_LOCAL;
    sev_cache_.at(r_.severities, metric, cls, thread, cp, rank) += ticks / res;
    r_.waits->add(metric, cls, cp, rank, start / res, (start + ticks) / res);
  }

 private:
  const Defs& d_;
  ReplayResult& r_;
  SevCache sev_cache_;
};

// Blocking and non-blocking collectives: instances, their wait states and, with root
// causes, their synchronisation points (replay_collectives.cpp).
void collectives(const Defs& d, LocalData& data, Transport& t, ReplayResult& res, Accumulator& acc);
// MPI_Init(_thread) and MPI_Finalize as instances of every rank (replay_world.cpp).
void world_synchronisations(const Defs& d, const LocalData& data, Transport& t, Accumulator& acc);

}  // namespace gs::replay_detail
