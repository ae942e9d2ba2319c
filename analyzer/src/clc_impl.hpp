// Private to the clock correction (clc.cpp: driver; clc_math.cpp: amortisation and maps;
// clc_collectives.cpp: collectives as logical messages; clc_forward.hpp: the forward replay):
// the ranks' topology with its latencies, bounds with their rounds, the known events of a
// location.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "clc.hpp"
#include "gridscope/trace/mpi_names.hpp"
#include "replay.hpp"

namespace gs::clc_detail {

// Ticks the controlled clock advances over `dt` original ticks (>= 1 for dt >= 1: events
// of a location stay strictly ordered).
inline int64_t advance(int64_t dt, double gamma) { return int64_t(std::ceil(gamma * double(dt))); }

// The controlled clock at original time t, carried on from (t_prev, c_prev) (step 1, I_k).
inline int64_t carried(int64_t t_prev, int64_t c_prev, int64_t t, double gamma) {
  return std::max(t, c_prev + advance(t - t_prev, gamma));
}

// Where the ranks are (node, metahost) and the minimum latency in ticks of every link key:
// within a node of metahost h, between nodes of h, between metahosts h1 and h2 (unordered).
class Topology {
 public:
  explicit Topology(const Defs& d) : host_(d.rank_metahost), node_(d.ranks()) {
    std::map<std::pair<uint32_t, std::string>, uint32_t> ids;
    for (uint32_t r = 0; r < d.ranks(); ++r)
      node_[r] = ids.emplace(std::make_pair(host_[r], d.rank_node[r]), uint32_t(ids.size())).first->second;
    nodes_ = ids.size();
    hosts_ = 0;
    for (uint32_t h : host_) hosts_ = std::max<size_t>(hosts_, h + 1);
    lat_.assign(keys(), 0);
  }
  // Index of the link key of a message between ranks a and b (the same both ways).
  size_t key(uint32_t a, uint32_t b) const {
    const size_t ha = host_[a], hb = host_[b];
    if (ha != hb) return 2 * hosts_ + std::min(ha, hb) * hosts_ + std::max(ha, hb);
    return (node_[a] != node_[b] ? hosts_ : 0) + ha;
  }
  size_t keys() const { return 2 * hosts_ + hosts_ * hosts_; }
  int64_t latency(uint32_t a, uint32_t b) const { return lat_[key(a, b)]; }
  int64_t node_latency(uint32_t h) const { return lat_[h]; }
  int64_t host_latency(uint32_t h) const { return lat_[hosts_ + h]; }
  int64_t grid_latency(uint32_t h1, uint32_t h2) const {
    return lat_[2 * hosts_ + std::min(h1, h2) * hosts_ + std::max(h1, h2)];
  }

  // Every key's latency from the global observed minima (kNoObservation: none) and the
  // options; returns what the keys this placement has (a node with two ranks, a metahost
  // with two nodes, two metahosts) use.
  std::vector<LinkLatency> choose(const std::vector<int64_t>& observed, const ClcOptions& o, uint64_t resolution) {
    auto option = [&](double s) { return s < 0 ? int64_t(-1) : int64_t(std::llround(s * double(resolution))); };
    const int64_t opt[3] = {option(o.latency_node_s), option(o.latency_host_s), option(o.latency_grid_s)};
    const int64_t floor[3] = {floor_ticks(kFloorNodeNs, resolution), floor_ticks(kFloorHostNs, resolution),
                              floor_ticks(kFloorGridNs, resolution)};
    std::vector<uint32_t> ranks_on_node(nodes_, 0), nodes_on_host(hosts_, 0), host_of_node(nodes_, 0);
    std::vector<uint8_t> host_used(hosts_, 0);
    for (size_t r = 0; r < host_.size(); ++r) {
      host_of_node[node_[r]] = host_[r];
      host_used[host_[r]] = 1;
      if (ranks_on_node[node_[r]]++ == 0) nodes_on_host[host_[r]]++;
    }
    std::vector<uint8_t> node_pair(hosts_, 0);  // a node of h holds two ranks
    for (size_t n = 0; n < nodes_; ++n) node_pair[host_of_node[n]] |= ranks_on_node[n] > 1;
    std::vector<LinkLatency> used;
    auto set = [&](size_t k, uint32_t h1, uint32_t h2, LinkClass c, bool present) {
      LatencyChoice ch = choose_latency(observed[k], floor[int(c)], opt[int(c)]);
      lat_[k] = ch.ticks;
      if (present) used.push_back({h1, h2, c, ch.source, ch.ticks, observed[k]});
    };
    for (uint32_t h = 0; h < hosts_; ++h) set(h, h, h, LinkClass::Node, node_pair[h]);
    for (uint32_t h = 0; h < hosts_; ++h) set(hosts_ + h, h, h, LinkClass::Host, nodes_on_host[h] > 1);
    for (uint32_t h1 = 0; h1 < hosts_; ++h1)
      for (uint32_t h2 = h1 + 1; h2 < hosts_; ++h2)
        set(2 * hosts_ + h1 * hosts_ + h2, h1, h2, LinkClass::Grid, host_used[h1] && host_used[h2]);
    return used;
  }

  // The collectives' latencies on one clock (docs/analyzer.md "Clocks"): every key's
  // latency, at most `cap` (at least 1 tick).
  void capped_copy(const Topology& from, int64_t cap) {
    lat_ = from.lat_;
    for (int64_t& l : lat_) l = std::max<int64_t>(1, std::min(l, cap));
  }
  void copy(const Topology& from) { lat_ = from.lat_; }

  uint32_t node(uint32_t r) const { return node_[r]; }
  uint32_t host(uint32_t r) const { return host_[r]; }
  size_t nodes() const { return nodes_; }
  size_t hosts() const { return hosts_; }

 private:
  std::vector<uint32_t> host_, node_;
  size_t nodes_, hosts_;
  std::vector<int64_t> lat_;  // by key: 2 per metahost + a square of pairs (metahosts are few)
};

// A bound and its round: how many corrections in a row it results from (the round a
// round-by-round iteration would reach it in). Of equal values the earlier round counts.
struct Val {
  int64_t v = kNoBound;
  uint32_t gen = 0;
  bool beats(const Val& o) const { return v > o.v || (v == o.v && gen < o.gen); }
};

inline Val plus(Val x, int64_t lat) { return x.v == kNoBound ? x : Val{x.v + lat, x.gen}; }
inline Val best(Val a, Val b) { return b.beats(a) ? b : a; }

// The two best values under distinct keys (a key's value only improves).
struct Top2 {
  Val v[2];
  uint32_t key[2] = {kNone, kNone};
  void put(uint32_t k, Val x) {
    if (key[0] == k) { v[0] = best(v[0], x); return; }
    if (key[1] == k) {
      v[1] = best(v[1], x);
    } else if (x.beats(v[1])) {
      v[1] = x; key[1] = k;
    }
    if (v[1].beats(v[0])) { std::swap(v[0], v[1]); std::swap(key[0], key[1]); }
  }
  Val best_except(uint32_t k) const { return key[0] != k ? v[0] : v[1]; }
};

// Over the members of one collective instance inserted so far: the best value_k + latency(k, q)
// over members k != q: per node and per metahost the two best (O(1) per member), then one
// term per metahost of the instance (latencies between metahosts differ by pair).
class NearestMax {
 public:
  explicit NearestMax(const Topology& topo)
      : topo_(topo), node_(topo.nodes()), host_(topo.hosts()), host_in_(topo.hosts(), 0) {}
  void clear() {
    for (uint32_t n : nodes_used_) node_[n] = Top2{};
    for (uint32_t h : hosts_used_) { host_[h] = Top2{}; host_in_[h] = 0; }
    nodes_used_.clear();
    hosts_used_.clear();
  }
  void insert(uint32_t rank, Val value) {
    uint32_t n = topo_.node(rank), h = topo_.host(rank);
    nodes_used_.push_back(n);
    if (!host_in_[h]) { host_in_[h] = 1; hosts_used_.push_back(h); }
    node_[n].put(rank, value);
    host_[h].put(n, node_[n].v[0]);
  }
  Val query(uint32_t rank) const {
    uint32_t n = topo_.node(rank), h = topo_.host(rank);
    Val b = best(plus(node_[n].best_except(rank), topo_.node_latency(h)),
                 plus(host_[h].best_except(n), topo_.host_latency(h)));
    for (uint32_t o : hosts_used_)
      if (o != h) b = best(b, plus(host_[o].v[0], topo_.grid_latency(h, o)));
    return b;
  }

 private:
  const Topology& topo_;
  std::vector<Top2> node_, host_;
  std::vector<uint8_t> host_in_;
  std::vector<uint32_t> nodes_used_, hosts_used_;
};

// A member of a collective instance at its home process: `index` is its record at its
// owner; `gen` the round of its begin (step 1); begin and end corrected.
struct CollTime { uint32_t comm, seq, pos, rank, root, index; uint32_t cls, gen; int64_t begin, end; };
// A slack for record `index` of the process it goes to (step 2).
struct SlackMsg { uint32_t index, pad; int64_t value; };

// Logical messages of one collective instance, members in communicator order.
// Bound: the least corrected end of each member (kNoBound: none), with its round.
void collective_bounds(CollClass cls, const std::vector<const CollTime*>& m, NearestMax& nm, const Topology& topo,
                       std::vector<Val>& out);
// The logical transfers of one collective instance on original times: each bounded
// member's end minus the latest begin it waits for (Barrier, N-to-N: the other members';
// prefix: the lower positions'; 1-to-N: the root's; N-to-1, at the root: the others').
// Adds the positive ones to `least` and the largest violation (latest begin - end >= 0) to
// `violation`.
void collective_transfers(CollClass cls, const std::vector<int64_t>& b, const std::vector<int64_t>& e, size_t root,
                          MinTransfer& least, int64_t& violation);
// Slack: how far each source member's begin may move forward without breaking a bound
// (kNoBound: the member feeds nobody). min over its targets q of end_q - latency - begin.
void collective_slacks(CollClass cls, const std::vector<const CollTime*>& m, NearestMax& nm, const Topology& topo,
                       std::vector<int64_t>& out);

// The known event times of one owned location and its clocks.
struct Location {
  std::vector<int64_t> t;  // distinct original times of all record fields, ascending
  ForwardClock fw;         // filled by the forward replay, event by event
  std::vector<uint32_t> gen;  // corrections in a row that led to each event's time
  std::vector<Pin> pins;
  // forward replay state: inputs (bounds) and outputs (sources) by event
  struct Port { uint32_t knot, kind, idx; };  // kind: kRecv/kSend (record index) or kColl (colls index)
  std::vector<Port> inputs, outputs;
  size_t cursor = 0, next_in = 0, next_out = 0;
  bool queued = false;
};

enum : uint32_t { kRecv = 0, kSend = 1, kColl = 2 };
constexpr uint8_t kReleased = 2;  // an input whose bound was dropped to break a cycle

// A forward-replay message: kind 0 a receive's bound (idx = receive record), 1 a collective
// member's corrected begin (idx = instance at its home, slot = member), 2 a collective
// member's bound (idx = collective record).
struct Update { uint32_t kind, idx, slot, gen; int64_t value; };

}  // namespace gs::clc_detail
