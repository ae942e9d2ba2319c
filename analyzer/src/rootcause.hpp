// Root-cause analysis after the forward replay (docs/root-causes.md): delay costs (short-
// and long-term, with the grid split of their causes), wait-state classes (direct/indirect,
// propagating/terminal) and the critical path.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/reader.hpp"
#include "replay.hpp"
#include "transport.hpp"

namespace gs {

enum CauseKind : uint8_t { KIND_COMPUTATION = 0, KIND_COMMUNICATION = 1, KIND_WAN = 2 };

// One cause of waiting, summed per key (layout mirrored in gridscope/analysis/root_causes.py).
struct CauseRow {
  uint16_t pattern;  // metric of the wait state caused directly
  uint8_t cls, kind;  // class of that wait state; CauseKind
  uint32_t cp, rank;  // where the delay was spent
  uint32_t wait_metahost;  // metahost of the waiting rank
  double short_s, long_s;
};
// A stretch of the critical path on one rank (process 0 writes them, in path order: from
// the end of the run backward).
struct PathPiece { uint32_t rank, pad; double start, end; };
// WAN excess (docs/root-causes.md, "WAN transfer") per receiving call path and rank, by the
// metahost the messages came from: splits a WAN cause among the links into its site.
struct WanSourceRow { uint32_t cp, rank, from, pad; double seconds; };
static_assert(sizeof(CauseRow) == 32 && sizeof(PathPiece) == 24 && sizeof(WanSourceRow) == 24, "row layout");

struct RootCauseResult {
  std::unordered_map<SevKey, double, SevKeyHash> severities;  // delay, wait-class, critical-path metrics
  std::vector<CauseRow> causes;   // in key order
  std::vector<PathPiece> path;    // process 0 only
  std::vector<WanSourceRow> wan_sources;  // in (cp, rank, from) order
  // totals over all processes (process 0)
  uint64_t wait_states = 0, with_delayer = 0, propagation_edges = 0, unordered = 0;
  uint32_t path_start_rank = kNone;
  double path_length_s = 0;
};

// `mine`: the owned ranks (ascending, in the timeline's order). Needs data.timeline and the
// root-cause parts of `fwd` (ReplayResult::rc_waits ...).
RootCauseResult root_causes(const Defs& d, const LocalData& data, const ReplayResult& fwd, Transport& t,
                            const std::vector<uint32_t>& mine);

void write_root_cause_files(const std::string& dir, const RootCauseResult& rc, int process);

}  // namespace gs
