// Root-cause analysis (docs/root-causes.md). Four exchanges after the forward replay:
//  1. waiting owners -> delayer owners: each wait state with the waiting side's time map;
//     the delayer owner computes the delay, the short-term costs and the propagation lists;
//  2. delayer owners -> waiting owners: the indirect part of each wait state;
//  3. everyone -> process 0: the propagation graph, every call's times, the path's moves;
//     process 0 solves the long-term costs and walks the critical path;
//  4. process 0 -> owners: each wait state's inherited costs and the covered path pieces.
// Every sum runs in an order fixed by global call ids and per-rank ordinals, never by the
// number of processes, so any -j writes the same values.
#include "rootcause.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

#include "gridscope/trace/error.hpp"

namespace gs {
namespace {

constexpr uint64_t kWanSalt = 0x9E3779B97F4A7C15ull;
constexpr int kGroups = 6;            // Late Sender, Late Receiver, Barrier, NxN, 1-to-N, N-to-1
constexpr int kCosts = kGroups * 2;   // x class of the wait finally caused (local, grid)

int group_of(uint16_t metric) {
  switch (metric) {
    case M_LATE_SENDER: case M_WRONG_ORDER: return 0;
    case M_LATE_RECEIVER: return 1;
    case M_WAIT_AT_BARRIER: return 2;
    case M_WAIT_AT_NXN: return 3;
    case M_LATE_BROADCAST: return 4;
    case M_EARLY_REDUCE: return 5;
    default: return -1;
  }
}
const uint16_t kShortMetric[kGroups] = {M_DELAY_LATE_SENDER_SHORT, M_DELAY_LATE_RECEIVER_SHORT, M_DELAY_BARRIER_SHORT,
                                        M_DELAY_NXN_SHORT, M_DELAY_LATE_BROADCAST_SHORT, M_DELAY_EARLY_REDUCE_SHORT};
const uint16_t kLongMetric[kGroups] = {M_DELAY_LATE_SENDER_LONG, M_DELAY_LATE_RECEIVER_LONG, M_DELAY_BARRIER_LONG,
                                       M_DELAY_NXN_LONG, M_DELAY_LATE_BROADCAST_LONG, M_DELAY_EARLY_REDUCE_LONG};
enum WaitClass { DIRECT = 0, INDIRECT = 1, PROPAGATING = 2, TERMINAL = 3 };
uint16_t class_metric(WaitClass c, int group) {
  static const uint16_t m[4][3] = {
      {M_WAIT_DIRECT_LATE_SENDER, M_WAIT_DIRECT_LATE_RECEIVER, M_WAIT_DIRECT_COLLECTIVE},
      {M_WAIT_INDIRECT_LATE_SENDER, M_WAIT_INDIRECT_LATE_RECEIVER, M_WAIT_INDIRECT_COLLECTIVE},
      {M_WAIT_PROPAGATING_LATE_SENDER, M_WAIT_PROPAGATING_LATE_RECEIVER, M_WAIT_PROPAGATING_COLLECTIVE},
      {M_WAIT_TERMINAL_LATE_SENDER, M_WAIT_TERMINAL_LATE_RECEIVER, M_WAIT_TERMINAL_COLLECTIVE}};
  return m[c][std::min(group, 2)];
}

uint64_t name_hash(const std::string& s) {  // FNV-1a
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}
uint64_t mix(uint64_t h, uint64_t v) { return (h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull; }

// ---- wire records (plain structs, copied byte-wise)
struct RankCount { uint32_t rank, pad; uint64_t calls; int64_t start; };
struct Request {  // a wait state, followed by `keys` KeyTicks (the waiting side's time map)
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
struct Indirect { uint32_t w_local, pad; double ticks; };
struct NodeMsg {  // one wait state of the propagation graph, followed by `list` ListEntry
  uint64_t gid;
  uint32_t ordinal, src, w_local, list;  // src: the delayer owner; w_local: its WRec index
  uint8_t group, cls, pad[6];
  double D, scale, share;
};
struct ListEntry { uint64_t gid; int64_t w; };
struct CostMsg { uint32_t w_local, pad; double c[kCosts]; };
struct CallMsg { int64_t enter, leave; };  // every owned call, in gid order per rank
struct JumpMsg { uint64_t gid_q, gid_p; uint32_t ordinal, pad; int64_t ticks; };
struct CoverMsg { uint64_t gid; int64_t ticks; };  // ticks < 0: the segment before the call

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
  size_t d_begin, d_end;
  double D;
  uint16_t metric;
  uint8_t cls;
  uint32_t p, wait_metahost;
};

class Analysis {
 public:
  Analysis(const Defs& d, const LocalData& data, const ReplayResult& fwd, Transport& t, const std::vector<uint32_t>& mine)
      : d_(d), data_(data), tl_(data.timeline), fwd_(fwd), t_(t), mine_(mine), P_(t.size()), me_(t.rank()),
        res_(double(d.resolution)), ncp_(data.tree.nodes.size()), tp_(ncp_), tq_(ncp_) {}

  RootCauseResult run() {
    setup();
    delays();
    classes();
    graph_and_path();
    finish();
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
    for (size_t s = 0; s < mine_.size(); ++s)
      for (int p = 0; p < P_; ++p) append(out[p], RankCount{mine_[s], 0, rank_end(s) - tl_.rank_first[s], tl_.rank_start[s]});
    std::vector<uint64_t> count(d_.ranks(), 0);
    rank_start_.assign(d_.ranks(), 0);
    Bytes in = t_.exchange(out);
    for (Cursor c(in); !c.done();) {
      RankCount rc = c.get<RankCount>();
      count[rc.rank] = rc.calls;
      rank_start_[rc.rank] = rc.start;
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
    call_wan_.assign(calls.size(), 0);
    for (size_t k = 0; k < fwd_.recv_transfer.size(); ++k) {
      if (fwd_.recv_transfer[k] < 0) continue;
      uint32_t c = tl_.recv_call[k];
      int64_t lm = local_min[d_.rank_metahost[data_.recvs[k].dst]];
      int64_t excess = fwd_.recv_transfer[k] - (lm == INT64_MAX ? 0 : lm);
      call_wan_[c] = std::max(call_wan_[c], excess);
    }
    for (size_t c = 0; c < calls.size(); ++c)
      call_wan_[c] = std::max<int64_t>(0, std::min(call_wan_[c], calls[c].leave - calls[c].enter - call_wait_[c]));
  }

  size_t slot_of(uint32_t rank) const { return rank - mine_[0]; }
  uint32_t rank_end(size_t slot) const {
    return slot + 1 < mine_.size() ? tl_.rank_first[slot + 1] : uint32_t(tl_.calls.size());
  }
  uint64_t gid_of(uint32_t c) const {
    uint32_t r = tl_.calls[c].rank;
    return gbase_[r] + (c - tl_.rank_first[slot_of(r)]);
  }
  uint32_t local_of(uint64_t gid) const {
    uint32_t r = uint32_t(std::upper_bound(gbase_.begin(), gbase_.end(), gid) - gbase_.begin()) - 1;
    return uint32_t(tl_.rank_first[slot_of(r)] + (gid - gbase_[r]));
  }
  uint32_t rank_of_gid(uint64_t gid) const {
    return uint32_t(std::upper_bound(gbase_.begin(), gbase_.end(), gid) - gbase_.begin()) - 1;
  }

  bool involves(const SyncCall& c, uint32_t other) const {
    for (uint32_t i = c.partners_begin; i < c.partners_end; ++i)
      if (tl_.partners[i] == other) return true;
    return c.comm != kNone && d_.comms[c.comm].position.count(other) > 0;
  }

  // Rank's synchronisation interval before call b with respect to `other` into `map`; the
  // waiting calls inside go to `waits` (docs/root-causes.md).
  void interval(uint32_t b, uint32_t other, TimeMap& map, std::vector<std::pair<uint32_t, int64_t>>* waits) const {
    const auto& calls = tl_.calls;
    const uint32_t first = tl_.rank_first[slot_of(calls[b].rank)];
    uint32_t start = first;
    for (uint32_t c = b; c-- > first;)
      if (involves(calls[c], other)) { start = c + 1; break; }
    for (uint32_t c = start;; ++c) {
      for (uint32_t e = calls[c].seg_begin; e < calls[c].seg_end; ++e) map.add(tl_.seg[e].cp, false, tl_.seg[e].ticks);
      if (c == b) break;
      const SyncCall& x = calls[c];
      map.add(x.cp, false, std::max<int64_t>(0, x.leave - x.enter - call_wait_[c] - call_wan_[c]));
      map.add(x.cp, true, call_wan_[c]);
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
    for (size_t i = 0; i < waits.size(); ++i) {
      const RcWait& w = waits[i];
      const uint32_t q = tl_.calls[w.call].rank;
      const uint32_t ordinal = next_ordinal[slot_of(q)]++;
      if (w.delayer == kNone || w.delayer == q) continue;
      tq_.clear();
      interval(w.call, w.delayer, tq_, nullptr);
      uint32_t keys = 0;
      for (uint32_t cp : tq_.touched()) keys += (tq_.at(cp, false) != 0) + (tq_.at(cp, true) != 0);
      Bytes& b = out[owner_of(w.delayer, N, P_)];
      append(b, Request{gid_of(w.call), q, w.delayer, w.delayer_index, ordinal, uint32_t(i), d_.rank_metahost[q], keys,
                        w.metric, w.cls, w.ref, w.ticks, double(w.ticks) / double(call_wait_[w.call])});
      for (uint32_t cp : tq_.touched())
        for (int wan = 0; wan < 2; ++wan)
          if (int64_t v = tq_.at(cp, wan)) append(b, KeyTicks{cp_hash_[cp] ^ (wan ? kWanSalt : 0), v});
    }
    Bytes in = t_.exchange(out);
    struct Pending { Request rq; size_t keys_at; };
    std::vector<Pending> reqs;
    std::vector<KeyTicks> keys;
    for (Cursor c(in); !c.done();) {
      Request rq = c.get<Request>();
      reqs.push_back({rq, keys.size()});
      for (uint32_t k = 0; k < rq.keys; ++k) keys.push_back(c.get<KeyTicks>());
    }
    std::sort(reqs.begin(), reqs.end(), [](const Pending& a, const Pending& b) {
      return std::tie(a.rq.gid, a.rq.ordinal) < std::tie(b.rq.gid, b.rq.ordinal);
    });

    prop_max_.assign(tl_.calls.size(), 0.0);
    std::vector<Bytes> back(P_), graph(P_), jumps(P_);
    std::vector<std::pair<uint32_t, int64_t>> wl;
    std::vector<int64_t> q_plain(ncp_, 0), q_wan(ncp_, 0);
    std::vector<uint32_t> q_touched;
    for (const Pending& pr : reqs) {
      const Request& rq = pr.rq;
      const uint32_t sp = delayer_call(rq.ref, rq.index);
      if (sp == kNone || sp >= tl_.calls.size() || tl_.calls[sp].rank != rq.p) continue;
      ++with_delayer_;
      tp_.clear();
      wl.clear();
      interval(sp, rq.q, tp_, &wl);
      for (uint32_t k = 0; k < rq.keys; ++k) {  // the waiting side's map, by our call paths
        const KeyTicks& kt = keys[pr.keys_at + k];
        bool wan = false;
        auto it = cp_of_hash_.find(kt.key);
        if (it == cp_of_hash_.end()) { it = cp_of_hash_.find(kt.key ^ kWanSalt); wan = true; }
        if (it == cp_of_hash_.end()) continue;
        (wan ? q_wan : q_plain)[it->second] += kt.ticks;
        q_touched.push_back(it->second);
      }
      const size_t d_begin = dents_.size();
      double dsum = 0;
      for (uint32_t cp : tp_.touched())
        for (int wan = 0; wan < 2; ++wan) {
          int64_t dv = tp_.at(cp, wan) - (wan ? q_wan : q_plain)[cp];
          if (dv > 0) { dents_.push_back({cp, uint8_t(wan), dv}); dsum += double(dv); }
        }
      for (uint32_t cp : q_touched) q_plain[cp] = q_wan[cp] = 0;
      q_touched.clear();
      double wsum = 0;
      for (auto& [c, w] : wl) wsum += double(w);
      const double D = dsum + wsum;
      const double scale = D > 0 ? std::min(double(rq.ticks) / D, 1.0) : 0.0;
      const int g = group_of(rq.metric);
      for (size_t k = d_begin; k < dents_.size(); ++k) {
        const DEntry& e = dents_[k];
        const double v = scale * double(e.d) / res_;
        cause(rq.metric, rq.cls, e, rq.p, rq.wait_metahost).first += v;
        add_sev(kShortMetric[g], rq.cls, e.cp, rq.p, v);
      }
      for (auto& [c, w] : wl) prop_max_[c] = std::max(prop_max_[c], scale);
      append(back[owner_of(rq.q, N, P_)], Indirect{rq.w_local, 0, scale * wsum});
      const uint32_t w_local = uint32_t(wrecs_.size());
      wrecs_.push_back({d_begin, dents_.size(), D, rq.metric, rq.cls, rq.p, rq.wait_metahost});
      NodeMsg nm{};
      nm.gid = rq.gid; nm.ordinal = rq.ordinal; nm.src = uint32_t(me_); nm.w_local = w_local;
      nm.list = uint32_t(wl.size()); nm.group = uint8_t(g); nm.cls = rq.cls;
      nm.D = D; nm.scale = scale; nm.share = rq.share;
      append(graph[0], nm);
      for (auto& [c, w] : wl) append(graph[0], ListEntry{gid_of(c), w});
      edges_ += wl.size();
      append(jumps[0], JumpMsg{rq.gid, gid_of(sp), rq.ordinal, 0, rq.ticks});
    }
    indirect_in_ = t_.exchange(back);
    graph_in_ = t_.exchange(graph);
    jumps_in_ = t_.exchange(jumps);
  }

  std::pair<double, double>& cause(uint16_t metric, uint8_t cls, const DEntry& e, uint32_t p, uint32_t wait_mh) {
    const uint8_t kind = e.wan ? KIND_WAN : cp_mpi_[e.cp] ? KIND_COMMUNICATION : KIND_COMPUTATION;
    return causes_[CauseKey{metric, cls, kind, e.cp, p, wait_mh}];
  }
  void add_sev(uint16_t metric, uint8_t cls, uint32_t cp, uint32_t rank, double v) {
    if (v != 0) out_.severities[SevKey{metric, cls, cp, rank}] += v;
  }

  // ---- 2. wait-state classes at the waiting owners
  void classes() {
    const auto& waits = fwd_.rc_waits;
    std::vector<double> indirect(waits.size(), 0.0);
    for (Cursor c(indirect_in_); !c.done();) {
      Indirect m = c.get<Indirect>();
      indirect[m.w_local] = m.ticks;
    }
    for (size_t i = 0; i < waits.size(); ++i) {
      const RcWait& w = waits[i];
      const SyncCall& call = tl_.calls[w.call];
      const int g = group_of(w.metric);
      const double ind = std::min(indirect[i], double(w.ticks));
      add_sev(class_metric(DIRECT, g), w.cls, call.cp, call.rank, (double(w.ticks) - ind) / res_);
      add_sev(class_metric(INDIRECT, g), w.cls, call.cp, call.rank, ind / res_);
      const double prop = prop_max_[w.call] * double(w.ticks);
      add_sev(class_metric(PROPAGATING, g), w.cls, call.cp, call.rank, prop / res_);
      add_sev(class_metric(TERMINAL, g), w.cls, call.cp, call.rank, (double(w.ticks) - prop) / res_);
    }
  }

  // ---- 3. process 0: long-term costs and the critical path; 4. results back to the owners
  void graph_and_path() {
    // every call's times to process 0, for the path
    std::vector<Bytes> out(P_);
    for (const SyncCall& c : tl_.calls) append(out[0], CallMsg{c.enter, c.leave});
    Bytes calls_in = t_.exchange(out);
    std::vector<Bytes> costs(P_), cover(P_);
    if (me_ == 0) {
      solve(costs);
      walk(calls_in, cover);
    }
    Bytes costs_in = t_.exchange(costs);
    for (Cursor c(costs_in); !c.done();) {
      CostMsg m = c.get<CostMsg>();
      const WRec& w = wrecs_[m.w_local];
      double total = 0;
      for (double v : m.c) total += v;
      if (!(total > 0) || !(w.D > 0)) continue;
      for (size_t k = w.d_begin; k < w.d_end; ++k) {
        const DEntry& e = dents_[k];
        cause(w.metric, w.cls, e, w.p, w.wait_metahost).second += total / w.D * double(e.d) / res_;
        for (int j = 0; j < kCosts; ++j)
          if (m.c[j] > 0) add_sev(kLongMetric[j / 2], uint8_t(j % 2), e.cp, w.p, m.c[j] / w.D * double(e.d) / res_);
      }
    }
    Bytes cover_in = t_.exchange(cover);
    for (Cursor c(cover_in); !c.done();) {
      CoverMsg m = c.get<CoverMsg>();
      const uint32_t call = local_of(m.gid);
      const SyncCall& x = tl_.calls[call];
      if (m.ticks < 0) {
        for (uint32_t e = x.seg_begin; e < x.seg_end; ++e)
          add_sev(M_CRITICAL_PATH, CLS_NONE, tl_.seg[e].cp, x.rank, double(tl_.seg[e].ticks) / res_);
      } else if (x.cp != kNone) {
        add_sev(M_CRITICAL_PATH, CLS_NONE, x.cp, x.rank, double(m.ticks) / res_);
      }
    }
  }

  // Long-term costs over the propagation graph, in a fixed topological order.
  void solve(std::vector<Bytes>& costs) {
    struct Node { NodeMsg m; size_t list_at; };
    std::vector<Node> ws;
    std::vector<ListEntry> lists;
    for (Cursor c(graph_in_); !c.done();) {
      NodeMsg m = c.get<NodeMsg>();
      ws.push_back({m, lists.size()});
      for (uint32_t k = 0; k < m.list; ++k) lists.push_back(c.get<ListEntry>());
    }
    std::sort(ws.begin(), ws.end(), [](const Node& a, const Node& b) {
      return std::tie(a.m.gid, a.m.ordinal) < std::tie(b.m.gid, b.m.ordinal);
    });
    std::vector<uint64_t> ids;
    for (const Node& w : ws) ids.push_back(w.m.gid);
    for (const ListEntry& e : lists) ids.push_back(e.gid);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto id_of = [&](uint64_t gid) { return size_t(std::lower_bound(ids.begin(), ids.end(), gid) - ids.begin()); };
    std::vector<uint32_t> indeg(ids.size(), 0);
    std::vector<size_t> first_w(ids.size() + 1, ws.size());
    for (size_t i = ws.size(); i-- > 0;) first_w[id_of(ws[i].m.gid)] = i;
    for (const ListEntry& e : lists) indeg[id_of(e.gid)]++;
    std::vector<std::array<double, kCosts>> c(ids.size());
    for (auto& v : c) v.fill(0.0);
    std::vector<uint8_t> done(ids.size(), 0);
    std::priority_queue<size_t> ready;  // latest call first (any fixed rule would do)
    for (size_t n = 0; n < ids.size(); ++n)
      if (indeg[n] == 0) ready.push(n);
    auto process = [&](size_t n) {
      done[n] = 1;
      for (size_t i = first_w[n]; i < ws.size() && ws[i].m.gid == ids[n]; ++i) {
        const NodeMsg& m = ws[i].m;
        CostMsg cm{};
        cm.w_local = m.w_local;
        for (int j = 0; j < kCosts; ++j) cm.c[j] = c[n][j] * m.share;
        append(costs[m.src], cm);
        for (uint32_t k = 0; k < m.list; ++k) {
          const ListEntry& e = lists[ws[i].list_at + k];
          const size_t x = id_of(e.gid);
          const double w = double(e.w);
          c[x][m.group * 2 + m.cls] += m.scale * w;
          if (m.D > 0)
            for (int j = 0; j < kCosts; ++j) c[x][j] += cm.c[j] / m.D * w;
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

  // The critical path: backward from the end of the last rank (docs/root-causes.md).
  void walk(const Bytes& calls_in, std::vector<Bytes>& cover) {
    const uint32_t N = d_.ranks();
    const uint64_t G = gbase_[N];
    std::vector<CallMsg> calls(G);
    {
      Cursor c(calls_in);
      for (uint64_t g = 0; g < G; ++g) calls[g] = c.get<CallMsg>();  // owners send in rank order
    }
    // the wait each call is left through: its longest with a known delayer (first of equal)
    std::vector<int64_t> wait(G, 0);
    std::vector<uint64_t> target(G, UINT64_MAX);
    std::vector<uint32_t> ord(G, UINT32_MAX);
    for (Cursor c(jumps_in_); !c.done();) {
      JumpMsg j = c.get<JumpMsg>();
      if (j.ticks > wait[j.gid_q] || (j.ticks == wait[j.gid_q] && j.ordinal < ord[j.gid_q])) {
        wait[j.gid_q] = j.ticks; target[j.gid_q] = j.gid_p; ord[j.gid_q] = j.ordinal;
      }
    }
    if (G == 0) return;
    uint32_t r = 0;
    for (uint32_t k = 1; k < N; ++k)
      if (gbase_[k + 1] > gbase_[k] && (gbase_[r + 1] == gbase_[r] || calls[gbase_[k + 1] - 1].enter > calls[gbase_[r + 1] - 1].enter))
        r = k;
    out_.path_start_rank = r;
    std::vector<uint8_t> seen(G, 0);
    uint64_t i = gbase_[r + 1] - 1;  // the tail pseudo-call
    int64_t piece_end = calls[i].enter, length = 0;
    auto seg_start = [&](uint64_t g, uint32_t rank) { return g > gbase_[rank] ? calls[g - 1].leave : rank_start_[rank]; };
    for (;;) {
      if (seen[i]) break;  // a loop through inconsistent times: stop
      seen[i] = 1;
      append(cover[owner_of(r, N, P_)], CoverMsg{i, -1});
      length += calls[i].enter - seg_start(i, r);
      if (i == gbase_[r]) {
        out_.path.push_back({r, 0, double(rank_start_[r]) / res_, double(piece_end) / res_});
        break;
      }
      const uint64_t x = --i;
      const int64_t resume = calls[x].enter + wait[x];
      if (target[x] != UINT64_MAX && calls[target[x]].enter <= resume && !seen[target[x]]) {
        int64_t covered = std::max<int64_t>(0, calls[x].leave - resume);
        append(cover[owner_of(r, N, P_)], CoverMsg{x, covered});
        length += covered;
        out_.path.push_back({r, 0, double(std::min(resume, calls[x].leave)) / res_, double(piece_end) / res_});
        i = target[x];
        r = rank_of_gid(i);
        piece_end = calls[i].enter;
      } else {
        append(cover[owner_of(r, N, P_)], CoverMsg{x, calls[x].leave - calls[x].enter});
        length += calls[x].leave - calls[x].enter;
      }
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
  std::vector<int64_t> rank_start_;
  std::vector<int64_t> call_wait_, call_wan_;
  std::vector<double> prop_max_;
  std::vector<DEntry> dents_;
  std::vector<WRec> wrecs_;
  std::unordered_map<CauseKey, std::pair<double, double>, CauseKeyHash> causes_;
  Bytes indirect_in_, graph_in_, jumps_in_;
  uint64_t with_delayer_ = 0, edges_ = 0, unordered_ = 0;
  RootCauseResult out_;
};

void write_rows(const std::string& path, const void* data, size_t bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path, "cannot write engine output");
  if (bytes && std::fwrite(data, 1, bytes, f) != bytes) { std::fclose(f); throw Error(path, "write failed (disk full?)"); }
  if (std::fclose(f) != 0) throw Error(path, "write failed (disk full?)");
}

}  // namespace

RootCauseResult root_causes(const Defs& d, const LocalData& data, const ReplayResult& fwd, Transport& t,
                            const std::vector<uint32_t>& mine) {
  if (!data.timeline.enabled) throw std::logic_error("root causes need the timeline");
  return Analysis(d, data, fwd, t, mine).run();
}

void write_root_cause_files(const std::string& dir, const RootCauseResult& rc, int process) {
  const std::string suffix = "." + std::to_string(process);
  write_rows(dir + "/causes" + suffix + ".bin", rc.causes.data(), rc.causes.size() * sizeof(CauseRow));
  if (process == 0) write_rows(dir + "/critical_path.bin", rc.path.data(), rc.path.size() * sizeof(PathPiece));
}

}  // namespace gs
