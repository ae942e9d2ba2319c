// The parallel replay: exchanges the partner timestamps along the recorded message paths
// and collective instances, computes the wait states and writes the engine files.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/reader.hpp"
#include "rows.hpp"
#include "rules.hpp"
#include "transport.hpp"

namespace gs {

struct Counters {
  uint64_t events = 0, mpi_events = 0, clock_violations = 0, unmatched_sends = 0, unmatched_receives = 0,
           incomplete_collectives = 0, clock_offset_locations = 0, messages = 0, collectives = 0,
           byte_mismatches = 0;
};

uint32_t owner_of(uint32_t rank, uint32_t ranks, int processes);
// owner_of for every rank, looked up: the loops over sends, wait states and collective
// members that ask it per record made a call and a 64-bit division each.
class RankOwners {
 public:
  RankOwners(uint32_t ranks, int processes) : of_(ranks) {
    for (uint32_t r = 0; r < ranks; ++r) of_[r] = owner_of(r, ranks, processes);
  }
  uint32_t operator()(uint32_t rank) const { return of_[rank]; }

 private:
  std::vector<uint32_t> of_;
};

// One engine output file, whole; throws gs::Error naming it on failure.
void write_file(const std::string& path, const void* data, size_t bytes);

// Wait-state instances go straight to a file through a small buffer: on big traces they
// are millions of rows nobody needs in memory.
//
// Canonical row order (docs/analyzer.md): by phase (WaitPhase), then rank, then the order
// in which the rank's instances are found. A process owns a contiguous block of ranks, so
// each process writes its rows phase by phase and counts them (phase_rows); the driver
// reads phase 0 of every process in process order, then phase 1, ...: the same rows in
// the same order for any number of processes.
// MPI_Init and MPI_Finalize (PHASE_WORLD) come after the collectives: each phase's rows are
// written rank by rank, so any -j writes them in one order.
enum WaitPhase : int { PHASE_RECEIVER = 0, PHASE_LATE_RECEIVER = 1, PHASE_COLLECTIVE = 2, PHASE_WORLD = 3, kWaitPhases = 4 };

class WaitWriter {
 public:
  WaitWriter() = default;
  // Writes one raw little-endian file per column, `PREFIX.<column>.bin` (kWaitColumns):
  // the driver maps each file as one array, no parsing and no concatenation.
  explicit WaitWriter(const std::string& prefix);
  ~WaitWriter();
  WaitWriter(const WaitWriter&) = delete;
  WaitWriter& operator=(const WaitWriter&) = delete;
  // (fields, not a WaitRow: a row made on the stack with narrow stores and copied with
  // wide loads stalled on store forwarding; each field goes straight to its column)
  void add(uint16_t metric, uint8_t cls, uint32_t cp, uint32_t rank, double start, double end) {
    start_[n_] = start; end_[n_] = end; cp_[n_] = cp; rank_[n_] = rank; metric_[n_] = metric; cls_[n_] = cls;
    if (++n_ == kChunk) flush();
    ++count_;
  }
  // From now on, every flush of the column files says on stdout how many rows are on disk
  // ("gridscope-replay: wait rows N", N = 0 at once): one process alone writes the rows in
  // the canonical order, so the driver can convert them while the replay goes on.
  void report_rows();
  void close();  // throws gs::Error on a write failure
  uint64_t count() const { return count_; }
  // Ends phase `phase` (phases end in order): its rows are those added since the last one.
  void end_phase(WaitPhase phase);
  const uint64_t* phase_rows() const { return phase_rows_; }
  std::vector<WaitRow> kept;  // rows, when constructed without a path (unit tests)

 private:
  void flush();
  void say_rows();
  static constexpr size_t kChunk = 1 << 15;
  std::string prefix_;
  FILE* files_[6] = {};
  // the rows not flushed yet, one array per column file (kWaitColumns order)
  std::vector<double> start_ = std::vector<double>(kChunk), end_ = std::vector<double>(kChunk);
  std::vector<uint32_t> cp_ = std::vector<uint32_t>(kChunk), rank_ = std::vector<uint32_t>(kChunk);
  std::vector<uint16_t> metric_ = std::vector<uint16_t>(kChunk);
  std::vector<uint8_t> cls_ = std::vector<uint8_t>(kChunk);
  size_t n_ = 0;
  uint64_t count_ = 0;
  uint64_t on_disk_ = 0;  // rows flushed
  bool report_ = false;
  uint64_t phase_rows_[kWaitPhases] = {};
  int phases_ended_ = 0;
  bool failed_ = false;
};

// A wait state as root-cause analysis needs it (docs/root-causes.md): the waiting
// synchronisation call and the delayer, named by its record at the delayer's owner.
enum RcRef : uint8_t { REF_SEND = 0, REF_RECV_POST = 1, REF_COLL = 2 };
struct RcWait {
  uint32_t call;                    // Timeline::calls index of the waiting call
  uint16_t metric;
  uint8_t cls, ref;                 // ref: what delayer_index indexes (RcRef)
  uint32_t delayer, delayer_index;  // delayer rank (kNone: unknown) and its record
  int64_t ticks;
};

struct ReplayResult {
  Rules rules = Rules::Scalasca;  // those the replay followed; the root causes follow them too
  std::unordered_map<SevKey, double, SevKeyHash> severities;
  WaitWriter* waits = nullptr;
  std::vector<PairRow> pairs;  // metahost x metahost
  Counters counters;
  // Root causes only (LocalData::timeline.enabled): the wait states in scope, the transfer
  // time inside its completing call of each receive whose message crossed metahosts (with
  // its receive index and ranks: the pass needs no message record; in receive order), and the
  // synchronisation call of each collective record position.
  std::vector<RcWait> rc_waits;
  struct Transfer { uint32_t recv, src, dst, pad; int64_t ticks; };
  std::vector<Transfer> recv_transfer;
  std::vector<uint32_t> coll_position_call;
  // per collective record position: its completion time as a synchronisation point (-1: not
  // one) and the communicator when it synchronised with every member (kNone: not so; scout's rules)
  std::vector<int64_t> coll_position_sync;
  std::vector<uint32_t> coll_position_group;
  // Members of N-to-N instances without full overlap that synchronised with each other
  // (scout's rule): coll_position_group = kSyncSetFlag | index here; each set's ranks, sorted.
  std::vector<std::vector<uint32_t>> sync_sets;
};
constexpr uint32_t kSyncSetFlag = 0x40000000u;  // below kAllRanks and kNone, above any communicator id

// `waits` receives every wait-state instance. Frees the records as it is done with them:
// data.sends, data.recvs and data.recv_order after the messages, data.colls and data.nbcs
// once sent to their instances' owners.
ReplayResult replay(const Defs& defs, LocalData& data, Transport& t, WaitWriter& waits, Rules rules);

// callpaths.P.tsv: the call paths of process P's records (complete once they are read).
void write_callpaths(const std::string& dir, const Defs& defs, const LocalData& data, int process);
// severities.P.bin and pairs.P.bin.
void write_engine_files(const std::string& dir, const Defs& defs, const LocalData& data, const ReplayResult& res,
                        int process);

}  // namespace gs
