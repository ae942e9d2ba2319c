#include "clc.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/matching.hpp"
#include "replay.hpp"
#include "clc_forward.hpp"
#include "clc_impl.hpp"

namespace gs {

using namespace clc_detail;

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
  for (size_t i = 0; i < data.sends.size(); ++i) {
    const SendRec s = data.sends[i];
    loc(s.src).insert(loc(s.src).end(), {s.enter, s.evt, s.c_enter, s.c_leave});
  }
  for (size_t i = 0; i < data.recvs.size(); ++i) {
    const RecvRec r = data.recvs[i];
    loc(r.dst).insert(loc(r.dst).end(), {r.enter, r.leave, r.evt, r.req_enter});
  }
  for (auto& c : data.colls) loc(c.rank).insert(loc(c.rank).end(), {c.begin, c.end});
  for (auto& L : lay.locs) {
    std::sort(L.t.begin(), L.t.end());
    L.t.erase(std::unique(L.t.begin(), L.t.end()), L.t.end());
  }
  auto knot = [&](uint32_t rank, int64_t v) {
    const auto& ts = lay.locs[lay.loc_of[rank]].t;
    return uint32_t(std::lower_bound(ts.begin(), ts.end(), v) - ts.begin());
  };
  for (size_t i = 0; i < data.sends.size(); ++i) lay.send_k.push_back(knot(data.sends[i].src, data.sends[i].evt));
  for (size_t i = 0; i < data.recvs.size(); ++i) lay.recv_k.push_back(knot(data.recvs[i].dst, data.recvs[i].evt));
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
void append_all(Bytes& b, const T& v) {
  uint64_t n = v.size();
  append(b, n);
  for (size_t i = 0; i < n; ++i) append(b, v[i]);  // (message records: decoded, with their channel)
}
template <class T>
void take_all(const Bytes& b, size_t& at, T& v) {
  uint64_t n;
  std::memcpy(&n, b.data() + at, sizeof n);
  at += sizeof n;
  using Rec = std::decay_t<decltype(v[0])>;
  for (size_t i = 0; i < n; ++i, at += sizeof(Rec)) {
    Rec r;
    std::memcpy(&r, b.data() + at, sizeof r);
    v.push_back(r);
  }
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
  for (size_t i = 0; i < data.sends.size(); ++i) {
    SendRec s = data.sends[i];
    const ClockMap& f = maps[loc_of[s.src]];
    s.enter = f.at(s.enter); s.evt = f.at(s.evt); s.c_enter = f.at(s.c_enter); s.c_leave = f.at(s.c_leave);
    data.sends.set(i, s);
  }
  for (size_t i = 0; i < data.recvs.size(); ++i) {
    RecvRec r = data.recvs[i];
    const ClockMap& f = maps[loc_of[r.dst]];
    r.enter = f.at(r.enter); r.leave = f.at(r.leave); r.req_enter = f.at(r.req_enter); r.evt = f.at(r.evt);
    data.recvs.set(i, r);
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
