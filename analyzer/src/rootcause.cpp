// Root-cause analysis (docs/root-causes.md), after the forward replay:
//  1. waiting owners -> delayer owners: each wait state with the waiting side's time map
//     (computed in place when both ranks are ours); the delayer owner computes the delay,
//     the short-term costs and the wait list, which goes to process 0 as the propagation
//     graph; back to the waiting owner go the indirect part and where the path would move.
//     A collective's wait states the other way round (rootcause_collectives.cpp): the
//     delayer owner sends the intervals, the waiting owners compute the costs and send
//     each waiting rank's sums back;
//  2. waiting owners: the calls the critical path can leave through go to the last process,
//     which walks the path while process 0 solves the long-term costs per waiting call; the
//     wait-state classes (at process 0 after its solve, elsewhere while it solves);
//  3. process 0 -> waiting owners -> delayer owners: each wait state's inherited costs,
//     charged to its delays; process 0 -> owners: the path's covered stretches.
// Every sum runs in an order fixed by global call ids and each rank's wait-state order,
// never by the number of processes, so any -j writes the same values.
#include "rootcause.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_set>

#include "gridscope/trace/error.hpp"
#include "rootcause_impl.hpp"

namespace gs::rootcause_detail {

RootCauseResult Analysis::run() {
  const bool timing = rc_timing();
  auto t0 = std::chrono::steady_clock::now();
  long faults = 0;  // minor page faults (fresh pages) until the last lap
  double cpu0 = 0;   // CPU time (user + system) until the last lap: under load, steadier than the wall
  auto lap = [&](const char* what) {
    if (!timing) return;
    auto now = std::chrono::steady_clock::now();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    std::fprintf(stderr, "root causes [%d] %s: %.3f s (CPU %.3f s), RSS %ld MB, peak RSS %ld MB, %ld page faults\n", me_,
                 what, std::chrono::duration<double>(now - t0).count(), cpu - cpu0, resident_mb(), ru.ru_maxrss / 1024,
                 ru.ru_minflt - faults);
    t0 = now;
    faults = ru.ru_minflt;
    cpu0 = cpu;
  };
  lap("start");
  if (timing)
    std::fprintf(stderr, "root causes [%d] calls %zu seg %zu waits %zu\n", me_, tl_.calls.size(), tl_.seg.size(),
                 fwd_.rc_waits.size());
  setup();
  synchronisations();
  lap("setup");
  delays();
  lap("delays");
  if (timing) std::fprintf(stderr, "root causes [%d] dents %zu wrecs %zu graph %zu B\n", me_, dents_.size(), wrecs_.size(), graph_in_.size());
  graph_and_path();  // (the wait classes within: process 0 finds them after its solve)
  lap("graph and path");
  finish();
  lap("finish");
  return std::move(out_);
}

// ---- set-up: MPI call paths (and the other processes' call paths), global call ids, local
// transfer minima, per-call waits
void Analysis::setup() {
  cp_mpi_.resize(ncp_);
  for (size_t i = 0; i < ncp_; ++i) cp_mpi_[i] = d_.regions[data_.tree.nodes[i].region].is_mpi;
  if (P_ > 1) translate_call_paths();
  const auto& calls = tl_.calls;
  std::vector<Bytes> out(P_);
  for (size_t s = 0; s < mine_.size(); ++s) {
    const uint32_t init = tl_.rank_init[s], fin = tl_.rank_finalize[s], first = tl_.rank_first[s];
    const RankCount rc{mine_[s], init == kNone ? kNone : init - first, fin == kNone ? kNone : fin - first, 0,
                       rank_end(s) - first, tl_.rank_start[s], calls[rank_end(s) - 1].enter,
                       init == kNone ? 0 : calls[init].enter, init == kNone ? 0 : calls[init].leave,
                       fin == kNone ? 0 : calls[fin].enter};
    for (int p = 0; p < P_; ++p) append(out[p], rc);
  }
  std::vector<uint64_t> count(d_.ranks(), 0);
  ranks_.assign(d_.ranks(), RankCount{});
  Bytes in = t_.exchange(out);
  for (Cursor c(in); !c.done();) {
    RankCount rc = c.get<RankCount>();
    count[rc.rank] = rc.calls;
    ranks_[rc.rank] = rc;
  }
  gbase_.assign(d_.ranks() + 1, 0);
  for (uint32_t r = 0; r < d_.ranks(); ++r) gbase_[r + 1] = gbase_[r] + count[r];

  const size_t M = d_.metahosts.size();
  std::vector<int64_t> local_min(M, INT64_MAX);
  for (size_t m = 0; m < M && m * M + m < fwd_.pairs.size(); ++m) {
    double s = fwd_.pairs[m * M + m].min_duration;
    if (s >= 0) local_min[m] = std::llround(s * res_);
  }
  if (M) t_.min(local_min.data(), int(M));

  if (calls.size() >= kFar) throw std::logic_error("root causes: more than 2^31 calls at one process");
  aux_of_.assign(calls.size(), kNone);
  for (const RcWait& w : fwd_.rc_waits) aux_of_[w.call] = 0;
  uint32_t naux = 0;
  for (uint32_t& a : aux_of_)
    if (a == 0) a = naux++;
  aux_wait_.assign(naux, 0);
  for (const RcWait& w : fwd_.rc_waits) aux_wait_[aux_of_[w.call]] += w.ticks;
  // the WAN excess arrays only once some call has one (beside aux_wait_ from then on): a
  // trace without transfers across metahosts needs neither (12 B per call with waits)
  for (const ReplayResult::Transfer& x : fwd_.recv_transfer) {  // in receive order (the replay's)
    const uint32_t c = tl_.recv_call[x.recv];
    const int64_t lm = local_min[d_.rank_metahost[x.dst]];
    const int64_t excess = std::min(x.ticks - (lm == INT64_MAX ? 0 : lm),
                                    calls[c].leave - calls[c].enter - wait_of(c));
    if (excess > 0) {
      if (aux_wan_.empty()) aux_wan_.assign(aux_wait_.size(), 0), aux_wan_from_.assign(aux_wait_.size(), 0);
      if (aux_of_[c] == kNone) {
        aux_of_[c] = uint32_t(aux_wait_.size());
        aux_wait_.push_back(0), aux_wan_.push_back(0), aux_wan_from_.push_back(0);
      }
      const uint32_t a = aux_of_[c];
      if (excess > aux_wan_[a]) {
        aux_wan_[a] = excess;
        aux_wan_from_[a] = d_.rank_metahost[x.src];
      }
    }
  }
  report_memory("wan");
  wan_sources();
  std::vector<uint32_t>().swap(aux_wan_from_);  // (read there only)
}

// Every process's call paths to ours (cp_from_), by their chains of region names: the
// waiting sides' time maps arrive in the senders' call paths, translated by a table lookup.
void Analysis::translate_call_paths() {
  std::vector<uint64_t> hash(ncp_);
  std::unordered_map<uint64_t, uint32_t> ours;
  for (size_t i = 0; i < ncp_; ++i) {
    const auto& n = data_.tree.nodes[i];
    hash[i] = mix(n.parent == kNone ? 0 : hash[n.parent], name_hash(d_.regions[n.region].name));
    ours.emplace(hash[i], uint32_t(i));  // (the first of equal chains)
  }
  std::vector<Bytes> out(P_);
  for (int p = 0; p < P_; ++p) {
    if (p == me_) continue;
    append(out[p], uint64_t(ncp_));
    for (uint64_t h : hash) append(out[p], h);
  }
  cp_from_.assign(P_, {});
  cp_to_.assign(P_, {});
  Bytes in = t_.exchange(out);
  Cursor c(in);
  std::unordered_map<uint64_t, uint32_t> theirs;
  size_t most = 0;
  for (int p = 0; p < P_; ++p) {
    if (p == me_) continue;
    cp_from_[p].resize(c.get<uint64_t>());
    theirs.clear();
    for (uint32_t i = 0; i < cp_from_[p].size(); ++i) {
      const uint64_t h = c.get<uint64_t>();
      theirs.emplace(h, i);
      auto it = ours.find(h);
      cp_from_[p][i] = it == ours.end() ? kNone : it->second;
    }
    cp_to_[p].resize(ncp_);
    for (size_t i = 0; i < ncp_; ++i) {
      auto it = theirs.find(hash[i]);
      cp_to_[p][i] = it == theirs.end() ? kNone : it->second;
    }
    most = std::max(most, cp_from_[p].size());
  }
  tt_ = TimeMap(most);
}

// Per (call path, rank, source metahost): the WAN excess of the calls, summed.
void Analysis::wan_sources() {
  if (aux_wan_.empty()) return;  // no call has one
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> sums;
  for (uint32_t c = 0; c < aux_of_.size(); ++c)
    if (const uint32_t a = aux_of_[c]; a != kNone && aux_wan_[a] > 0)
      sums[{tl_.calls[c].cp, rank_of(c), aux_wan_from_[a]}] += aux_wan_[a];
  for (const auto& [k, v] : sums)
    out_.wan_sources.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), 0, double(v) / res_});
}

// Which calls synchronised with which ranks, as scout's synchronisation points
// (SynchpointHandler): a point-to-point pair only where a wait state is, on both its sides
// (the waiting call and the delayer's call); a collective's synchronising members with
// the member they waited for (or with every member: a barrier, an N-to-N instance whose
// members all overlap); MPI_Init and MPI_Finalize with every rank. Each with its
// completion time, the part of the call after the synchronisation that the next interval
// keeps (`PruneDelayTimemap` in scout's DelayOps.cpp): own leave - the partner's leave for
// a message (for the waiting side of a Late Receiver see waiting_completion),
// the instance's rule for collectives (replay.cpp, coll_sync), own leave - max(earliest
// leave, latest enter) of MPI_Init. Kept per (rank, peer) as (call, completion) in
// ascending call order: an interval's start is then one search.
void Analysis::synchronisations() {
  const uint32_t N = d_.ranks();
  const auto& calls = tl_.calls;
  call_completion_.assign(calls.size(), 0);
  group_comm_.assign(calls.size(), kNone);
  for (size_t pos = 0; pos < fwd_.coll_position_call.size(); ++pos) {
    const uint32_t c = fwd_.coll_position_call[pos];
    if (c == kNone || pos >= fwd_.coll_position_sync.size() || fwd_.coll_position_sync[pos] < 0) continue;
    call_completion_[c] = fwd_.coll_position_sync[pos];
    if (fwd_.coll_position_group[pos] != kNone) group_comm_[c] = fwd_.coll_position_group[pos];
  }
  // MPI_Init: every rank's enter and leave are known here (setup)
  int64_t init_latest_enter = INT64_MIN, init_earliest_leave = INT64_MAX;
  bool all_init = N > 0;
  for (uint32_t r = 0; r < N; ++r) {
    all_init &= ranks_[r].init != kNone;
    init_latest_enter = std::max(init_latest_enter, ranks_[r].init_enter);
    init_earliest_leave = std::min(init_earliest_leave, ranks_[r].init_leave);
  }
  for (size_t s = 0; s < mine_.size(); ++s) {
    const uint32_t init = tl_.rank_init[s];
    if (init == kNone || !all_init) continue;
    const int64_t leave = calls[init].leave;
    call_completion_[init] =
        std::max<int64_t>(0, leave - std::max(init_earliest_leave, std::min(init_latest_enter, leave)));
  }
  for (const auto& [c, comm] : tl_.barriers) group_comm_[c] = comm;

  std::vector<Bytes> out(P_);
  for (const RcWait& w : fwd_.rc_waits) {
    if (w.delayer == kNone) continue;
    // A member of a collective instance synchronised as a group with the delayer: the
    // delayer's call is a group call of the same instance holding this rank, so neither side
    // registers anything (synchronised_coll); most collective wait states, no Notice sent.
    if (w.ref == REF_COLL && group_call_with(w.call, w.delayer)) continue;
    const uint32_t q = rank_of(w.call);
    if (w.delayer == q) continue;
    const bool answered = needs_delayer_leave(w.ref);
    if (w.ref == REF_COLL) synchronised_coll(w.call, w.delayer);
    else if (!answered) synchronised(w.call, w.delayer, 0);
    const uint32_t owner = owner_(w.delayer);
    if (owner == uint32_t(me_)) {
      const uint32_t sp = add_delayer_sync(w.ref, w.delayer_index, w.delayer, q, calls[w.call].leave);
      if (answered)
        synchronised(w.call, w.delayer, sp == kNone ? 0 : waiting_completion(w.ref, calls[w.call].leave, calls[sp].leave));
    } else {
      append(out[owner], Notice{w.ref, w.delayer_index, w.delayer, q, w.call, uint32_t(answered), calls[w.call].leave});
    }
  }
  std::vector<Bytes> back(P_);
  {
    Bytes in = t_.exchange(out);
    for (Cursor c(in); !c.done();) {
      Notice n = c.get<Notice>();
      const uint32_t sp = add_delayer_sync(uint8_t(n.ref), n.index, n.p, n.q, n.leave);
      if (n.reply) append(back[owner_(n.q)], Back{n.call, n.p, n.ref, 0, sp == kNone ? INT64_MAX : calls[sp].leave});
    }
  }
  Bytes in = t_.exchange(back);
  for (Cursor c(in); !c.done();) {
    Back b = c.get<Back>();
    const int64_t leave = calls[b.call].leave;
    synchronised(b.call, b.p, b.leave == INT64_MAX ? 0 : waiting_completion(b.ref, leave, b.leave));
  }
  report_memory("sync exchanged");
  peers_.assign(mine_.size(), {});
  peer_syncs_.reserve(peer_calls_.size());
  for (auto& [key, list] : peer_calls_) {
    // a list is a few ascending runs (each kind of wait state and each side of it comes in
    // call order): merged, not sorted (std::sort took ~6 % of the pass's samples on them)
    if (!merge_runs(list.begin(), list.end(), std::less<>(), 16)) std::sort(list.begin(), list.end());
    peer_syncs_.emplace_back().sync = std::move(list);
    peers_[slot_of(uint32_t(key >> 32))].push_back({uint32_t(key), uint32_t(peer_syncs_.size() - 1)});
  }
  decltype(peer_calls_)().swap(peer_calls_);
  for (auto& v : peers_) std::sort(v.begin(), v.end());
  group_hint_.assign(mine_.size(), 0);
  group_calls_.resize(mine_.size());  // per rank: its barriers, N-to-N groups, MPI_Init and MPI_Finalize
  for (size_t s = 0; s < mine_.size(); ++s) {
    const uint32_t first = tl_.rank_first[s], end = rank_end(s);
    const size_t n = size_t(std::count_if(group_comm_.begin() + first, group_comm_.begin() + end,
                                          [](uint32_t comm) { return comm != kNone; }));
    std::vector<GroupCall>& g = group_calls_[s];
    g.reserve(n);
    for (uint32_t c = first; c < end; ++c)
      if (group_comm_[c] != kNone) g.push_back({c, group_comm_[c], call_completion_[c]});
  }
  // all the intervals need of them is in peers_ and group_calls_ now
  std::vector<uint32_t>().swap(group_comm_);
  std::vector<int64_t>().swap(call_completion_);
}

}  // namespace gs::rootcause_detail

namespace gs {

using rootcause_detail::Analysis;

RootCauseResult root_causes(const Defs& d, const LocalData& data, const ReplayResult& fwd, Transport& t,
                            const std::vector<uint32_t>& mine) {
  if (!data.timeline.enabled) throw std::logic_error("root causes need the timeline");
  return Analysis(d, data, fwd, t, mine).run();
}

void write_root_cause_files(const std::string& dir, const RootCauseResult& rc, int process) {
  const std::string suffix = "." + std::to_string(process);
  write_file(dir + "/causes" + suffix + ".bin", rc.causes.data(), rc.causes.size() * sizeof(CauseRow));
  write_file(dir + "/wansources" + suffix + ".bin", rc.wan_sources.data(), rc.wan_sources.size() * sizeof(WanSourceRow));
  if (process == 0) write_file(dir + "/critical_path.bin", rc.path.data(), rc.path.size() * sizeof(PathPiece));
}

}  // namespace gs
