// Step 1 of the clock correction, forward amortisation, as a replay in causal order
// (clc.cpp drives it). Private to clc.cpp.
#pragma once
#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <vector>

#include "clc_impl.hpp"
#include "gridscope/trace/matching.hpp"

namespace gs::clc_detail {

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
        P_(t.size()), me_(t.rank()), owners_(d.ranks(), P_), out_(P_), nm_(ctopo) {
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
      if (recv_from_[i] == kNone) continue;
      const RecvRec r = data_.recvs[i];
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
  uint32_t owner(uint32_t rank) const { return owners_(rank); }

  // Which receive each send feeds: the receivers' owners match, then tell the senders' owners.
  void connect_messages() {
    struct Key { uint32_t src, dst, comm, tag, index, pad; int64_t time; };
    struct Link { uint32_t send, recv; };
    for (size_t i = 0; i < data_.sends.size(); ++i) {
      const SendRec s = data_.sends[i];
      append(out_[owner(s.dst)], Key{s.src, s.dst, s.comm, s.tag, uint32_t(i), 0, s.evt});
    }
    Records<Key> keys = unpack<Key>(t_.exchange(out_));
    const Channels& table = data_.recvs.channels();
    std::vector<uint32_t> partner = match_channels(
        table.size(), data_.recvs.size(), [&](size_t i) { return data_.recvs.channel(i); }, keys.size(),
        [&](size_t i) { return table.find(chan(keys[i])); }, nullptr, data_.recv_order);
    for (size_t i = 0; i < data_.recvs.size(); ++i) {
      const RecvRec r = data_.recvs[i];
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
          const SendRec s = data_.sends[p.idx];
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
  const RankOwners owners_;
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

inline int64_t global_max(Transport& t, int64_t v) {
  std::vector<Bytes> out(t.size());
  for (auto& b : out) append(b, v);
  for (int64_t x : unpack<int64_t>(t.exchange(out))) v = std::max(v, x);
  return v;
}

}  // namespace gs::clc_detail
