#include "clc.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/matching.hpp"
#include "replay.hpp"

namespace gs {
namespace {

// Ticks the controlled clock advances over `dt` original ticks (>= 1 for dt >= 1: events
// of a location stay strictly ordered).
int64_t advance(int64_t dt, double gamma) { return int64_t(std::ceil(gamma * double(dt))); }

// The controlled clock at original time t, carried on from (t_prev, c_prev) (step 1, I_k).
int64_t carried(int64_t t_prev, int64_t c_prev, int64_t t, double gamma) {
  return std::max(t, c_prev + advance(t - t_prev, gamma));
}

}  // namespace

ForwardClock forward_clock(const std::vector<int64_t>& t, const std::vector<int64_t>& lower, double gamma) {
  ForwardClock f;
  f.corrected.resize(t.size());
  f.internal.resize(t.size());
  for (size_t k = 0; k < t.size(); ++k) {
    int64_t in = k == 0 ? t[0] : carried(t[k - 1], f.corrected[k - 1], t[k], gamma);
    f.internal[k] = in;
    f.corrected[k] = std::max(in, lower[k]);
  }
  return f;
}

namespace {

struct Point { double x, y; };

// Lower convex hull of points with strictly increasing x (Andrew's monotone chain).
std::vector<Point> lower_hull(const std::vector<Point>& pts) {
  std::vector<Point> h;
  for (const Point& p : pts) {
    while (h.size() >= 2) {
      const Point& o = h[h.size() - 2];
      const Point& a = h.back();
      if ((a.x - o.x) * (p.y - o.y) - (a.y - o.y) * (p.x - o.x) > 0) break;  // left turn: keep
      h.pop_back();
    }
    h.push_back(p);
  }
  return h;
}

}  // namespace

std::vector<int64_t> backward_shift(const std::vector<int64_t>& c, const std::vector<Jump>& jumps,
                                    const std::vector<Pin>& pins_in, double slope) {
  std::vector<int64_t> shift(c.size(), 0);
  std::vector<Pin> pins(pins_in);
  std::sort(pins.begin(), pins.end(),
            [](const Pin& a, const Pin& b) { return std::tie(a.knot, a.slack) < std::tie(b.knot, b.slack); });
  // one pin per event, the tightest
  pins.erase(std::unique(pins.begin(), pins.end(), [](const Pin& a, const Pin& b) { return a.knot == b.knot; }),
             pins.end());
  std::vector<Point> pts;
  for (const Jump& j : jumps) {
    if (j.delta <= 0 || j.knot == 0) continue;  // nothing before the first event
    // The ramp: from tl (shift 0) to the jump's time before the jump tr (shift delta), at most
    // `slope` steep unless the location's first event comes earlier.
    const double tr = double(c[j.knot] - j.delta);
    const double tl = std::max(double(c[0]), tr - double(j.delta) / slope);
    // ... bent below every send-like event in between: it may move by its slack only.
    pts.clear();
    // (the walk back stops at a send without slack: the hull is 0 before it)
    auto first_pin =
        std::lower_bound(pins.begin(), pins.end(), j.knot, [](const Pin& p, size_t k) { return p.knot < k; });
    auto p = first_pin;
    while (p != pins.begin() && double(c[std::prev(p)->knot]) > tl && std::prev(p)->slack > 0) --p;
    pts.push_back({tl, 0.0});
    if (p != pins.begin() && double(c[std::prev(p)->knot]) > tl) pts.back().x = double(c[std::prev(p)->knot]);
    for (; p != first_pin; ++p) pts.push_back({double(c[p->knot]), double(p->slack)});
    pts.push_back({tr, double(j.delta)});
    std::vector<Point> h = lower_hull(pts);
    // the hull is 0 up to its last vertex at 0 (a send without slack): start there
    size_t s = 0;
    while (s + 2 < h.size() && h[s + 1].y <= 0) ++s;
    size_t k = std::upper_bound(c.begin(), c.begin() + j.knot, int64_t(std::floor(h[s].x))) - c.begin();
    for (; k < j.knot; ++k) {
      double x = double(c[k]);
      if (x <= tl) continue;
      while (s + 2 < h.size() && x > h[s + 1].x) ++s;
      double y = h[s].y + (h[s + 1].y - h[s].y) * (x - h[s].x) / (h[s + 1].x - h[s].x);
      shift[k] = std::max(shift[k], int64_t(std::floor(y)));
    }
  }
  return shift;
}

int64_t floor_ticks(int64_t nanoseconds, uint64_t resolution) {
  return std::max<int64_t>(1, int64_t(__int128(nanoseconds) * resolution / 1000000000));
}

LatencyChoice choose_latency(int64_t observed_ticks, int64_t floor, int64_t option_ticks) {
  if (option_ticks >= 0) return {option_ticks, LatencySource::Option};
  if (observed_ticks != kNoObservation && observed_ticks >= floor) return {observed_ticks, LatencySource::Trace};
  return {floor, LatencySource::Floor};
}

ClockMap::ClockMap(std::vector<int64_t> original, std::vector<int64_t> corrected, double gamma)
    : t_(std::move(original)), c_(std::move(corrected)), gamma_(gamma) {}

int64_t ClockMap::at(int64_t t) const {
  if (t_.empty() || t < t_.front()) return t;
  size_t k = std::upper_bound(t_.begin(), t_.end(), t) - t_.begin() - 1;  // t_[k] <= t
  if (t_[k] == t) return c_[k];
  if (k + 1 == t_.size()) return carried(t_[k], c_[k], t, gamma_);
  __int128 num = __int128(c_[k + 1] - c_[k]) * (t - t_[k]);
  return c_[k] + int64_t(num / (t_[k + 1] - t_[k]));
}

namespace {

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

Val plus(Val x, int64_t lat) { return x.v == kNoBound ? x : Val{x.v + lat, x.gen}; }
Val best(Val a, Val b) { return b.beats(a) ? b : a; }

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
                       std::vector<Val>& out) {
  out.assign(m.size(), Val{});
  size_t root = m.size();
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i]->rank == m[i]->root) root = i;
  auto begin = [&](size_t i) { return Val{m[i]->begin, m[i]->gen + 1}; };  // a message: one round on
  nm.clear();
  switch (cls) {
    case CollClass::Barrier:
    case CollClass::NxN:  // everybody to everybody
      for (size_t i = 0; i < m.size(); ++i) nm.insert(m[i]->rank, begin(i));
      for (size_t i = 0; i < m.size(); ++i) out[i] = nm.query(m[i]->rank);
      break;
    case CollClass::Prefix:  // lower positions to higher ones
      for (size_t i = 0; i < m.size(); ++i) {
        out[i] = nm.query(m[i]->rank);
        nm.insert(m[i]->rank, begin(i));
      }
      break;
    case CollClass::OneToN:  // root to the others
      if (root == m.size()) break;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) out[i] = plus(begin(root), topo.latency(m[root]->rank, m[i]->rank));
      break;
    case CollClass::NToOne:  // the others to the root
      if (root == m.size()) break;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) out[root] = best(out[root], plus(begin(i), topo.latency(m[i]->rank, m[root]->rank)));
      break;
    default: break;
  }
}

// The logical transfers of one collective instance on original times: each bounded
// member's end minus the latest begin it waits for (Barrier, N-to-N: the other members';
// prefix: the lower positions'; 1-to-N: the root's; N-to-1, at the root: the others').
// Adds the positive ones to `least` and the largest violation (latest begin - end >= 0) to
// `violation`.
void collective_transfers(CollClass cls, const std::vector<int64_t>& b, const std::vector<int64_t>& e, size_t root,
                          MinTransfer& least, int64_t& violation) {
  const size_t n = b.size();
  auto see = [&](int64_t transfer) {
    least.add(transfer);
    if (transfer <= 0) violation = std::max(violation, -transfer);
  };
  switch (cls) {
    case CollClass::Barrier:
    case CollClass::NxN: {
      size_t top = 0;
      for (size_t i = 1; i < n; ++i)
        if (b[i] > b[top]) top = i;
      int64_t second = INT64_MIN;
      for (size_t i = 0; i < n; ++i)
        if (i != top) second = std::max(second, b[i]);
      for (size_t i = 0; i < n; ++i) {
        const int64_t waits_for = i == top ? second : b[top];
        if (waits_for != INT64_MIN) see(e[i] - waits_for);
      }
      break;
    }
    case CollClass::Prefix: {
      int64_t latest = INT64_MIN;
      for (size_t i = 0; i < n; ++i) {
        if (latest != INT64_MIN) see(e[i] - latest);
        latest = std::max(latest, b[i]);
      }
      break;
    }
    case CollClass::OneToN:
      if (root < n)
        for (size_t i = 0; i < n; ++i)
          if (i != root) see(e[i] - b[root]);
      break;
    case CollClass::NToOne:
      if (root < n) {
        int64_t latest = INT64_MIN;
        for (size_t i = 0; i < n; ++i)
          if (i != root) latest = std::max(latest, b[i]);
        if (latest != INT64_MIN) see(e[root] - latest);
      }
      break;
    default: break;
  }
}

// Slack: how far each source member's begin may move forward without breaking a bound
// (kNoBound: the member feeds nobody). min over its targets q of end_q - latency - begin.
void collective_slacks(CollClass cls, const std::vector<const CollTime*>& m, NearestMax& nm, const Topology& topo,
                       std::vector<int64_t>& out) {
  out.assign(m.size(), kNoBound);
  size_t root = m.size();
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i]->rank == m[i]->root) root = i;
  auto slack = [](Val neg_min, int64_t begin) { return neg_min.v == kNoBound ? kNoBound : -neg_min.v - begin; };
  nm.clear();  // holds -end: max(-end_q + latency) = -min(end_q - latency)
  switch (cls) {
    case CollClass::Barrier:
    case CollClass::NxN:
      for (auto* x : m) nm.insert(x->rank, Val{-x->end, 0});
      for (size_t i = 0; i < m.size(); ++i) out[i] = slack(nm.query(m[i]->rank), m[i]->begin);
      break;
    case CollClass::Prefix:
      for (size_t i = m.size(); i-- > 0;) {
        out[i] = slack(nm.query(m[i]->rank), m[i]->begin);
        nm.insert(m[i]->rank, Val{-m[i]->end, 0});
      }
      break;
    case CollClass::OneToN: {
      if (root == m.size()) break;
      Val neg;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) neg = best(neg, Val{-m[i]->end + topo.latency(m[root]->rank, m[i]->rank), 0});
      out[root] = slack(neg, m[root]->begin);
      break;
    }
    case CollClass::NToOne:
      if (root == m.size()) break;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) out[i] = m[root]->end - topo.latency(m[i]->rank, m[root]->rank) - m[i]->begin;
      break;
    default: break;
  }
}

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

// Step 1 as a replay in causal order: a location computes its events one after the other
// and waits at an event whose bounds are not known yet; a computed send or collective
// begin releases the bound it feeds at once. With one process that is the whole step, in
// one pass. Bounds from other processes are speculated: taken from the previous round (at
// first from the original send times); the processes exchange what they computed and
// repeat until no such bound changes (values only grow from below to the least solution,
// which does not depend on the partition). When corrections cascade from process to
// process for more than ClcOptions::speculative_rounds rounds, the caller replays all records at
// process 0 instead (forward_at_root). A cycle of waits (only in an inconsistent trace) is
// broken by dropping the bounds the waiting events lack.
class ForwardReplay {
  struct Instance {
    CollClass cls;
    std::vector<CollTime> members;  // communicator order; begin filled as members report
    std::vector<uint32_t> owners;
    std::vector<Val> guess;         // begins of members on other processes (speculation)
    size_t known = 0;
  };

 public:
  // `ctopo`: the latencies of collective logical messages (those of `topo`, or capped on one
  // clock); both are set before prime().
  ForwardReplay(const Defs& d, LocalData& data, Transport& t, const Topology& topo, const Topology& ctopo,
                const ClcOptions& o, std::vector<Location>& locs, const std::vector<uint32_t>& loc_of,
                const std::vector<uint32_t>& send_k, const std::vector<uint32_t>& recv_k,
                const std::vector<uint32_t>& begin_k, const std::vector<uint32_t>& end_k)
      : d_(d), data_(data), t_(t), topo_(topo), ctopo_(ctopo), o_(o), locs_(locs), loc_of_(loc_of), send_k_(send_k),
        P_(t.size()), me_(t.rank()), out_(P_), nm_(ctopo) {
    recv_bound.assign(data.recvs.size(), kNoBound);
    coll_bound.assign(data.colls.size(), kNoBound);
    recv_known_.assign(data.recvs.size(), 1);
    coll_known_.assign(data.colls.size(), 1);
    recv_gen_.assign(data.recvs.size(), 0);
    coll_gen_.assign(data.colls.size(), 0);
    recv_from_.assign(data.recvs.size(), kNone);
    recv_send_.assign(data.recvs.size(), kNone);
    recv_guess_.assign(data.recvs.size(), Val{});
    coll_guess_.assign(data.colls.size(), Val{});
    send_to_.assign(data.sends.size(), {kNone, kNone});
    coll_home_.assign(data.colls.size(), {kNone, kNone, kNone});
    observed_.assign(topo.keys(), MinTransfer{});
    connect_messages();
    connect_collectives();
    for (size_t i = 0; i < data.recvs.size(); ++i)
      if (recv_from_[i] != kNone) port(data.recvs[i].dst).inputs.push_back({recv_k[i], kRecv, uint32_t(i)});
    for (size_t i = 0; i < data.sends.size(); ++i)
      if (send_to_[i].first != kNone) port(data.sends[i].src).outputs.push_back({send_k[i], kSend, uint32_t(i)});
    for (size_t i = 0; i < data.colls.size(); ++i) {
      if (coll_home_[i][0] == kNone) continue;
      port(data.colls[i].rank).inputs.push_back({end_k[i], kColl, uint32_t(i)});
      port(data.colls[i].rank).outputs.push_back({begin_k[i], kColl, uint32_t(i)});
    }
    auto by_knot = [](const Location::Port& a, const Location::Port& b) { return a.knot < b.knot; };
    for (auto& L : locs_) {
      std::stable_sort(L.inputs.begin(), L.inputs.end(), by_knot);
      std::stable_sort(L.outputs.begin(), L.outputs.end(), by_knot);
      L.fw.corrected.assign(L.t.size(), 0);
      L.fw.internal.assign(L.t.size(), 0);
      L.gen.assign(L.t.size(), 0);
    }
  }

  // Least positive logical transfer of the collective instances computed here, and the
  // largest violation (a receive before its send, a collective end before a begin it waits
  // for) on original times.
  int64_t collective_minimum() const { return coll_observed_.value; }
  int64_t largest_violation() const { return violation_; }
  // Least positive transfer time per link key over the messages received here.
  std::vector<int64_t> observed_minima() const {
    std::vector<int64_t> v;
    for (const MinTransfer& m : observed_) v.push_back(m.value);
    return v;
  }
  // Once the topology's latencies are set: the first guess of a bound from another process
  // is the original send time + latency.
  void prime() {
    for (size_t i = 0; i < data_.recvs.size(); ++i)
      if (recv_from_[i] != kNone) recv_guess_[i].v += topo_.latency(data_.recvs[i].src, data_.recvs[i].dst);
  }

  // True when the speculation settled (always with one process).
  bool run() {
    if (P_ == 1) return speculative_round();  // nothing to speculate on: settles at once
    for (int round = 0; round < o_.speculative_rounds; ++round)
      if (speculative_round()) return true;
    return false;
  }
  bool clean() const { return clean_; }  // false: a cycle of waits was broken

  std::vector<int64_t> recv_bound, coll_bound;  // final bounds (kNoBound: none)
  uint64_t exchanges = 0;

  uint32_t max_gen() const {
    uint32_t g = 0;
    for (auto& L : locs_)
      for (uint32_t x : L.gen) g = std::max(g, x);
    return g;
  }
  uint64_t corrected_receives(const std::vector<uint32_t>& recv_k) const {
    uint64_t n = 0;
    for (size_t i = 0; i < data_.recvs.size(); ++i)
      n += recv_bound[i] > locs_[loc_of_[data_.recvs[i].dst]].fw.internal[recv_k[i]];
    return n;
  }
  uint64_t corrected_collectives(const std::vector<uint32_t>& end_k) const {
    uint64_t n = 0;
    for (size_t i = 0; i < data_.colls.size(); ++i)
      n += coll_bound[i] > locs_[loc_of_[data_.colls[i].rank]].fw.internal[end_k[i]];
    return n;
  }

  // Step 2's pins from the final forward clocks C(rank, knot): each send's slack is its
  // receive's corrected time - latency - its own; each collective begin's slack is the
  // least over the members it feeds of end - latency - begin (computed at the home).
  template <class Clock>
  std::vector<SlackMsg> send_slacks(Clock C, const std::vector<uint32_t>& recv_k) {
    for (size_t i = 0; i < data_.recvs.size(); ++i) {
      const RecvRec& r = data_.recvs[i];
      if (recv_from_[i] == kNone) continue;
      append(out_[recv_from_[i]], SlackMsg{recv_send_[i], 0, C(r.dst, recv_k[i]) - topo_.latency(r.src, r.dst)});
    }
    std::vector<SlackMsg> v;
    for (const SlackMsg& m : unpack<SlackMsg>(t_.exchange(out_)))
      v.push_back({m.index, 0, m.value - C(data_.sends[m.index].src, send_k_[m.index])});
    return v;
  }
  template <class Clock>
  std::vector<SlackMsg> collective_slacks_of(Clock C, const std::vector<uint32_t>& begin_k,
                                             const std::vector<uint32_t>& end_k) {
    struct Times { uint32_t instance, slot; int64_t begin, end; };
    for (size_t i = 0; i < data_.colls.size(); ++i) {
      const auto& h = coll_home_[i];
      uint32_t r = data_.colls[i].rank;
      if (h[0] != kNone) append(out_[h[0]], Times{h[1], h[2], C(r, begin_k[i]), C(r, end_k[i])});
    }
    for (const Times& x : unpack<Times>(t_.exchange(out_))) {
      instances_[x.instance].members[x.slot].begin = x.begin;
      instances_[x.instance].members[x.slot].end = x.end;
    }
    std::vector<const CollTime*> m;
    std::vector<int64_t> v;
    for (auto& in : instances_) {
      m.clear();
      for (auto& x : in.members) m.push_back(&x);
      collective_slacks(in.cls, m, nm_, ctopo_, v);
      for (size_t i = 0; i < m.size(); ++i)
        if (v[i] != kNoBound) append(out_[in.owners[i]], SlackMsg{m[i]->index, 0, v[i]});
    }
    Records<SlackMsg> got = unpack<SlackMsg>(t_.exchange(out_));
    return std::vector<SlackMsg>(got.begin(), got.end());
  }

 private:
  Location& port(uint32_t rank) { return locs_[loc_of_[rank]]; }
  uint32_t owner(uint32_t rank) const { return owner_of(rank, d_.ranks(), P_); }

  // Which receive each send feeds: the receivers' owners match, then tell the senders' owners.
  void connect_messages() {
    struct Key { uint32_t src, dst, comm, tag, index, pad; int64_t time; };
    struct Link { uint32_t send, recv; };
    for (size_t i = 0; i < data_.sends.size(); ++i) {
      const SendRec& s = data_.sends[i];
      append(out_[owner(s.dst)], Key{s.src, s.dst, s.comm, s.tag, uint32_t(i), 0, s.evt});
    }
    Records<Key> keys = unpack<Key>(t_.exchange(out_));
    std::vector<uint32_t> partner = match(data_.recvs, keys, nullptr, data_.recv_order);
    for (size_t i = 0; i < data_.recvs.size(); ++i) {
      const RecvRec& r = data_.recvs[i];
      if (partner[i] == kNone || r.src == r.dst) continue;  // no bound (a self message needs none)
      recv_from_[i] = owner(r.src);
      recv_send_[i] = keys[partner[i]].index;
      recv_guess_[i] = Val{keys[partner[i]].time, 1};  // the original send (prime() adds the latency)
      observed_[topo_.key(r.src, r.dst)].add(r.evt - keys[partner[i]].time);
      violation_ = std::max(violation_, keys[partner[i]].time - r.evt);
      append(out_[owner(r.src)], Link{keys[partner[i]].index, uint32_t(i)});
    }
    for (const Link& l : unpack<Link>(t_.exchange(out_))) send_to_[l.send] = {owner(data_.sends[l.send].dst), l.recv};
  }

  // Collective instances are gathered at their communicator's home process, which keeps the
  // members' begins until all are known and then sends each member its bound.
  void connect_collectives() {
    struct Key { uint32_t comm, seq, pos, rank, root, index, cls, owner; int64_t begin, end; };
    struct Link { uint32_t index, instance, slot; };
    for (size_t i = 0; i < data_.colls.size(); ++i) {
      const CollRec& c = data_.colls[i];
      append(out_[owner(d_.comms[c.comm].members[0])],
             Key{c.comm, c.seq, c.pos, c.rank, c.root, uint32_t(i), c.cls, uint32_t(me_), c.begin, c.end});
    }
    Records<Key> keys = unpack<Key>(t_.exchange(out_));
    std::vector<uint32_t> order(keys.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(keys[a].comm, keys[a].seq, keys[a].pos) < std::tie(keys[b].comm, keys[b].seq, keys[b].pos);
    });
    for (size_t i = 0; i < order.size();) {
      const Key& f = keys[order[i]];
      size_t j = i;
      while (j < order.size() && keys[order[j]].comm == f.comm && keys[order[j]].seq == f.seq) ++j;
      bool complete = j - i == d_.comms[f.comm].members.size();  // else: no constraints (the replay counts it)
      for (size_t k = i; complete && k < j; ++k) complete = keys[order[k]].cls == f.cls && keys[order[k]].pos == k - i;
      if (complete) {
        Instance inst;
        inst.cls = CollClass(f.cls);
        std::vector<int64_t> b, e;
        size_t root = j - i;
        for (size_t k = i; k < j; ++k) {
          const Key& m = keys[order[k]];
          b.push_back(m.begin);
          e.push_back(m.end);
          if (m.rank == m.root) root = k - i;
        }
        collective_transfers(inst.cls, b, e, root, coll_observed_, violation_);
        for (size_t k = i; k < j; ++k) {
          const Key& m = keys[order[k]];
          inst.members.push_back(CollTime{m.comm, m.seq, m.pos, m.rank, m.root, m.index, m.cls, 0, 0, 0});
          inst.owners.push_back(m.owner);
          inst.guess.push_back(Val{m.begin, 0});
          append(out_[m.owner], Link{m.index, uint32_t(instances_.size()), uint32_t(k - i)});
        }
        instances_.push_back(std::move(inst));
      }
      i = j;
    }
    for (const Link& l : unpack<Link>(t_.exchange(out_)))
      coll_home_[l.index] = {owner(d_.comms[data_.colls[l.index].comm].members[0]), l.instance, l.slot};
  }

  // Back to the first event everywhere; bounds from other processes are the guesses.
  void reset() {
    const bool speculative = true;
    for (auto& L : locs_) { L.cursor = L.next_in = L.next_out = 0; L.queued = false; }
    for (size_t i = 0; i < data_.recvs.size(); ++i) {
      bool guessed = speculative && recv_from_[i] != uint32_t(me_);
      recv_known_[i] = recv_from_[i] == kNone || guessed;
      recv_bound[i] = guessed ? recv_guess_[i].v : kNoBound;
      recv_gen_[i] = guessed ? recv_guess_[i].gen : 0;
    }
    for (size_t i = 0; i < data_.colls.size(); ++i) {
      bool guessed = speculative && coll_home_[i][0] != kNone && coll_home_[i][0] != uint32_t(me_);
      coll_known_[i] = coll_home_[i][0] == kNone || guessed;
      coll_bound[i] = guessed ? coll_guess_[i].v : kNoBound;
      coll_gen_[i] = guessed ? coll_guess_[i].gen : 0;
    }
    for (auto& in : instances_) {
      in.known = 0;
      if (!speculative) continue;
      for (size_t k = 0; k < in.members.size(); ++k)
        if (in.owners[k] != uint32_t(me_)) {
          in.members[k].begin = in.guess[k].v;
          in.members[k].gen = in.guess[k].gen;
          in.known++;
        }
    }
    for (auto& in : instances_)
      if (in.known == in.members.size()) bounds_of(in);  // no member here: guesses only
    for (size_t l = 0; l < locs_.size(); ++l) wake(l);
  }

  // One round with guessed remote bounds; true when no guess changed anywhere.
  bool speculative_round() {
    reset();
    drain();
    while (unfinished() > 0) {  // only a cycle here can stop a location
      for (size_t l = 0; l < locs_.size(); ++l) release(l);
      drain();
    }
    Records<Update> in = unpack<Update>(t_.exchange(out_));
    ++exchanges;
    uint64_t changed = 0;
    for (const Update& u : in) changed += take_guess(u);
    t_.sum(&changed, 1);
    return changed == 0;
  }

  // A remote value computed in a speculative round becomes the next round's guess.
  bool take_guess(const Update& u) {
    Val v{u.value, u.gen};
    Val* g = u.kind == 0 ? &recv_guess_[u.idx] : u.kind == 2 ? &coll_guess_[u.idx] : &instances_[u.idx].guess[u.slot];
    bool changed = g->v != v.v || g->gen != v.gen;
    *g = v;
    return changed;
  }

  uint64_t unfinished() const {
    uint64_t n = 0;
    for (auto& L : locs_) n += L.cursor < L.t.size();
    return n;
  }
  void wake(size_t l) {
    if (!locs_[l].queued) { locs_[l].queued = true; work_.push_back(l); }
  }
  void drain() {
    while (!work_.empty()) {
      size_t l = work_.back();
      work_.pop_back();
      locs_[l].queued = false;
      advance_location(l);
    }
  }
  void send(uint32_t p, const Update& u) {
    if (p == uint32_t(me_)) {
      apply(u);
    } else {
      append(out_[p], u);
    }
  }
  void apply(const Update& u) {
    switch (u.kind) {
      case 0:
        if (recv_known_[u.idx] == kReleased) break;  // a cycle was broken here: too late
        recv_bound[u.idx] = u.value; recv_gen_[u.idx] = u.gen; recv_known_[u.idx] = 1;
        wake(loc_of_[data_.recvs[u.idx].dst]);
        break;
      case 1: {
        Instance& in = instances_[u.idx];
        in.members[u.slot].begin = u.value;
        in.members[u.slot].gen = u.gen;
        if (++in.known == in.members.size()) bounds_of(in);
        break;
      }
      case 2:
        if (coll_known_[u.idx] == kReleased) break;
        coll_bound[u.idx] = u.value; coll_gen_[u.idx] = u.gen; coll_known_[u.idx] = 1;
        wake(loc_of_[data_.colls[u.idx].rank]);
        break;
    }
  }
  void bounds_of(Instance& in) {
    std::vector<const CollTime*> m;
    for (auto& x : in.members) m.push_back(&x);
    std::vector<Val> b;
    collective_bounds(in.cls, m, nm_, ctopo_, b);
    for (size_t i = 0; i < m.size(); ++i) send(in.owners[i], Update{2, m[i]->index, 0, b[i].gen, b[i].v});
  }

  // Computes the location's events until one waits for a bound.
  void advance_location(size_t l) {
    Location& L = locs_[l];
    while (L.cursor < L.t.size()) {
      const uint32_t k = L.cursor;
      int64_t lower = kNoBound;
      size_t in = L.next_in;
      for (; in < L.inputs.size() && L.inputs[in].knot == k; ++in) {
        const auto& p = L.inputs[in];
        if (!(p.kind == kRecv ? recv_known_[p.idx] : coll_known_[p.idx])) return;  // waits
        lower = std::max(lower, p.kind == kRecv ? recv_bound[p.idx] : coll_bound[p.idx]);
      }
      int64_t internal = k == 0 ? L.t[0] : carried(L.t[k - 1], L.fw.corrected[k - 1], L.t[k], o_.gamma);
      L.fw.internal[k] = internal;
      L.fw.corrected[k] = std::max(internal, lower);
      // round of this time: the earliest of what reaches it (original time 0, carried
      // from the previous event, or a bound)
      const int64_t c = L.fw.corrected[k];
      uint32_t g = UINT32_MAX;
      if (c == L.t[k]) g = 0;
      if (k > 0 && c == L.fw.corrected[k - 1] + advance(L.t[k] - L.t[k - 1], o_.gamma)) g = std::min(g, L.gen[k - 1]);
      for (size_t i = L.next_in; i < in; ++i) {
        const auto& p = L.inputs[i];
        if ((p.kind == kRecv ? recv_bound[p.idx] : coll_bound[p.idx]) == c)
          g = std::min(g, p.kind == kRecv ? recv_gen_[p.idx] : coll_gen_[p.idx]);
      }
      L.gen[k] = g;
      L.next_in = in;
      L.cursor++;
      for (; L.next_out < L.outputs.size() && L.outputs[L.next_out].knot == k; ++L.next_out) {
        const auto& p = L.outputs[L.next_out];
        if (p.kind == kSend) {
          const SendRec& s = data_.sends[p.idx];
          send(send_to_[p.idx].first, Update{0, send_to_[p.idx].second, 0, g + 1, c + topo_.latency(s.src, s.dst)});
        } else {
          const auto& h = coll_home_[p.idx];
          send(h[0], Update{1, h[1], h[2], g, c});
        }
      }
    }
  }

  // Cycle breaking: the waiting event of the location gets no bound from what it lacks.
  void release(size_t l) {
    Location& L = locs_[l];
    if (L.cursor >= L.t.size()) return;
    for (size_t in = L.next_in; in < L.inputs.size() && L.inputs[in].knot == L.cursor; ++in) {
      const auto& p = L.inputs[in];
      uint8_t& known = p.kind == kRecv ? recv_known_[p.idx] : coll_known_[p.idx];
      if (!known) known = kReleased;
    }
    clean_ = false;
    wake(l);
  }

  const Defs& d_;
  LocalData& data_;
  Transport& t_;
  const Topology& topo_;
  const Topology& ctopo_;
  const ClcOptions& o_;
  std::vector<Location>& locs_;
  const std::vector<uint32_t>& loc_of_;
  const std::vector<uint32_t>& send_k_;
  const int P_, me_;
  std::vector<Bytes> out_;
  std::vector<uint8_t> recv_known_, coll_known_;
  std::vector<uint32_t> recv_gen_, coll_gen_;
  std::vector<uint32_t> recv_from_;                     // process of the matching send (kNone: no bound)
  std::vector<uint32_t> recv_send_;                     // its record index there
  std::vector<Val> recv_guess_, coll_guess_;            // bounds from other processes (speculation)
  std::vector<std::pair<uint32_t, uint32_t>> send_to_;  // (process, receive record there)
  std::vector<std::array<uint32_t, 3>> coll_home_;      // (home process, instance, slot)
  std::vector<Instance> instances_;
  std::vector<size_t> work_;
  std::vector<MinTransfer> observed_;  // by link key
  MinTransfer coll_observed_;          // over the collective instances computed here
  int64_t violation_ = 0;
  bool clean_ = true;
  NearestMax nm_;
};

int64_t global_max(Transport& t, int64_t v) {
  std::vector<Bytes> out(t.size());
  for (auto& b : out) append(b, v);
  for (int64_t x : unpack<int64_t>(t.exchange(out))) v = std::max(v, x);
  return v;
}

}  // namespace

namespace {

// The owned locations' knots and, per record, the knot of its event(s).
struct Layout {
  std::vector<uint32_t> loc_of;  // rank -> index in locs (kNone: no records here)
  std::vector<Location> locs;
  std::vector<uint32_t> send_k, recv_k, begin_k, end_k;
};

Layout layout_of(const LocalData& data, uint32_t ranks) {
  Layout lay;
  lay.loc_of.assign(ranks, kNone);
  auto loc = [&](uint32_t rank) -> std::vector<int64_t>& {
    if (lay.loc_of[rank] == kNone) { lay.loc_of[rank] = lay.locs.size(); lay.locs.emplace_back(); }
    return lay.locs[lay.loc_of[rank]].t;
  };
  // knots: every timestamp field of every record
  for (auto& s : data.sends) loc(s.src).insert(loc(s.src).end(), {s.enter, s.evt, s.c_enter, s.c_leave});
  for (auto& r : data.recvs) loc(r.dst).insert(loc(r.dst).end(), {r.enter, r.leave, r.evt, r.req_enter});
  for (auto& c : data.colls) loc(c.rank).insert(loc(c.rank).end(), {c.begin, c.end});
  for (auto& L : lay.locs) {
    std::sort(L.t.begin(), L.t.end());
    L.t.erase(std::unique(L.t.begin(), L.t.end()), L.t.end());
  }
  auto knot = [&](uint32_t rank, int64_t v) {
    const auto& ts = lay.locs[lay.loc_of[rank]].t;
    return uint32_t(std::lower_bound(ts.begin(), ts.end(), v) - ts.begin());
  };
  for (auto& s : data.sends) lay.send_k.push_back(knot(s.src, s.evt));
  for (auto& r : data.recvs) lay.recv_k.push_back(knot(r.dst, r.evt));
  for (auto& c : data.colls) {
    lay.begin_k.push_back(knot(c.rank, c.begin));
    lay.end_k.push_back(knot(c.rank, c.end));
  }
  return lay;
}

// Step 1 result figures of this process: clean (1/0), corrected receives, corrected
// collective ends, largest round.
struct ForwardFigures { uint64_t clean = 1, receives = 0, collectives = 0; uint32_t max_gen = 0; };

ForwardFigures figures_of(const ForwardReplay& f, const Layout& lay) {
  return {f.clean() ? 1u : 0u, f.corrected_receives(lay.recv_k), f.corrected_collectives(lay.end_k), f.max_gen()};
}

template <class T>
void append_all(Bytes& b, const std::vector<T>& v) {
  uint64_t n = v.size();
  append(b, n);
  const char* p = reinterpret_cast<const char*>(v.data());
  b.insert(b.end(), p, p + n * sizeof(T));
}
template <class T>
void take_all(const Bytes& b, size_t& at, std::vector<T>& v) {
  uint64_t n;
  std::memcpy(&n, b.data() + at, sizeof n);
  at += sizeof n;
  size_t old = v.size();
  v.resize(old + n);
  std::memcpy(reinterpret_cast<char*>(v.data() + old), b.data() + at, n * sizeof(T));
  at += n * sizeof(T);
}

// Step 1 for everybody at process 0 (one pass in causal order), each location's clocks
// then go back to its owner. Needs the records of all ranks in process 0's memory.
ForwardFigures forward_at_root(const Defs& d, const LocalData& data, Transport& t, const Topology& topo,
                               const Topology& ctopo, const ClcOptions& o, Layout& lay) {
  const int P = t.size();
  std::vector<Bytes> out(P);
  append_all(out[0], data.sends);
  append_all(out[0], data.recvs);
  append_all(out[0], data.colls);
  Order order = data.recv_order;
  if (order.empty()) {
    order.resize(data.recvs.size());
    std::iota(order.begin(), order.end(), 0u);
  }
  append_all(out[0], order);
  Bytes gathered = t.exchange(out);
  ForwardFigures fig{0, 0, 0, 0};
  struct Head { uint32_t rank, pad; uint64_t knots; };
  struct Knot { int64_t corrected, internal; uint32_t gen, pad; };
  if (t.rank() == 0) {
    LocalData all;
    for (size_t at = 0; at < gathered.size();) {
      const uint32_t first_recv = all.recvs.size(), first_order = all.recv_order.size();
      take_all(gathered, at, all.sends);
      take_all(gathered, at, all.recvs);
      take_all(gathered, at, all.colls);
      take_all(gathered, at, all.recv_order);
      for (size_t i = first_order; i < all.recv_order.size(); ++i) all.recv_order[i] += first_recv;
    }
    Bytes().swap(gathered);
    Layout g = layout_of(all, d.ranks());
    auto local = make_local_transport();
    ForwardReplay f(d, all, *local, topo, ctopo, o, g.locs, g.loc_of, g.send_k, g.recv_k, g.begin_k, g.end_k);
    f.prime();  // the latencies chosen from every process's messages (the same as these)
    f.run();  // one process: settles in one round
    fig = figures_of(f, g);
    for (uint32_t r = 0; r < d.ranks(); ++r) {
      if (g.loc_of[r] == kNone) continue;
      const Location& L = g.locs[g.loc_of[r]];
      Bytes& b = out[owner_of(r, d.ranks(), P)];
      append(b, Head{r, 0, L.t.size()});
      for (size_t k = 0; k < L.t.size(); ++k) append(b, Knot{L.fw.corrected[k], L.fw.internal[k], L.gen[k], 0});
    }
  }
  Bytes mine = t.exchange(out);
  for (size_t at = 0; at < mine.size();) {
    Head h;
    std::memcpy(&h, mine.data() + at, sizeof h);
    at += sizeof h;
    Location& L = lay.locs[lay.loc_of[h.rank]];  // same records, same knots
    L.fw.corrected.resize(h.knots);
    L.fw.internal.resize(h.knots);
    L.gen.resize(h.knots);
    for (size_t k = 0; k < h.knots; ++k, at += sizeof(Knot)) {
      Knot x;
      std::memcpy(&x, mine.data() + at, sizeof x);
      L.fw.corrected[k] = x.corrected;
      L.fw.internal[k] = x.internal;
      L.gen[k] = x.gen;
    }
  }
  return fig;
}

}  // namespace

ClcStats correct_clocks(const Defs& d, LocalData& data, Transport& t, const ClcOptions& o) {
  if (!(o.gamma > 0 && o.gamma <= 1) || !(o.backward_slope > 0))
    throw Error("--time-correct", "gamma must be in (0, 1] and the backward slope positive");
  ClcStats stats;
  const int P = t.size();
  const uint32_t N = d.ranks();
  Topology topo(d);
  Layout lay = layout_of(data, N);
  std::vector<Location>& locs = lay.locs;
  const std::vector<uint32_t>& loc_of = lay.loc_of;
  const std::vector<uint32_t>&send_k = lay.send_k, &recv_k = lay.recv_k, &begin_k = lay.begin_k;
  const std::vector<uint32_t>& end_k = lay.end_k;
  auto C = [&](uint32_t rank, uint32_t k) { return locs[loc_of[rank]].fw.corrected[k]; };

  // 1. Forward amortisation.
  Topology ctopo(d);  // collective logical messages
  ForwardReplay fwd(d, data, t, topo, ctopo, o, locs, loc_of, send_k, recv_k, begin_k, end_k);
  // Minimum latencies: the least transfer time per link key over all processes' messages.
  std::vector<int64_t> seen = fwd.observed_minima();
  seen.push_back(fwd.collective_minimum());
  t.min(seen.data(), int(seen.size()));
  const int64_t coll_seen = seen.back();
  seen.pop_back();
  stats.latencies = topo.choose(seen, o, d.resolution);
  // One clock (every rank on one node, no latency given): a collective that completed after
  // the begins it waits for is consistent, however fast; its logical messages use at most
  // the least such transfer, so only real violations move anything.
  bool one_node = true;
  for (uint32_t r = 1; r < N; ++r) one_node &= d.rank_node[r] == d.rank_node[0];
  const bool options = o.latency_node_s >= 0 || o.latency_host_s >= 0 || o.latency_grid_s >= 0;
  stats.one_clock = one_node && !options;
  stats.collective_min_ticks = coll_seen;
  if (stats.one_clock && coll_seen != kNoObservation) ctopo.capped_copy(topo, coll_seen);
  else ctopo.copy(topo);
  stats.max_violation_ticks = global_max(t, fwd.largest_violation());
  fwd.prime();
  bool settled = fwd.run();  // the same answer on every process
  ForwardFigures fig = settled ? figures_of(fwd, lay) : forward_at_root(d, data, t, topo, ctopo, o, lay);
  stats.exchanges = fwd.exchanges + (settled ? 0 : 2);
  uint64_t totals[3] = {fig.clean, fig.receives, fig.collectives};
  t.sum(totals, 3);
  stats.converged = totals[0] == uint64_t(settled ? P : 1);
  stats.corrected_receives = totals[1];
  stats.corrected_collectives = totals[2];
  stats.rounds = uint64_t(global_max(t, fig.max_gen)) + 1;

  // 2. Backward amortisation, bounded by the slack of every send-like event.
  for (const SlackMsg& m : fwd.send_slacks(C, recv_k))
    locs[loc_of[data.sends[m.index].src]].pins.push_back({send_k[m.index], m.value});
  for (const SlackMsg& m : fwd.collective_slacks_of(C, begin_k, end_k))
    locs[loc_of[data.colls[m.index].rank]].pins.push_back({begin_k[m.index], m.value});

  std::vector<ClockMap> maps(locs.size());
  for (size_t l = 0; l < locs.size(); ++l) {
    Location& L = locs[l];
    std::vector<Jump> jumps;
    for (size_t k = 0; k < L.t.size(); ++k)
      if (L.fw.corrected[k] > L.fw.internal[k]) jumps.push_back({k, L.fw.corrected[k] - L.fw.internal[k]});
    std::vector<int64_t> b = backward_shift(L.fw.corrected, jumps, L.pins, o.backward_slope);
    std::vector<int64_t> final_t(L.t.size());
    for (size_t k = 0; k < L.t.size(); ++k) {
      final_t[k] = L.fw.corrected[k] + b[k];
      stats.max_shift_ticks = std::max(stats.max_shift_ticks, final_t[k] - L.t[k]);
    }
    maps[l] = ClockMap(L.t, std::move(final_t), o.gamma);
  }

  // 3. Every timestamp field of the records through its location's map.
  for (auto& s : data.sends) {
    const ClockMap& f = maps[loc_of[s.src]];
    s.enter = f.at(s.enter); s.evt = f.at(s.evt); s.c_enter = f.at(s.c_enter); s.c_leave = f.at(s.c_leave);
  }
  for (auto& r : data.recvs) {
    const ClockMap& f = maps[loc_of[r.dst]];
    r.enter = f.at(r.enter); r.leave = f.at(r.leave); r.req_enter = f.at(r.req_enter); r.evt = f.at(r.evt);
  }
  for (auto& c : data.colls) {
    const ClockMap& f = maps[loc_of[c.rank]];
    c.begin = f.at(c.begin); c.end = f.at(c.end);
  }
  // Non-blocking collectives are no logical messages here (docs/analyzer.md "Clocks"): their
  // times follow their location's map; a location without known events keeps its times.
  for (auto& c : data.nbcs) {
    if (loc_of[c.rank] == kNone) continue;
    const ClockMap& f = maps[loc_of[c.rank]];
    c.join = f.at(c.join); c.enter = f.at(c.enter); c.leave = f.at(c.leave);
  }

  stats.max_shift_ticks = global_max(t, stats.max_shift_ticks);
  return stats;
}

}  // namespace gs
