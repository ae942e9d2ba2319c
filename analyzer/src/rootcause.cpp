// Root-cause analysis (docs/root-causes.md), after the forward replay:
//  1. waiting owners -> delayer owners: each wait state with the waiting side's time map
//     (computed in place when both ranks are ours); the delayer owner computes the delay,
//     the short-term costs and the wait list, which goes to process 0 as the propagation
//     graph; back to the waiting owner go the indirect part and where the path would move;
//  2. waiting owners: wait-state classes; the calls the critical path can leave through go
//     to process 0, which solves the long-term costs per waiting call and walks the path;
//  3. process 0 -> waiting owners -> delayer owners: each wait state's inherited costs,
//     charged to its delays; process 0 -> owners: the path's covered stretches.
// Every sum runs in an order fixed by global call ids and per-rank ordinals, never by the
// number of processes, so any -j writes the same values.
#include "rootcause.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <map>
#include <cstring>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_set>

#include "gridscope/trace/error.hpp"

namespace gs {
namespace {

constexpr uint64_t kWanSalt = 0x9E3779B97F4A7C15ull;
// Delay groups, their delay metrics and wait-class metrics: patterns/patterns.toml
// (analyzer/generated/gs_patterns.hpp).
constexpr int kGroups = kDelayGroups;
constexpr int kCosts = kGroups * 2;   // x class of the wait finally caused (local, grid)

int group_of(uint16_t metric) { return metric < M_COUNT ? kDelayGroupOf[metric] : -1; }
enum WaitClass { DIRECT = 0, INDIRECT = 1, PROPAGATING = 2, TERMINAL = 3 };
uint16_t class_metric(WaitClass c, int group) { return kWaitClassMetric[c][group]; }

uint64_t name_hash(const std::string& s) {  // FNV-1a
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}
uint64_t mix(uint64_t h, uint64_t v) { return (h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull; }

// ---- wire records (plain structs, copied byte-wise)
// per rank: its calls, first and last event, MPI_Init's and MPI_Finalize's call (offsets in
// the rank's calls, kNone: none) with the Init's enter and the Finalize's enter
struct RankCount { uint32_t rank, init, finalize, pad; uint64_t calls; int64_t start, end, init_enter, init_leave, finalize_enter; };
// A wait state from another process, followed by `keys` KeyTicks (the waiting side's time
// map); a wait state of our own ranks has its map computed in place.
struct Request {
  uint64_t gid;                     // waiting call
  uint32_t q, p, index, ordinal;    // waiting rank, delayer rank, delayer record, ordinal among q's waits
  uint32_t w_local, wait_metahost;  // index in the waiting owner's rc_waits; q's metahost
  uint32_t keys;
  uint16_t metric;
  uint8_t cls, ref;
  int64_t ticks;
  double share;                     // this wait's part of its call's waiting
};
struct KeyTicks { uint64_t key; int64_t ticks; };
// waiting owner -> delayer owner: the delayer's call synchronised with rank q; `call` (the
// waiting call at its owner) and `leave` (its leave) give both sides' completion times;
// `reply`: the waiting side needs the delayer call's leave back (Late Sender)
struct Notice { uint32_t ref, index, p, q, call, reply; int64_t leave; };
// delayer owner -> waiting owner: the leave of the delayer's call (INT64_MAX: no such call)
struct Back { uint32_t call, p; int64_t leave; };
// delayer owner -> waiting owner: the indirect part and where the critical path would move
struct Indirect { uint32_t w_local, wrec, src, pad; double ticks; uint64_t target; int64_t target_enter; };
// What a waiting owner keeps of each of its wait states from the delayer's side.
struct Reply { uint32_t wrec, src; double indirect; uint64_t target; int64_t target_enter; };
struct NodeMsg {  // a wait state with a non-empty wait list, followed by `list` ListEntry
  uint64_t gid;
  uint32_t ordinal, list;
  uint8_t group, cls, pad[6];
  double D, scale, share;
};
struct ListEntry { uint64_t gid; int64_t w; };
struct NodeCost { uint64_t gid; double c[kCosts]; };        // 0 -> waiting owner: a call's inherited costs
struct WaitCost { uint32_t wrec, pad; double c[kCosts]; };    // waiting owner -> delayer owner
// waiting owner -> 0: a call the critical path can leave through (its longest wait with a
// known delayer) and where it would go
struct JumpMsg { uint64_t gid, target; int64_t enter, leave, wait, target_enter; };
// 0 -> owner: the path covers rank's segments before calls (lo, hi] and calls (lo, hi)
// whole, and `lo_ticks` of call lo (lo_ticks < 0: no call lo, down to the rank's start)
struct CoverMsg { uint64_t lo, hi; int64_t lo_ticks; };

class Cursor {
 public:
  explicit Cursor(const Bytes& b) : p_(b.data()), end_(b.data() + b.size()) {}
  bool done() const { return p_ >= end_; }
  template <class T>
  T get() {
    if (p_ + sizeof(T) > end_) throw std::logic_error("root causes: truncated message");
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }

 private:
  const char* p_;
  const char* end_;
};

struct CauseKey {
  uint16_t pattern; uint8_t cls, kind; uint32_t cp, rank, wait_metahost;
  bool operator==(const CauseKey& o) const {
    return pattern == o.pattern && cls == o.cls && kind == o.kind && cp == o.cp && rank == o.rank &&
           wait_metahost == o.wait_metahost;
  }
};
struct CauseKeyHash {
  size_t operator()(const CauseKey& k) const {
    return mix(mix(mix(k.cp, k.rank), k.wait_metahost), uint64_t(k.pattern) << 16 | k.cls << 8 | k.kind);
  }
};

// A time map over call paths (and their WAN parts), dense by process-local call path.
class TimeMap {
 public:
  explicit TimeMap(size_t cps) : plain_(cps, 0), wan_(cps, 0), seen_(cps, 0) {}
  void add(uint32_t cp, bool wan, int64_t v) {
    if (v == 0) return;
    if (!seen_[cp]) { seen_[cp] = 1; touched_.push_back(cp); }
    (wan ? wan_ : plain_)[cp] += v;
  }
  void clear() {
    for (uint32_t cp : touched_) { plain_[cp] = wan_[cp] = 0; seen_[cp] = 0; }
    touched_.clear();
  }
  const std::vector<uint32_t>& touched() const { return touched_; }
  int64_t at(uint32_t cp, bool wan) const { return (wan ? wan_ : plain_)[cp]; }

 private:
  std::vector<int64_t> plain_, wan_;
  std::vector<uint8_t> seen_;
  std::vector<uint32_t> touched_;
};

struct DEntry { uint32_t cp; uint8_t wan; int64_t d; };
// What a delayer owner keeps of a wait state until its inherited costs come back.
struct WRec {
  uint32_t d_begin, d_end;  // its delay entries
  double D;
  uint32_t sp, wait_metahost;  // the delayer's call; the waiting rank's metahost
  uint16_t metric;
  uint8_t cls;
};

class Analysis {
 public:
  Analysis(const Defs& d, const LocalData& data, const ReplayResult& fwd, Transport& t, const std::vector<uint32_t>& mine)
      : d_(d), data_(data), tl_(data.timeline), fwd_(fwd), t_(t), mine_(mine), P_(t.size()), me_(t.rank()),
        res_(double(d.resolution)), ncp_(data.tree.nodes.size()), tp_(ncp_), tq_(ncp_) {}

  RootCauseResult run() {
    const bool timing = std::getenv("GRIDSCOPE_RC_TIMING");  // tuning knob: phase times on stderr
    auto t0 = std::chrono::steady_clock::now();
    auto lap = [&](const char* what) {
      if (!timing) return;
      auto now = std::chrono::steady_clock::now();
      std::fprintf(stderr, "root causes [%d] %s: %.3f s\n", me_, what, std::chrono::duration<double>(now - t0).count());
      t0 = now;
    };
    if (timing)
      std::fprintf(stderr, "root causes [%d] calls %zu seg %zu waits %zu\n", me_, tl_.calls.size(), tl_.seg.size(),
                   fwd_.rc_waits.size());
    setup();
    synchronisations();
    lap("setup");
    delays();
    lap("delays");
    if (timing) std::fprintf(stderr, "root causes [%d] dents %zu wrecs %zu graph %zu B\n", me_, dents_.size(), wrecs_.size(), graph_in_.size());
    classes();
    lap("classes");
    graph_and_path();
    lap("graph and path");
    finish();
    lap("finish");
    return std::move(out_);
  }

 private:
  // ---- set-up: call-path hashes, global call ids, local transfer minima, per-call waits
  void setup() {
    cp_hash_.resize(ncp_);
    cp_mpi_.resize(ncp_);
    for (size_t i = 0; i < ncp_; ++i) {
      const auto& n = data_.tree.nodes[i];
      cp_hash_[i] = mix(n.parent == kNone ? 0 : cp_hash_[n.parent], name_hash(d_.regions[n.region].name));
      cp_mpi_[i] = d_.regions[n.region].is_mpi;
      cp_of_hash_.emplace(cp_hash_[i], uint32_t(i));
    }
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

    call_wait_.assign(calls.size(), 0);
    for (const RcWait& w : fwd_.rc_waits) call_wait_[w.call] += w.ticks;
    for (size_t k = 0; k < fwd_.recv_transfer.size(); ++k) {
      if (fwd_.recv_transfer[k] < 0) continue;
      const uint32_t c = tl_.recv_call[k];
      const int64_t lm = local_min[d_.rank_metahost[data_.recvs[k].dst]];
      const int64_t excess = std::min(fwd_.recv_transfer[k] - (lm == INT64_MAX ? 0 : lm),
                                      calls[c].leave - calls[c].enter - call_wait_[c]);
      if (excess > 0) {
        if (call_wan_.empty()) call_wan_.assign(calls.size(), 0), call_wan_from_.assign(calls.size(), 0);
        if (excess > call_wan_[c]) {
          call_wan_[c] = excess;
          call_wan_from_[c] = d_.rank_metahost[data_.recvs[k].src];
        }
      }
    }
    wan_sources();
  }

  // Per (call path, rank, source metahost): the WAN excess of the calls, summed.
  void wan_sources() {
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int64_t> sums;
    for (size_t c = 0; c < call_wan_.size(); ++c)
      if (call_wan_[c] > 0) sums[{tl_.calls[c].cp, tl_.calls[c].rank, call_wan_from_[c]}] += call_wan_[c];
    for (const auto& [k, v] : sums)
      out_.wan_sources.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), 0, double(v) / res_});
  }

  size_t slot_of(uint32_t rank) const { return rank - mine_[0]; }
  uint32_t rank_end(size_t slot) const {
    return slot + 1 < mine_.size() ? tl_.rank_first[slot + 1] : uint32_t(tl_.calls.size());
  }
  uint64_t gid_of(uint32_t c) const {
    uint32_t r = tl_.calls[c].rank;
    return gbase_[r] + (c - tl_.rank_first[slot_of(r)]);
  }
  uint32_t rank_of_gid(uint64_t gid) const {
    return uint32_t(std::upper_bound(gbase_.begin(), gbase_.end(), gid) - gbase_.begin()) - 1;
  }
  uint32_t local_of(uint64_t gid) const {
    const uint32_t r = rank_of_gid(gid);
    return uint32_t(tl_.rank_first[slot_of(r)] + (gid - gbase_[r]));
  }

  int64_t wan_of(uint32_t c) const { return call_wan_.empty() ? 0 : call_wan_[c]; }

  // Which calls synchronised with which ranks, as scout's synchronisation points
  // (SynchpointHandler): a point-to-point pair only where a wait state is, on both its sides
  // (the waiting call and the delayer's call); a collective's synchronising members with
  // the member they waited for (or with every member: a barrier, an N-to-N instance whose
  // members all overlap); MPI_Init and MPI_Finalize with every rank. Each with its
  // completion time, the part of the call after the synchronisation that the next interval
  // keeps (`PruneDelayTimemap` in scout's DelayOps.cpp): own leave - the partner's leave for
  // a message (0 for the waiting side of a Late Receiver: scout's value is never positive),
  // the instance's rule for collectives (replay.cpp, coll_sync), own leave - max(earliest
  // leave, latest enter) of MPI_Init. Kept per (rank, peer) as (call, completion) in
  // ascending call order: an interval's start is then one search.
  void synchronisations() {
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
    for (uint32_t c = 0; c < calls.size(); ++c)
      if (calls[c].barrier_comm != kNone) group_comm_[c] = calls[c].barrier_comm;

    std::vector<Bytes> out(P_);
    for (const RcWait& w : fwd_.rc_waits) {
      const uint32_t q = calls[w.call].rank;
      if (w.delayer == kNone || w.delayer == q) continue;
      const bool p2p_late_sender = w.ref == REF_SEND;
      if (w.ref == REF_COLL) synchronised(w.call, w.delayer, call_completion_[w.call]);
      else if (!p2p_late_sender) synchronised(w.call, w.delayer, 0);
      const uint32_t owner = owner_of(w.delayer, N, P_);
      if (owner == uint32_t(me_)) {
        const uint32_t sp = add_delayer_sync(w.ref, w.delayer_index, w.delayer, q, calls[w.call].leave);
        if (p2p_late_sender)
          synchronised(w.call, w.delayer, sp == kNone ? 0 : std::max<int64_t>(0, calls[w.call].leave - calls[sp].leave));
      } else {
        append(out[owner], Notice{w.ref, w.delayer_index, w.delayer, q, w.call, uint32_t(p2p_late_sender), calls[w.call].leave});
      }
    }
    std::vector<Bytes> back(P_);
    {
      Bytes in = t_.exchange(out);
      for (Cursor c(in); !c.done();) {
        Notice n = c.get<Notice>();
        const uint32_t sp = add_delayer_sync(uint8_t(n.ref), n.index, n.p, n.q, n.leave);
        if (n.reply) append(back[owner_of(n.q, N, P_)], Back{n.call, n.p, sp == kNone ? INT64_MAX : calls[sp].leave});
      }
    }
    Bytes in = t_.exchange(back);
    for (Cursor c(in); !c.done();) {
      Back b = c.get<Back>();
      const int64_t leave = calls[b.call].leave;
      synchronised(b.call, b.p, b.leave == INT64_MAX ? 0 : std::max<int64_t>(0, leave - b.leave));
    }
    for (auto& [key, list] : peer_calls_) std::sort(list.begin(), list.end());
    group_calls_.resize(mine_.size());  // per rank: its barriers, N-to-N groups, MPI_Init and MPI_Finalize
    for (uint32_t c = 0; c < calls.size(); ++c)
      if (group_comm_[c] != kNone) group_calls_[slot_of(calls[c].rank)].push_back(c);
  }
  void synchronised(uint32_t call, uint32_t peer, int64_t completion) {
    peer_calls_[uint64_t(tl_.calls[call].rank) << 32 | peer].push_back({call, completion});
  }
  // the delayer's call (kNone: none), registered as synchronised with q
  uint32_t add_delayer_sync(uint8_t ref, uint32_t index, uint32_t p, uint32_t q, int64_t wait_leave) {
    const uint32_t sp = delayer_call(ref, index);
    if (sp == kNone || sp >= tl_.calls.size() || tl_.calls[sp].rank != p) return kNone;
    synchronised(sp, q, ref == REF_COLL ? call_completion_[sp] : std::max<int64_t>(0, tl_.calls[sp].leave - wait_leave));
    return sp;
  }
  bool group_holds(uint32_t c, uint32_t other) const {
    const uint32_t comm = group_comm_[c];
    if (comm == kAllRanks) return true;
    if (comm == kNone) return false;
    if (comm & kSyncSetFlag) {
      const std::vector<uint32_t>& set = fwd_.sync_sets[comm & ~kSyncSetFlag];
      return std::binary_search(set.begin(), set.end(), other);
    }
    return d_.comms[comm].position.count(other) > 0;
  }

  // Rank's synchronisation interval before call b with respect to `other` into `map`; the
  // waiting calls inside go to `waits` (docs/root-causes.md). It starts inside the latest
  // call that synchronised with `other`: that call's completion time counts.
  void interval(uint32_t b, uint32_t other, TimeMap& map, std::vector<std::pair<uint32_t, int64_t>>* waits) const {
    const auto& calls = tl_.calls;
    const uint32_t rank = calls[b].rank;
    uint32_t start = tl_.rank_first[slot_of(rank)];
    uint32_t from = kNone;  // the call that starts it
    int64_t completion = 0;
    auto peer = peer_calls_.find(uint64_t(rank) << 32 | other);  // the latest call before b that synchronised with it
    if (peer != peer_calls_.end()) {
      const auto& list = peer->second;
      auto it = std::lower_bound(list.begin(), list.end(), std::pair<uint32_t, int64_t>{b, INT64_MIN});
      if (it != list.begin()) {
        from = (it - 1)->first;
        // several synchronisations of one call with the same rank: the largest completion
        for (auto jt = it; jt != list.begin() && (jt - 1)->first == from; --jt) completion = std::max(completion, (jt - 1)->second);
        start = from + 1;
      }
    }
    const std::vector<uint32_t>& groups = group_calls_[slot_of(rank)];  // or a group call holding it, later
    for (auto it = std::lower_bound(groups.begin(), groups.end(), b); it != groups.begin() && *(it - 1) >= start;) {
      const uint32_t c = *--it;
      if (group_holds(c, other)) { start = c + 1; from = c; completion = call_completion_[c]; break; }
    }
    if (from != kNone && completion > 0) map.add(calls[from].cp, false, completion);
    for (uint32_t c = start;; ++c) {
      for (uint32_t e = calls[c].seg_begin; e < calls[c].seg_end; ++e) map.add(tl_.seg[e].cp, false, tl_.seg[e].ticks);
      if (c == b) break;
      const SyncCall& x = calls[c];
      const int64_t wan = wan_of(c);
      map.add(x.cp, false, std::max<int64_t>(0, x.leave - x.enter - call_wait_[c] - wan));
      map.add(x.cp, true, wan);
      if (waits && call_wait_[c] > 0) waits->push_back({c, call_wait_[c]});
    }
  }

  uint32_t delayer_call(uint8_t ref, uint32_t index) const {
    const std::vector<uint32_t>* v = ref == REF_SEND        ? &tl_.send_call
                                     : ref == REF_RECV_POST ? &tl_.recv_post_call
                                                            : &fwd_.coll_position_call;
    return index < v->size() ? (*v)[index] : kNone;
  }

  // ---- 1. delays at the delayers' owners
  void delays() {
    const auto& waits = fwd_.rc_waits;
    const uint32_t N = d_.ranks();
    std::vector<uint32_t> next_ordinal(mine_.size(), 0);
    std::vector<Bytes> out(P_);
    // our own wait states and those sent here, in one order: (waiting call, ordinal)
    constexpr uint32_t kRemote = 0x80000000u;
    struct Pending { uint64_t gid; uint32_t ordinal, idx; };  // idx: rc_waits index, or kRemote | request
    std::vector<Pending> reqs;
    for (size_t i = 0; i < waits.size(); ++i) {
      const RcWait& w = waits[i];
      const uint32_t q = tl_.calls[w.call].rank;
      const uint32_t ordinal = next_ordinal[slot_of(q)]++;
      if (w.delayer == kNone || w.delayer == q) continue;
      const uint32_t owner = owner_of(w.delayer, N, P_);
      if (owner == uint32_t(me_)) { reqs.push_back({gid_of(w.call), ordinal, uint32_t(i)}); continue; }
      Request rq{gid_of(w.call), q, w.delayer, w.delayer_index, ordinal, uint32_t(i), d_.rank_metahost[q], 0,
                 w.metric, w.cls, w.ref, w.ticks, double(w.ticks) / double(call_wait_[w.call])};
      tq_.clear();
      interval(w.call, w.delayer, tq_, nullptr);
      for (uint32_t cp : tq_.touched()) rq.keys += (tq_.at(cp, false) != 0) + (tq_.at(cp, true) != 0);
      Bytes& b = out[owner];
      append(b, rq);
      for (uint32_t cp : tq_.touched())
        for (int wan = 0; wan < 2; ++wan)
          if (int64_t v = tq_.at(cp, wan)) append(b, KeyTicks{cp_hash_[cp] ^ (wan ? kWanSalt : 0), v});
    }
    std::vector<Request> remote;
    std::vector<size_t> keys_at;
    std::vector<KeyTicks> keys;
    {
      Bytes in = t_.exchange(out);
      for (Cursor c(in); !c.done();) {
        Request rq = c.get<Request>();
        reqs.push_back({rq.gid, rq.ordinal, kRemote | uint32_t(remote.size())});
        remote.push_back(rq);
        keys_at.push_back(keys.size());
        for (uint32_t k = 0; k < rq.keys; ++k) keys.push_back(c.get<KeyTicks>());
      }
    }
    std::sort(reqs.begin(), reqs.end(),
              [](const Pending& a, const Pending& b) { return std::tie(a.gid, a.ordinal) < std::tie(b.gid, b.ordinal); });

    replies_.assign(waits.size(), Reply{kNone, 0, 0.0, UINT64_MAX, 0});
    std::vector<Bytes> back(P_), graph(P_);
    std::vector<std::pair<uint32_t, int64_t>> wl;
    prop_max_.assign(tl_.calls.size(), 0.0);
    for (const Pending& pr : reqs) {
      const bool is_remote = pr.idx & kRemote;
      Request rq;
      if (is_remote) {
        rq = remote[pr.idx & ~kRemote];
      } else {
        const RcWait& w = waits[pr.idx];
        const uint32_t q = tl_.calls[w.call].rank;
        rq = Request{pr.gid, q, w.delayer, w.delayer_index, pr.ordinal, pr.idx, d_.rank_metahost[q], 0,
                     w.metric, w.cls, w.ref, w.ticks, double(w.ticks) / double(call_wait_[w.call])};
      }
      const uint32_t sp = delayer_call(rq.ref, rq.index);
      if (sp == kNone || sp >= tl_.calls.size() || tl_.calls[sp].rank != rq.p) continue;
      ++with_delayer_;
      tp_.clear();
      wl.clear();
      interval(sp, rq.q, tp_, &wl);
      tq_.clear();  // the waiting side's map, by our call paths
      if (!is_remote) {
        interval(waits[pr.idx].call, rq.p, tq_, nullptr);
      } else {
        const size_t at = keys_at[pr.idx & ~kRemote];
        for (uint32_t k = 0; k < rq.keys; ++k) {
          const KeyTicks& kt = keys[at + k];
          auto it = cp_of_hash_.find(kt.key);
          if (it != cp_of_hash_.end()) tq_.add(it->second, false, kt.ticks);
          else if ((it = cp_of_hash_.find(kt.key ^ kWanSalt)) != cp_of_hash_.end()) tq_.add(it->second, true, kt.ticks);
        }
      }
      const uint32_t d_begin = uint32_t(dents_.size());
      double dsum = 0;
      for (uint32_t cp : tp_.touched())
        for (int wan = 0; wan < 2; ++wan) {
          int64_t dv = tp_.at(cp, wan) - tq_.at(cp, wan);
          if (dv > 0) { dents_.push_back({cp, uint8_t(wan), dv}); dsum += double(dv); }
        }
      double wsum = 0;
      for (auto& [c, w] : wl) wsum += double(w);
      const double D = dsum + wsum;
      // (Scalasca caps the scale at 1 for point-to-point waits only: a collective's wait is
      // charged in full to the latecomer's delay, however small; scout's MpiDelayOps.cpp)
      const int g = group_of(rq.metric);
      const double scale = !(D > 0) ? 0.0 : g < 2 ? std::min(double(rq.ticks) / D, 1.0) : double(rq.ticks) / D;
      for (size_t k = d_begin; k < dents_.size(); ++k) {
        const DEntry& e = dents_[k];
        const double v = scale * double(e.d) / res_;
        cause(rq.metric, rq.cls, e, rq.p, rq.wait_metahost).first += v;
        add_sev(kDelayShort[g], rq.cls, e.cp, rq.p, v);
      }
      if (!wl.empty()) {
        NodeMsg nm{};
        nm.gid = rq.gid; nm.ordinal = rq.ordinal; nm.list = uint32_t(wl.size());
        nm.group = uint8_t(g); nm.cls = rq.cls; nm.D = D; nm.scale = scale; nm.share = rq.share;
        append(graph[0], nm);
        for (auto& [c, w] : wl) {
          prop_max_[c] = std::max(prop_max_[c], scale);
          append(graph[0], ListEntry{gid_of(c), w});
        }
        edges_ += wl.size();
      }
      const uint32_t wrec = uint32_t(wrecs_.size());
      if (dents_.size() > d_begin) wrecs_.push_back({d_begin, uint32_t(dents_.size()), D, sp, rq.wait_metahost, rq.metric, rq.cls});
      const Reply reply{dents_.size() > d_begin ? wrec : kNone, uint32_t(me_), scale * wsum, gid_of(sp), tl_.calls[sp].enter};
      if (is_remote)
        append(back[owner_of(rq.q, N, P_)], Indirect{rq.w_local, reply.wrec, reply.src, 0, reply.indirect, reply.target,
                                                      reply.target_enter});
      else
        replies_[pr.idx] = reply;
    }
    Bytes in = t_.exchange(back);
    for (Cursor c(in); !c.done();) {
      Indirect m = c.get<Indirect>();
      replies_[m.w_local] = Reply{m.wrec, m.src, m.ticks, m.target, m.target_enter};
    }
    graph_in_ = t_.exchange(graph);
  }

  std::pair<double, double>& cause(uint16_t metric, uint8_t cls, const DEntry& e, uint32_t p, uint32_t wait_mh) {
    const uint8_t kind = e.wan ? KIND_WAN : cp_mpi_[e.cp] ? KIND_COMMUNICATION : KIND_COMPUTATION;
    const CauseKey key{metric, cls, kind, e.cp, p, wait_mh};
    CauseSlot& s = cause_cache_[CauseKeyHash()(key) % kSevCache];
    if (!s.value || !(s.key == key)) s = {key, &causes_[key]};
    return *s.value;
  }
  // Severities through a small direct-mapped cache of map entries (they stay put when the map
  // grows): most updates hit a key a recent one used.
  void add_sev(uint16_t metric, uint8_t cls, uint32_t cp, uint32_t rank, double v) {
    if (v == 0) return;
    const SevKey key{metric, cls, 0, cp, rank};  // root causes: master locations only
    SevSlot& s = sev_cache_[SevKeyHash()(key) % kSevCache];
    if (!s.value || !(s.key == key)) s = {key, &out_.severities[key]};
    *s.value += v;
  }

  // ---- 2. wait-state classes at the waiting owners; the calls the path can leave through
  void classes() {
    const auto& waits = fwd_.rc_waits;
    std::vector<Bytes> jumps(P_);
    uint32_t best = kNone;  // the wait the current call is left through on the critical path
    auto flush_jump = [&]() {
      if (best == kNone) return;
      const RcWait& w = waits[best];
      const SyncCall& x = tl_.calls[w.call];
      append(jumps[0], JumpMsg{gid_of(w.call), replies_[best].target, x.enter, x.leave, w.ticks, replies_[best].target_enter});
      best = kNone;
    };
    for (size_t i = 0; i < waits.size(); ++i) {
      const RcWait& w = waits[i];
      const SyncCall& call = tl_.calls[w.call];
      const int g = group_of(w.metric);
      const double ind = std::min(replies_[i].indirect, double(w.ticks));
      add_sev(class_metric(DIRECT, g), w.cls, call.cp, call.rank, (double(w.ticks) - ind) / res_);
      add_sev(class_metric(INDIRECT, g), w.cls, call.cp, call.rank, ind / res_);
      const double prop = std::min(prop_max_[w.call], 1.0) * double(w.ticks);
      add_sev(class_metric(PROPAGATING, g), w.cls, call.cp, call.rank, prop / res_);
      add_sev(class_metric(TERMINAL, g), w.cls, call.cp, call.rank, (double(w.ticks) - prop) / res_);
      if (replies_[i].target == UINT64_MAX) continue;
      if (best != kNone && waits[best].call != w.call) flush_jump();
      if (best == kNone || w.ticks > waits[best].ticks) best = uint32_t(i);
    }
    flush_jump();
    jumps_in_ = t_.exchange(jumps);
  }

  // ---- 3. process 0 solves and walks; the results go back
  void graph_and_path() {
    std::vector<Bytes> node_costs(P_), cover(P_);
    if (me_ == 0) {
      solve(node_costs);
      walk(cover);
    }
    // a waiting call's inherited costs, shared among its waits, to their delayers' owners
    std::vector<Bytes> wait_costs(P_);
    {
      Bytes in = t_.exchange(node_costs);
      std::vector<uint32_t> first(tl_.calls.size() + 1, 0), at;  // the waits of each call
      const auto& waits = fwd_.rc_waits;
      for (const RcWait& w : waits) first[w.call + 1]++;
      for (size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
      at.resize(waits.size());
      {
        std::vector<uint32_t> fill(first.begin(), first.end() - 1);
        for (uint32_t i = 0; i < waits.size(); ++i) at[fill[waits[i].call]++] = i;
      }
      for (Cursor c(in); !c.done();) {
        NodeCost nc = c.get<NodeCost>();
        const uint32_t call = local_of(nc.gid);
        for (uint32_t k = first[call]; k < first[call + 1]; ++k) {
          const uint32_t i = at[k];
          if (replies_[i].wrec == kNone) continue;
          WaitCost wc{replies_[i].wrec, 0, {}};
          const double share = double(waits[i].ticks) / double(call_wait_[call]);
          for (int j = 0; j < kCosts; ++j) wc.c[j] = nc.c[j] * share;
          append(wait_costs[replies_[i].src], wc);
        }
      }
    }
    {
      Bytes in = t_.exchange(wait_costs);
      Records<WaitCost> costs = unpack<WaitCost>(std::move(in));
      // in our own wait-state order (the arrival order depends on the processes)
      std::stable_sort(costs.begin(), costs.end(), [](const WaitCost& a, const WaitCost& b) { return a.wrec < b.wrec; });
      for (const WaitCost& m : costs) {
        const WRec& w = wrecs_[m.wrec];
        const uint32_t p = tl_.calls[w.sp].rank;
        double total = 0;
        for (double v : m.c) total += v;
        if (!(total > 0) || !(w.D > 0)) continue;
        for (size_t k = w.d_begin; k < w.d_end; ++k) {
          const DEntry& e = dents_[k];
          cause(w.metric, w.cls, e, p, w.wait_metahost).second += total / w.D * double(e.d) / res_;
          for (int j = 0; j < kCosts; ++j)
            if (m.c[j] > 0) add_sev(kDelayLong[j / 2], uint8_t(j % 2), e.cp, p, m.c[j] / w.D * double(e.d) / res_);
        }
      }
    }
    Bytes cover_in = t_.exchange(cover);
    for (Cursor c(cover_in); !c.done();) {
      CoverMsg m = c.get<CoverMsg>();
      const uint32_t hi = local_of(m.hi);
      const uint32_t rank = tl_.calls[hi].rank;
      const uint32_t lo = m.lo_ticks < 0 ? kNone : local_of(m.lo);
      for (uint32_t x = lo == kNone ? tl_.rank_first[slot_of(rank)] : lo + 1;; ++x) {
        const SyncCall& call = tl_.calls[x];
        for (uint32_t e = call.seg_begin; e < call.seg_end; ++e)
          add_sev(M_CRITICAL_PATH, CLS_NONE, tl_.seg[e].cp, rank, double(tl_.seg[e].ticks) / res_);
        if (x == hi) break;
        add_sev(M_CRITICAL_PATH, CLS_NONE, call.cp, rank, double(call.leave - call.enter) / res_);
      }
      if (lo != kNone) add_sev(M_CRITICAL_PATH, CLS_NONE, tl_.calls[lo].cp, rank, double(m.lo_ticks) / res_);
    }
  }

  // Long-term costs over the propagation graph, in a fixed topological order: each waiting
  // call's costs are final before its wait states pass them on.
  void solve(std::vector<Bytes>& node_costs) {
    const uint32_t N = d_.ranks();
    struct Node { NodeMsg m; size_t list_at; };
    std::vector<Node> ws;
    std::vector<ListEntry> lists;
    for (Cursor c(graph_in_); !c.done();) {
      NodeMsg m = c.get<NodeMsg>();
      ws.push_back({m, lists.size()});
      for (uint32_t k = 0; k < m.list; ++k) lists.push_back(c.get<ListEntry>());
    }
    Bytes().swap(graph_in_);
    std::sort(ws.begin(), ws.end(), [](const Node& a, const Node& b) {
      return std::tie(a.m.gid, a.m.ordinal) < std::tie(b.m.gid, b.m.ordinal);
    });
    // nodes: the calls that occur, numbered in call order (a direct index over all calls)
    std::vector<uint32_t> node_of(gbase_[N], kNone);
    for (const Node& w : ws) node_of[w.m.gid] = 0;
    for (const ListEntry& e : lists) node_of[e.gid] = 0;
    std::vector<uint64_t> ids;
    for (uint64_t g = 0; g < node_of.size(); ++g)
      if (node_of[g] == 0) { node_of[g] = uint32_t(ids.size()); ids.push_back(g); }
    auto id_of = [&](uint64_t gid) { return size_t(node_of[gid]); };
    std::vector<uint32_t> indeg(ids.size(), 0);
    std::vector<size_t> first_w(ids.size(), ws.size());
    for (size_t i = ws.size(); i-- > 0;) first_w[id_of(ws[i].m.gid)] = i;
    for (const ListEntry& e : lists) indeg[id_of(e.gid)]++;
    // costs only where some wait state passes them on (a call without predecessors has none)
    std::vector<uint32_t> slot(ids.size(), kNone);
    std::vector<std::array<double, kCosts>> c;
    for (size_t n = 0; n < ids.size(); ++n)
      if (indeg[n] > 0) { slot[n] = uint32_t(c.size()); c.emplace_back().fill(0.0); }
    std::vector<uint8_t> done(ids.size(), 0);
    std::priority_queue<size_t> ready;  // latest call first (any fixed rule would do)
    for (size_t n = 0; n < ids.size(); ++n)
      if (indeg[n] == 0) ready.push(n);
    auto process = [&](size_t n) {
      done[n] = 1;
      std::array<double, kCosts> mine{};
      if (slot[n] != kNone) {
        mine = c[slot[n]];
        NodeCost nc{ids[n], {}};
        std::copy(mine.begin(), mine.end(), nc.c);
        append(node_costs[owner_of(rank_of_gid(ids[n]), N, P_)], nc);
      }
      for (size_t i = first_w[n]; i < ws.size() && ws[i].m.gid == ids[n]; ++i) {
        const NodeMsg& m = ws[i].m;
        for (uint32_t k = 0; k < m.list; ++k) {
          const ListEntry& e = lists[ws[i].list_at + k];
          const size_t x = id_of(e.gid);
          auto& cx = c[slot[x]];
          const double w = double(e.w);
          cx[m.group * 2 + m.cls] += m.scale * w;
          if (m.D > 0)
            for (int j = 0; j < kCosts; ++j) cx[j] += mine[j] * m.share / m.D * w;
          if (indeg[x] > 0 && --indeg[x] == 0) ready.push(x);
        }
      }
    };
    while (!ready.empty()) {
      size_t n = ready.top();
      ready.pop();
      if (!done[n]) process(n);
    }
    for (size_t n = ids.size(); n-- > 0;)  // cycles (a trace that breaks causality): as far as they go
      if (!done[n]) { ++unordered_; process(n); }
  }

  // The critical path: backward from the end of the last rank (docs/root-causes.md), from
  // one call it can leave through to the next.
  void walk(std::vector<Bytes>& cover) {
    const uint32_t N = d_.ranks();
    Records<JumpMsg> jumps = unpack<JumpMsg>(std::move(jumps_in_));
    // (a call can come twice: its waits are listed per kind; the longer one is tried first)
    std::sort(jumps.begin(), jumps.end(), [](const JumpMsg& a, const JumpMsg& b) {
      return std::tie(a.gid, b.wait, a.target) < std::tie(b.gid, a.wait, b.target);
    });
    // From the latest MPI_Finalize back to MPI_Init, as Scalasca (from the latest last event
    // back to the first when some rank has no Finalize, or no Init)
    bool all_finalize = N > 0;
    for (uint32_t k = 0; k < N; ++k) all_finalize &= ranks_[k].finalize != kNone;
    auto end_of = [&](uint32_t k) { return all_finalize ? ranks_[k].finalize_enter : ranks_[k].end; };
    uint32_t r = 0;
    for (uint32_t k = 1; k < N; ++k)
      if (end_of(k) > end_of(r)) r = k;
    out_.path_start_rank = r;
    uint64_t cursor = all_finalize ? gbase_[r] + ranks_[r].finalize : gbase_[r + 1] - 1;
    int64_t arrival = end_of(r), length = 0;
    std::unordered_set<uint64_t> arrived;
    for (;;) {
      const RankCount& rk = ranks_[r];
      const uint64_t floor = rk.init == kNone ? gbase_[r] : gbase_[r] + rk.init + 1;  // lowest call to leave through
      auto it = std::lower_bound(jumps.begin(), jumps.end(), cursor, [](const JumpMsg& j, uint64_t g) { return j.gid < g; });
      const JumpMsg* out = nullptr;
      while (it != jumps.begin() && (it - 1)->gid >= floor) {
        const JumpMsg& j = *--it;
        if (j.target_enter <= j.enter + j.wait && !arrived.count(j.target)) {
          out = &j;
          break;
        }
      }
      if (!out) {
        // the path ends with the whole MPI_Init, as scout's (CriticalPath.pattern "INIT": the
        // runtimes from Init's synchronisation point, its leave, hold the call itself)
        const int64_t begin = rk.init == kNone ? rk.start : rk.init_enter;
        const uint64_t init = gbase_[r] + rk.init;
        append(cover[owner_of(r, N, P_)], rk.init == kNone ? CoverMsg{0, cursor, -1}
                                                            : CoverMsg{init, cursor, rk.init_leave - rk.init_enter});
        out_.path.push_back({r, 0, double(begin) / res_, double(arrival) / res_});
        length += arrival - begin;
        break;
      }
      const int64_t resume = std::min(out->enter + out->wait, out->leave);
      append(cover[owner_of(r, N, P_)], CoverMsg{out->gid, cursor, out->leave - resume});
      out_.path.push_back({r, 0, double(resume) / res_, double(arrival) / res_});
      length += arrival - resume;
      arrived.insert(out->target);
      cursor = out->target;
      r = rank_of_gid(cursor);
      arrival = out->target_enter;
    }
    out_.path_length_s = double(length) / res_;
  }

  void finish() {
    uint64_t totals[3] = {fwd_.rc_waits.size(), with_delayer_, edges_};
    t_.sum(totals, 3);
    out_.wait_states = totals[0];
    out_.with_delayer = totals[1];
    out_.propagation_edges = totals[2];
    out_.unordered = unordered_;
    for (auto& [k, v] : causes_) out_.causes.push_back({k.pattern, k.cls, k.kind, k.cp, k.rank, k.wait_metahost, v.first, v.second});
    std::sort(out_.causes.begin(), out_.causes.end(), [](const CauseRow& a, const CauseRow& b) {
      return std::tie(a.pattern, a.cls, a.kind, a.cp, a.rank, a.wait_metahost) <
             std::tie(b.pattern, b.cls, b.kind, b.cp, b.rank, b.wait_metahost);
    });
  }

  const Defs& d_;
  const LocalData& data_;
  const Timeline& tl_;
  const ReplayResult& fwd_;
  Transport& t_;
  const std::vector<uint32_t>& mine_;
  const int P_, me_;
  const double res_;
  const size_t ncp_;
  TimeMap tp_, tq_;
  std::vector<uint64_t> cp_hash_;
  std::vector<uint8_t> cp_mpi_;
  std::unordered_map<uint64_t, uint32_t> cp_of_hash_;
  std::vector<uint64_t> gbase_;
  std::vector<RankCount> ranks_;  // every rank's
  // (rank << 32 | peer) -> its calls that synchronised with peer, with their completion times
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, int64_t>>> peer_calls_;
  std::vector<std::vector<uint32_t>> group_calls_;  // per owned rank: barriers, N-to-N groups, Init, Finalize
  std::vector<uint32_t> group_comm_;                // per call: the communicator it synchronised as a whole (kNone)
  std::vector<int64_t> call_completion_;            // per call: its completion time as a collective or MPI_Init
  std::vector<int64_t> call_wait_;
  std::vector<int64_t> call_wan_;  // per call: its WAN excess (empty: no call has one)
  std::vector<uint32_t> call_wan_from_;  // per call: the metahost its largest WAN excess came from
  std::vector<double> prop_max_;  // per call on some wait list: the largest scale (else 0)
  std::vector<Reply> replies_;  // per rc_waits entry
  std::vector<DEntry> dents_;
  std::vector<WRec> wrecs_;
  std::unordered_map<CauseKey, std::pair<double, double>, CauseKeyHash> causes_;
  Bytes graph_in_, jumps_in_;
  uint64_t with_delayer_ = 0, edges_ = 0, unordered_ = 0;
  RootCauseResult out_;
  struct SevSlot { SevKey key{}; double* value = nullptr; };
  struct CauseSlot { CauseKey key{}; std::pair<double, double>* value = nullptr; };
  CauseSlot cause_cache_[256];
  static constexpr size_t kSevCache = 256;
  SevSlot sev_cache_[kSevCache];
};


}  // namespace

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
