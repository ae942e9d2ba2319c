// Timestamp correction (--time-correct): the controlled logical clock (CLC) of Becker,
// Rabenseifner, Wolf, Linford (Parallel Computing 35(12), 2009), as in Scalasca's
// clc_synchronize. Every location's timestamps go through one monotone piecewise-linear
// map built in three steps (docs/analyzer.md "Clocks" has the formulas):
//   1. forward amortisation: C_k = max(t_k, C_{k-1} + ceil(gamma*(t_k - t_{k-1})), L_k),
//      L_k = latest (corrected) send or collective begin feeding event k + minimum latency;
//      a replay in causal order (under -j N: speculated bounds between processes, or
//      the whole step at process 0 when corrections cascade between processes);
//   2. backward amortisation: the events before each jump move forward along the lower
//      convex hull of (ramp start, 0), (each earlier send, its slack), (the jump, its size);
//   3. any timestamp: linear between the location's known events, forward amortisation after.
// Collective operations are sets of logical messages (barrier/N x N: all to all; 1-to-N:
// root to the others; N-to-1: the others to the root; prefix: lower to higher positions).
#pragma once
#include <cstdint>
#include <climits>
#include <vector>

#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/reader.hpp"
#include "transport.hpp"

namespace gs {

// Minimum message latency (docs/analyzer.md "Clocks"), per class of link: within one node,
// between nodes of one metahost, between metahosts; per metahost (pair, unordered).
enum class LinkClass : uint8_t { Node = 0, Host = 1, Grid = 2 };
enum class LatencySource : uint8_t { Trace = 0, Floor = 1, Option = 2 };

// Physical floors: no message is faster, so a learned minimum below one (or none at all)
// gives way to it. Lower bounds on purpose (a floor above a real latency would move correct
// receives): within a node Scalasca's smallest class (0.1 us, shared memory between threads);
// between nodes about half the ~1 us small-message MPI latency of current HPC networks;
// between metahosts the same (two metahosts may be two nodes of one cluster).
constexpr int64_t kFloorNodeNs = 100;
constexpr int64_t kFloorHostNs = 500;
constexpr int64_t kFloorGridNs = 500;
constexpr double kLearnLatency = -1;            // option value: take the latency from the trace
constexpr int64_t kNoObservation = INT64_MAX;  // no message with a positive transfer time

struct ClcOptions {
  // explicit minimum latencies in s (kLearnLatency: from the trace, bounded by the floor)
  double latency_node_s = kLearnLatency;  // within a node
  double latency_host_s = kLearnLatency;  // between nodes of one metahost
  double latency_grid_s = kLearnLatency;  // between metahosts
  double gamma = 0.99;            // forward: the corrected clock runs at >= 99% of the original rate
  double backward_slope = 0.01;   // backward: a shift grows by at most 1% of the time before a jump
  // -j N: rounds of speculation before process 0 replays step 1 for all (0: at once; the
  // tests use that to run the gathering path on tiny traces)
  int speculative_rounds = 8;
};

// The least positive transfer time (receive event - send event) seen; transfers <= 0 are
// clock violations and say nothing about the latency.
struct MinTransfer {
  int64_t value = kNoObservation;
  void add(int64_t transfer) {
    if (transfer > 0 && transfer < value) value = transfer;
  }
};

// A floor in ticks: rounded down (it stays a lower bound), at least 1 tick (a receive is
// never at its send's time).
int64_t floor_ticks(int64_t nanoseconds, uint64_t resolution);

// The latency one link key uses: an explicit option (option_ticks >= 0) wins; else the
// observed minimum when there is one at or above the floor; else the floor.
struct LatencyChoice {
  int64_t ticks;
  LatencySource source;
};
LatencyChoice choose_latency(int64_t observed_ticks, int64_t floor, int64_t option_ticks);

// What the correction used for one link key (reported in summary.json).
struct LinkLatency {
  uint32_t host_a, host_b;  // metahost ids, host_a <= host_b (equal for Node/Host)
  LinkClass cls;
  LatencySource source;
  int64_t ticks;
  int64_t observed_ticks;  // kNoObservation: no message with a positive transfer time
};

struct ClcStats {
  uint64_t corrected_receives = 0;     // point-to-point receives the clock had to move
  uint64_t corrected_collectives = 0;  // collective member ends the clock had to move
  uint64_t rounds = 0;                 // 1 + longest chain of corrections that depend on each other
  uint64_t exchanges = 0;              // bulk exchanges the forward replay took (depends on -j)
  int64_t max_shift_ticks = 0;         // largest corrected - original over all record times
  bool converged = true;               // false: a cycle of bounds (inconsistent trace) was broken
  // why events moved: the largest violation on original times (a receive before its send, a
  // collective end before a begin it waits for; 0: none); one clock (every rank on one node,
  // no latency option: collectives then use at most their least logical transfer); that
  // least positive transfer (kNoObservation: none)
  int64_t max_violation_ticks = 0;
  bool one_clock = false;
  int64_t collective_min_ticks = kNoObservation;
  std::vector<LinkLatency> latencies;  // the link keys the ranks' placement has, in key order
};

constexpr int64_t kNoBound = INT64_MIN;

// Step 1 on one location. `t`: its known event times (ascending, distinct); `lower`: per
// event, the bound from messages (kNoBound: none). `internal` is the clock before the bound
// (max(t_k, C_{k-1} + ceil(gamma*dt))), `corrected` after it.
struct ForwardClock {
  std::vector<int64_t> corrected, internal;
};
ForwardClock forward_clock(const std::vector<int64_t>& t, const std::vector<int64_t>& lower, double gamma);

// Step 2 on one location. `c`: forward-corrected times (ascending); a jump at event `knot`
// of `delta` ticks (corrected - internal); a pin: a send-like event that may move forward by
// at most `slack` ticks. Returns the extra shift per event (>= 0, never above a pin's slack,
// c[k] + shift[k] non-decreasing).
struct Jump { size_t knot; int64_t delta; };
struct Pin { size_t knot; int64_t slack; };
std::vector<int64_t> backward_shift(const std::vector<int64_t>& c, const std::vector<Jump>& jumps,
                                    const std::vector<Pin>& pins, double slope);

// Step 3: corrected time of any original timestamp of one location. Identity before the
// first known event, linear between known events, forward amortisation after the last.
class ClockMap {
 public:
  ClockMap() = default;
  ClockMap(std::vector<int64_t> original, std::vector<int64_t> corrected, double gamma);
  int64_t at(int64_t t) const;

 private:
  std::vector<int64_t> t_, c_;
  double gamma_ = 1.0;
};

// Corrects every timestamp field of the records of the owned ranks, in place.
ClcStats correct_clocks(const Defs& d, LocalData& data, Transport& t, const ClcOptions& o);

}  // namespace gs
