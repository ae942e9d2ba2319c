// Collective instances gathered at the process that computes them (replay_collectives.cpp):
// which process that is, the records' instance order, the gathered records themselves and
// the walk over the complete instances.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gridscope/trace/pages.hpp"
#include "replay_impl.hpp"

namespace gs::replay_detail {

// Which process computes an instance: instances of one communicator are dealt out in turn
// (a run whose collectives are all on MPI_COMM_WORLD would otherwise be computed by one
// process while the others wait). Every member's owner derives the same process from the
// instance alone, so the results do not depend on the number of processes.
inline uint32_t instance_owner(uint32_t comm, uint32_t seq, int P) { return uint32_t((uint64_t(comm) + seq) % uint64_t(P)); }

// The gathered records of collective instances in (communicator, instance, member
// position) order, as indices into `recs`. The instance numbers count each rank's
// collectives on a communicator, so at one of P processes (instance_owner) those of a
// communicator step by P: every record has its slot (instance / P), communicator after
// communicator, and one pass places them (a comparison sort of these wide records was 8 % of
// a collective-heavy replay). The records stay where they arrived, grouped by rank, so
// reading them in instance order is one sequential stream per member (moving them into
// that order cost a cache miss per record). Sparse numbers, a position outside the
// communicator or two records in one slot (a damaged trace) fall back to sorting the
// indices, which orders them the same way.
template <class Msgs>
std::vector<uint32_t> instance_order(const Defs& d, const Msgs& recs, int P) {
  const size_t n = recs.size();
  std::vector<uint32_t> order;
  auto sort = [&] {
    order.resize(n);
    for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const auto &a = recs[x].rec, &b = recs[y].rec;
      return std::tie(a.comm, a.seq, a.pos, x) < std::tie(b.comm, b.seq, b.pos, y);
    });
    return order;
  };
  std::vector<uint64_t> base(d.comms.size(), 0);  // first slot of each communicator
  std::vector<int64_t> top(d.comms.size(), -1);   // its largest instance number / P
  for (size_t i = 0; i < n; ++i) {
    const auto& r = recs[i].rec;
    if (r.comm >= d.comms.size() || r.pos >= d.comms[r.comm].members.size()) return sort();
    top[r.comm] = std::max<int64_t>(top[r.comm], r.seq / P);
  }
  uint64_t slots = 0;
  for (size_t c = 0; c < d.comms.size(); ++c) {
    base[c] = slots;
    slots += uint64_t(top[c] + 1) * d.comms[c].members.size();
    if (slots > 4 * uint64_t(n) + 4096) return sort();
  }
  std::vector<uint32_t> at(slots, kNone);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = recs[i].rec;
    uint32_t& slot = at[base[r.comm] + uint64_t(r.seq / P) * d.comms[r.comm].members.size() + r.pos];
    if (slot != kNone) return sort();
    slot = uint32_t(i);
  }
  order.reserve(n);
  for (uint32_t i : at)
    if (i != kNone) order.push_back(i);
  return order;
}

// The records an instance owner computes from: its own ranks' records read in place (no
// copy, as SendsSeen's sends), then the records the other processes sent. Record i is
// {rec, index}: the record and its position among its owner's collective records.
template <class Rec, class Msg>
class Gathered {
 public:
  struct Ref { const Rec& rec; uint32_t index; };
  Gathered(const PageVector<Rec>& records, const std::vector<uint32_t>& position, std::vector<uint32_t> own,
           Records<Msg> remote, std::vector<size_t> per_rank)
      : records_(records), position_(position), own_(std::move(own)), remote_(std::move(remote)),
        per_rank_(std::move(per_rank)) {}
  size_t size() const { return own_.size() + remote_.size(); }
  // how many of the records are of each rank (counted as they were gathered)
  const std::vector<size_t>& per_rank() const { return per_rank_; }
  Ref operator[](size_t i) const {
    if (i < own_.size()) return {records_[own_[i]], position_[own_[i]]};
    const Msg& m = remote_[i - own_.size()];
    return {m.rec, m.index};
  }
  void prefetch(size_t i) const {
    if (i < own_.size()) __builtin_prefetch(&records_[own_[i]]);
    else __builtin_prefetch(&remote_[i - own_.size()]);
  }

 private:
  const PageVector<Rec>& records_;
  const std::vector<uint32_t>& position_;
  std::vector<uint32_t> own_;  // the owned instances' records among `records_`
  Records<Msg> remote_;
  std::vector<size_t> per_rank_;
};

// Sends each record to its instance's owner (instance_owner), keeping this process's own;
// returns what it computes from.
// Only the records `keep(k)` says go.
template <class Msg, class Rec, class Keep>
Gathered<Rec, Msg> gather_instances(const PageVector<Rec>& records, const std::vector<uint32_t>& position,
                                    uint32_t ranks, Transport& t, Keep keep) {
  const int P = t.size();
  const uint32_t me = uint32_t(t.rank());
  std::vector<Bytes> out(P);
  std::vector<size_t> count(P, 0);  // sized exactly first, as in point_to_point
  for (size_t k = 0; k < records.size(); ++k)
    if (keep(k)) count[instance_owner(records[k].comm, records[k].seq, P)]++;
  for (int p = 0; p < P; ++p)
    if (uint32_t(p) != me) out[p].reserve(count[p] * sizeof(Msg));
  std::vector<uint32_t> own;
  own.reserve(count[me]);
  std::vector<size_t> per_rank(ranks, 0);
  for (size_t k = 0; k < records.size(); ++k) {
    if (!keep(k)) continue;
    const Rec& c = records[k];
    const uint32_t to = instance_owner(c.comm, c.seq, P);
    if (to == me) own.push_back(uint32_t(k)), per_rank[c.rank]++;
    else append(out[to], Msg{c, position[k], 0});
  }
  Records<Msg> remote = unpack<Msg>(t.exchange(out));
  for (const Msg& m : remote) per_rank[m.rec.rank]++;
  return Gathered<Rec, Msg>(records, position, std::move(own), std::move(remote), std::move(per_rank));
}

// Calls fn(members, comm) for each complete instance of the gathered records of collective
// instances (blocking or non-blocking), in instance_order, its records member by member (in
// position order); instances that lack members or mix operations are counted incomplete.
template <class Msgs, class Fn>
void for_each_complete_instance(const Defs& d, const Msgs& recs, int P, ReplayResult& res, Fn fn) {
  using Ref = decltype(recs[0]);
  const std::vector<uint32_t> order = instance_order(d, recs, P);
  std::vector<Ref> members;
  // An instance's records lie one in each member's stream: more streams than the hardware
  // follows at 64 ranks and more, so each record was a cache miss (a third of
  // collective_results' samples); fetched this many records ahead instead.
  constexpr size_t kAhead = 24;
  for (size_t i = 0, j; i < order.size(); i = j) {
    const auto& first = recs[order[i]].rec;
    members.clear();
    for (j = i; j < order.size() && recs[order[j]].rec.comm == first.comm && recs[order[j]].rec.seq == first.seq; ++j) {
      if (j + kAhead < order.size()) recs.prefetch(order[j + kAhead]);
      members.push_back(recs[order[j]]);
    }
    const CommDef& comm = d.comms[first.comm];
    bool complete = members.size() == comm.members.size();
    for (size_t k = 0; complete && k < members.size(); ++k)
      complete = members[k].rec.cls == first.cls && members[k].rec.pos == k;
    if (complete) {
      res.counters.collectives++;
      fn(members, comm);
    } else {
      res.counters.incomplete_collectives++;
    }
  }
}

}  // namespace gs::replay_detail
