// Timestamp correction (--time-correct): a forward controlled logical clock after Becker,
// Rabenseifner, Wolf, Linford (Parallel Computing 35(12), 2009), restricted to
// point-to-point messages: every receive is moved to at least send + minimum latency, and
// everything after it on that location moves by the same amount (spacing is kept). The
// latency depends on where the message went: same node, same metahost, across metahosts.
// Corrections propagate through later sends, so the replay iterates bulk exchanges until
// no receive moves any more.
#pragma once
#include <vector>

#include "defs.hpp"
#include "reader.hpp"
#include "transport.hpp"

namespace gs {

struct ClcOptions {
  double latency_node_s = 1e-6;     // Scalasca's CLC: 1 us within a node
  double latency_host_s = 3e-6;     // 3 us between nodes
  double latency_grid_s = 30e-6;    // between metahosts (wide area): a conservative lower bound
  int max_rounds = 64;
};

struct ClcStats {
  uint64_t corrected_receives = 0;
  uint64_t rounds = 0;
  int64_t max_shift_ticks = 0;
  bool converged = true;
};

// A location's correction: piecewise-constant shift, non-decreasing in time.
struct Shift {
  std::vector<std::pair<int64_t, int64_t>> jumps;  // (from time, shift), time-ordered
  int64_t at(int64_t t) const;
};

// The shift of each rank (index = rank; only owned ranks are filled).
ClcStats correct_clocks(const Defs& d, LocalData& data, Transport& t, const ClcOptions& o);

}  // namespace gs
