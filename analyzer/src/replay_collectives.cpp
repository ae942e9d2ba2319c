// The forward replay's collective half (docs/analyzer.md): every complete instance of a
// blocking or non-blocking collective, computed at one process (instance_owner: a
// communicator's instances are dealt out in turn); its wait states (patterns/patterns.toml,
// kCollPatterns) and, with root causes, its synchronisation points go back to the members'
// owners and are charged there in the members' own record order. A blocking instance whose
// waits (and, with root causes, synchronisation points) a summary of its members gives is
// computed from summaries instead, at each member's owner (summarise, from_summary).
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "gridscope/trace/pages.hpp"
#include "gs_pattern_dispatch.hpp"
#include "pattern_math.hpp"
#include "replay_impl.hpp"
#include "replay_instances.hpp"

namespace gs::replay_detail {
namespace {

// A blocking instance whose patterns CollSummary computes needs no member's record at
// another process (with root causes, when its members all synchronise: from_summary): each
// process sums up its members of each instance (Partial), the processes owning members of a
// communicator exchange these, and each computes its own members' waits from the combined
// summary, in its records' order (moving every record to the instance's owner and each wait
// back was most of a collective-heavy replay, and did not halve with two processes).
// A member picked by its begin: its comm rank `pos` (kNone: none yet), rank and record
// position at its owner.
struct Picked {
  int64_t t = INT64_MIN;
  uint32_t pos = kNone, rank = kNone, index = kNone, pad = 0;
  bool none() const { return pos == kNone; }
  void latest(const Picked& o) {  // the latest, the first by comm rank of equal ones
    if (!o.none() && (none() || o.t > t || (o.t == t && o.pos < pos))) *this = o;
  }
  void first(const Picked& o) { if (!o.none() && (none() || o.pos < pos)) *this = o; }
  void last(const Picked& o) { if (!o.none() && (none() || o.pos > pos)) *this = o; }
};
// What some of an instance's members have in common; combined in any order, the same.
// `bad`: members of other operations, a rank twice or a position outside the communicator.
struct Partial {
  uint32_t comm = 0, seq = 0, count = 0, last_rank = kNone;  // (last_rank: while summing up one process's)
  uint8_t cls = 0, bad = 0, pad[6] = {};
  int64_t earliest_end = INT64_MAX;
  Picked latest, sender, leaf, first_root, last_root;  // sender: sends data; leaf: a non-root sender
  void add(const Partial& o) {
    if (count > 0 && o.count > 0 && cls != o.cls) bad = 1;
    if (count == 0) comm = o.comm, seq = o.seq, cls = o.cls;
    count += o.count;
    bad |= o.bad;
    earliest_end = std::min(earliest_end, o.earliest_end);
    latest.latest(o.latest), sender.latest(o.sender), leaf.latest(o.leaf);
    first_root.first(o.first_root), last_root.last(o.last_root);
  }
  CollSummary summary() const { return {latest.t, earliest_end, sender.t, leaf.t, last_root.t}; }
};
using Partials = std::vector<std::vector<Partial>>;  // by communicator, by instance

Partial& partial_of(Partials& all, uint32_t comm, uint32_t seq) {
  auto& v = all[comm];
  if (seq >= v.size()) v.resize(size_t(seq) + 1);
  return v[seq];
}

// Whether CollSummary computes every pattern of the class.
bool by_summary(uint8_t cls) {
  static const auto summed = [] {
    std::array<bool, 256> r;
    r.fill(true);
    for (const CollPattern& p : kCollPatterns)
      if (p.formula == CollFormula::EarlyScan) r[uint8_t(p.cls)] = false;
    return r;
  }();
  return summed[cls];
}

int64_t summary_formula(CollFormula f, const CollSummary& s, const CollMember& x) {
  switch (f) {
    case CollFormula::Completion: return s.completion(x);
    case CollFormula::CompletionAfterLatestBegin: return s.completion_after_latest_begin(x);
    case CollFormula::EarlyReduce: return s.early_reduce(x);
    case CollFormula::LateBroadcast: return s.late_broadcast(x);
    case CollFormula::WaitAtBarrier: return s.wait_at_barrier(x);
    case CollFormula::WaitAtNxn: return s.wait_at_nxn(x);
    default: throw std::logic_error("collective pattern without a summary formula");
  }
}
bool complete(const Defs& d, const Partial& a) { return !a.bad && a.count == d.comms[a.comm].members.size(); }

// Whether a complete instance is computed from its summary: every pattern of its class has a
// summary formula and, with root causes, its synchronisation points need none of its members
// either: all of them synchronise with each other (coll_sync: a barrier, or an N-to-N
// instance whose members all overlap), each with the completion after the latest begin.
bool from_summary(const Partial& a, bool rc) {
  if (!by_summary(a.cls)) return false;
  if (!rc) return true;
  const CollClass cls = CollClass(a.cls);
  return cls == CollClass::Barrier || (cls == CollClass::NxN && a.summary().overlap());
}

// blocking_delayer's member
Picked summary_delayer(CollDelayer d, const Partial& a) {
  switch (d) {
    case CollDelayer::LatestJoiner: return a.latest;
    case CollDelayer::LatestSendingLeaf: return a.leaf;
    case CollDelayer::NxnDelayer: return a.summary().overlap() ? a.latest : a.sender;
    case CollDelayer::RootMember: return a.first_root;
    default: return Picked{};
  }
}

// The combined summaries of the instances this process owns members of (and of those it
// counts: the first process owning a member of the communicator counts its instances).
Partials summarise(const Defs& d, const PageVector<CollRec>& recs, const std::vector<uint32_t>& position,
                   Transport& t) {
  const int P = t.size();
  const uint32_t N = d.ranks(), me = uint32_t(t.rank());
  Partials all(d.comms.size());
  for (size_t b = 0; b < recs.size(); ++b) {
    const CollRec& c = recs[b];
    Partial& a = partial_of(all, c.comm, c.seq);
    if (a.count == 0) a.comm = c.comm, a.seq = c.seq, a.cls = c.cls;
    if (a.cls != c.cls || a.last_rank == c.rank || c.pos >= d.comms[c.comm].members.size()) a.bad = 1;
    a.last_rank = c.rank;  // (a rank's records lie together)
    a.count++;
    a.earliest_end = std::min(a.earliest_end, c.end);
    const Picked m{c.begin, c.pos, c.rank, position[b]};
    const bool root = c.rank == c.root;
    a.latest.latest(m);
    if (c.sent > 0) a.sender.latest(m);
    if (c.sent > 0 && !root) a.leaf.latest(m);
    if (root) a.first_root.first(m), a.last_root.last(m);
  }
  if (P == 1) return all;
  std::vector<Bytes> out(P);
  std::vector<uint8_t> to(P);
  for (size_t comm = 0; comm < all.size(); ++comm) {
    if (all[comm].empty()) continue;
    std::fill(to.begin(), to.end(), 0);
    for (uint32_t r : d.comms[comm].members)
      if (r < N) to[owner_of(r, N, P)] = 1;
    to[me] = 0;
    for (int p = 0; p < P; ++p)
      if (to[p])
        for (const Partial& a : all[comm])
          if (a.count > 0) append(out[p], a);
  }
  for (const Partial& a : unpack<Partial>(t.exchange(out))) {
    if (a.comm >= all.size()) throw std::logic_error("collective summary for an unknown communicator");
    partial_of(all, a.comm, a.seq).add(a);
  }
  return all;
}

// A result that is no wait state: a member's part in an instance's synchronisation, for the
// root-cause pass (value: its completion time; delayer: the communicator when it
// synchronised with every member, else kNone).
constexpr uint16_t kRcSync = 0xffff;     // a member's synchronisation point (root causes)
constexpr uint16_t kRcSyncSet = 0xfffe;  // one rank of a synchronising set (start: the set's key)
constexpr uint32_t kInSyncSet = UINT32_MAX - 2;  // kRcSync's group: the set keyed by its start

// The results of the instances computed here, by the member's rank, each rank's in the
// order computed. Its owner reads them in its records' order, rank by rank: kept by rank,
// one rank's results lie together, where results kept instance after instance put each
// one a few kilobytes from the next it read (a cache and TLB miss per result). `reserve`
// takes each rank's records (Gathered::per_rank; an upper bound: at most `per_record` results
// each; a synchronising set's entries, rare, may grow it).
class ResultsByRank {
  // A rank's results in memory mapped for them when they are many (given back once charged,
  // leaving no hole in the heap), from the heap when few: a mapping per rank would run into
  // the system's limit on mappings at tens of thousands of ranks.
  template <class T>
  struct Allocator : std::allocator<T> {
    template <class U>
    struct rebind { using other = Allocator<U>; };
    Allocator() = default;
    template <class U>
    Allocator(const Allocator<U>&) {}
    T* allocate(size_t n) { return n * sizeof(T) >= kMapped ? PageAllocator<T>().allocate(n) : std::allocator<T>::allocate(n); }
    void deallocate(T* p, size_t n) {
      if (n * sizeof(T) >= kMapped) PageAllocator<T>().deallocate(p, n);
      else std::allocator<T>::deallocate(p, n);
    }
  };
  static constexpr size_t kMapped = size_t(1) << 20;

 public:
  using Results = std::vector<ResMsg, Allocator<ResMsg>>;
  explicit ResultsByRank(uint32_t ranks) : by_rank_(ranks) {}
  void reserve(const std::vector<size_t>& records_per_rank, size_t per_record) {
    for (size_t r = 0; r < by_rank_.size(); ++r) by_rank_[r].reserve(by_rank_[r].size() + per_record * records_per_rank[r]);
  }
  void add(const ResMsg& m) { by_rank_[m.rank].push_back(m); }
  Results& of(uint32_t rank) { return by_rank_[rank]; }

 private:
  std::vector<Results> by_rank_;
};

// Scalasca's synchronisation points of a blocking collective instance (scout's
// MpiCommunicationHandler and SynchpointHandler; docs/root-causes.md): which members
// synchronise (`sync`), whether all of them with each other (`group`), and each one's
// completion time, own end - max(earliest end of the synchronising members (of the waiters
// for 1-to-N), min(the begin they waited for, own end)), at least 0: the part of its call
// that a later synchronisation interval keeps.
struct CollSync { std::vector<uint8_t> sync; std::vector<int64_t> completion; bool group = false; };
CollSync coll_sync(const std::vector<CollMember>& m, CollClass cls) {
  CollSync r;
  const size_t n = m.size();
  r.sync.assign(n, 0);
  r.completion.assign(n, 0);
  int64_t waited_for = INT64_MIN;  // the begin the synchronising members waited for
  int64_t latest = INT64_MIN, earliest_end = INT64_MAX;
  for (auto& x : m) { latest = std::max(latest, x.begin); earliest_end = std::min(earliest_end, x.end); }
  switch (cls) {
    case CollClass::Barrier:  // (from_summary: every member, completion_after_latest_begin)
      r.sync.assign(n, 1); r.group = true; waited_for = latest;
      break;
    case CollClass::NxN:
      if (earliest_end > latest) { r.sync.assign(n, 1); r.group = true; waited_for = latest; break; }
      {
        const int l = nxn_delayer(m);
        if (l < 0) return r;
        waited_for = m[l].begin;
        for (size_t k = 0; k < n; ++k) r.sync[k] = (m[k].received > 0 && m[k].begin < waited_for) || int(k) == l;
      }
      break;
    case CollClass::OneToN: {
      const int root = root_member(m);
      if (root < 0) return r;
      waited_for = m[root].begin;
      bool any = false;
      for (size_t k = 0; k < n; ++k)
        if (int(k) != root && m[k].received > 0 && m[k].begin < waited_for) r.sync[k] = 1, any = true;
      if (!any) return r;
      r.sync[root] = 1;
      earliest_end = INT64_MAX;  // over the waiters only
      for (size_t k = 0; k < n; ++k)
        if (r.sync[k] && int(k) != root) earliest_end = std::min(earliest_end, m[k].end);
      break;
    }
    case CollClass::NToOne: {
      const int root = root_member(m), l = latest_sending_leaf(m);
      if (root < 0 || l < 0 || !(m[root].begin < m[l].begin)) return r;
      waited_for = m[l].begin;
      r.sync[root] = r.sync[l] = 1;
      break;
    }
    default:
      return r;
  }
  if ((cls == CollClass::NxN && !r.group) || cls == CollClass::NToOne) {
    earliest_end = INT64_MAX;
    for (size_t k = 0; k < n; ++k)
      if (r.sync[k]) earliest_end = std::min(earliest_end, m[k].end);
  }
  for (size_t k = 0; k < n; ++k)
    if (r.sync[k]) r.completion[k] = std::max<int64_t>(0, m[k].end - std::max(earliest_end, std::min(waited_for, m[k].end)));
  return r;
}

// At the instance's owner (instance_owner): the waiting times of every complete
// instance, addressed to each member's owner.
void collective_results(const Defs& d, const Gathered<CollRec, CollMsg>& recs, int P, ReplayResult& res, bool rc,
                        ResultsByRank& out) {
  const uint32_t N = d.ranks();
  const RankOwners owners(N, P);
  // at most two results (waiting, completion) per record, and a synchronisation point with
  // root causes: reserved address space, the pages are touched only as results are written
  out.reserve(recs.per_rank(), rc ? 3 : 2);
  std::vector<CollMember> members;
  for_each_complete_instance(d, recs, P, res, [&](const auto& inst, const CommDef& comm) {
    members.clear();
    int64_t latest_begin = INT64_MIN;
    for (size_t k = 0; k < inst.size(); ++k) {
      const CollRec& c = inst[k].rec;
      members.push_back({c.begin, c.end, c.sent, c.received, c.rank == c.root});
      latest_begin = std::max(latest_begin, c.begin);
    }
    // `delayer`: the member whose lateness the waits are charged to (-1: none, docs/root-causes.md)
    auto send = [&](uint16_t metric, const std::vector<int64_t>& w, bool completion, int delayer) {
      const uint32_t delayer_rank = delayer < 0 ? kNone : inst[delayer].rec.rank;
      const uint32_t delayer_index = delayer < 0 ? kNone : inst[delayer].index;
      for (size_t k = 0; k < w.size(); ++k) {
        if (w[k] <= 0) continue;
        const CollRec& c = inst[k].rec;
        int64_t start = completion ? c.end - w[k] : c.begin;
        out.add(ResMsg{metric, uint8_t(comm.grid ? CLS_GRID : CLS_LOCAL), 0, c.cp, c.rank, inst[k].index, delayer_rank,
                       delayer_index, start, w[k]});
      }
    };
    const CollClass cls = CollClass(inst[0].rec.cls);
    for (const CollPattern& p : kCollPatterns)  // patterns/patterns.toml, in declaration order
      if (p.cls == cls && p.formula != CollFormula::None)
        send(p.metric, blocking_formula(p.formula, members), p.completion, blocking_delayer(p.delayer, members));
    if (rc) {
      const CollSync sy = coll_sync(members, cls);
      // Scout (SynchpointHandler, cb_pre_coll_n2n): the synchronising members of an N-to-N
      // instance without full overlap synchronise with each other. Two of them are a pair (the
      // wait state says so); three or more are a set, sent once to each process owning one of
      // them, keyed by the instance's first record.
      const size_t nsync = size_t(std::count(sy.sync.begin(), sy.sync.end(), uint8_t(1)));
      const bool in_set = cls == CollClass::NxN && !sy.group && nsync >= 3;
      const int64_t key = int64_t(uint64_t(inst[0].rec.rank) << 32 | inst[0].index);
      std::vector<uint8_t> set_sent(in_set ? P : 0, 0);
      for (size_t k = 0; k < sy.sync.size(); ++k) {
        if (!sy.sync[k]) continue;
        const CollRec& c = inst[k].rec;
        const uint32_t owner = owners(c.rank);
        out.add(ResMsg{kRcSync, 0, 0, c.cp, c.rank, inst[k].index, sy.group ? c.comm : in_set ? kInSyncSet : kNone,
                       kNone, in_set ? key : c.begin, sy.completion[k]});
        if (!in_set || set_sent[owner]) continue;
        set_sent[owner] = 1;
        for (size_t j = 0; j < sy.sync.size(); ++j)
          if (sy.sync[j])
            out.add(ResMsg{kRcSyncSet, 0, 0, c.cp, c.rank, inst[k].index, inst[j].rec.rank, kNone, key, 0});
      }
    }
    // A clock violation: a member left before what it needed began. At a barrier that is
    // any member; at an N-to-N instance a member that receives data needs every sender's
    // begin (scout's condition: ends of receivers before the latest sender's begin).
    if (cls == CollClass::Barrier) {
      for (auto& m : members)
        if (m.end < latest_begin) res.counters.clock_violations++;
    } else if (cls == CollClass::NxN) {
      int64_t latest_sender = INT64_MIN;
      for (auto& m : members)
        if (m.sent > 0) latest_sender = std::max(latest_sender, m.begin);
      for (auto& m : members)
        if (m.received > 0 && m.end < latest_sender) res.counters.clock_violations++;
    }
  });
}

// The waits of this process's members of the complete instances computed from their
// summaries (`partials`: summarise; from_summary), rank by rank in its records' order, each
// given to emit(record, its position, pattern, delayer, start, value), then, with root
// causes, the record's synchronisation point to sync(record, its position, completion);
// each instance counted by the first process owning a member of its communicator (a
// complete one that needs the records there, by its owner: collective_results).
template <class Emit, class Sync>
void summary_results(const Defs& d, const PageVector<CollRec>& recs, const std::vector<uint32_t>& position,
                     const Partials& partials, bool rc, Transport& t, ReplayResult& res, Emit emit, Sync sync) {
  const int P = t.size();
  const uint32_t N = d.ranks(), me = uint32_t(t.rank());
  for (size_t comm = 0; comm < partials.size(); ++comm) {
    if (partials[comm].empty()) continue;
    uint32_t counter = uint32_t(P);
    for (uint32_t r : d.comms[comm].members)
      if (r < N) counter = std::min(counter, owner_of(r, N, P));
    if (counter != me) continue;
    for (const Partial& a : partials[comm])
      if (a.count == 0) continue;
      else if (!complete(d, a)) res.counters.incomplete_collectives++;
      else if (from_summary(a, rc)) res.counters.collectives++;
  }
  // each class's measured patterns (patterns/patterns.toml), in declaration order
  static const auto patterns_of = [] {
    std::array<std::vector<const CollPattern*>, 256> r;
    for (const CollPattern& p : kCollPatterns)
      if (p.formula != CollFormula::None) r[uint8_t(p.cls)].push_back(&p);
    return r;
  }();
  for (size_t b = 0; b < recs.size(); ++b) {
    const CollRec& c = recs[b];
    const Partial& a = partials[c.comm][c.seq];
    if (!complete(d, a) || !from_summary(a, rc)) continue;
    const CollSummary s = a.summary();
    const CollMember x{c.begin, c.end, c.sent, c.received, c.rank == c.root};
    for (const CollPattern* p : patterns_of[a.cls]) {
      const int64_t w = summary_formula(p->formula, s, x);
      if (w > 0) emit(c, position[b], *p, summary_delayer(p->delayer, a), p->completion ? c.end - w : c.begin, w);
    }
    if (rc) sync(c, position[b], s.completion_after_latest_begin(x));
    // clock violations as collective_results counts them
    const CollClass cls = CollClass(a.cls);
    if (cls == CollClass::Barrier && c.end < s.latest) res.counters.clock_violations++;
    if (cls == CollClass::NxN && c.received > 0 && c.end < s.sender) res.counters.clock_violations++;
  }
}

// At the instance's owner (instance_owner): the waiting times of every complete
// non-blocking instance (docs/patterns.md), added to `out` for each member's owner:
// per member its wait for a late join, then its completion delay (Barrier, N-to-N only).
// Members that completed it in an MPI_Test* wait for nobody (their join and their leave
// still count for the others).
void nonblocking_results(const Defs& d, const Gathered<NbcRec, NbcMsg>& recs, int P, ReplayResult& res,
                         ResultsByRank& out) {
  out.reserve(recs.per_rank(), 2);
  std::vector<NbcMember> members;
  for_each_complete_instance(d, recs, P, res, [&](const auto& inst, const CommDef& comm) {
    members.clear();
    for (size_t k = 0; k < inst.size(); ++k) {
      const NbcRec& c = inst[k].rec;
      members.push_back({c.join, c.enter, c.leave, c.sent, c.received, c.rank == c.root});
    }
    // Each pattern of the class (patterns/patterns.toml): its waits by member and its delayer
    // (root causes, our extension; docs/root-causes.md): the member whose initiating MPI_I*
    // call the waiting was for, the latest join (the root of a 1-to-N instance, the latest
    // sending member of an N-to-1 one).
    struct Measured { const CollPattern* p; std::vector<int64_t> w; uint32_t delayer_rank, delayer_index; };
    std::vector<Measured> measured;
    const CollClass cls_of_instance = CollClass(inst[0].rec.cls);
    for (const CollPattern& p : kCollPatterns) {
      if (p.cls != cls_of_instance || p.nonblocking_formula == CollFormula::None) continue;
      const int delayer = nonblocking_delayer(p.nonblocking_delayer, members);
      measured.push_back({&p, nonblocking_formula(p.nonblocking_formula, members),
                          delayer < 0 ? kNone : inst[delayer].rec.rank, delayer < 0 ? kNone : inst[delayer].index});
    }
    const uint8_t cls = comm.grid ? CLS_GRID : CLS_LOCAL;
    for (size_t k = 0; k < members.size(); ++k) {
      const NbcRec& c = inst[k].rec;
      if (c.is_test) continue;
      for (const Measured& m : measured) {  // per member in declaration order: waiting before completion
        const int64_t v = k < m.w.size() ? m.w[k] : 0;
        if (v <= 0) continue;
        out.add(ResMsg{m.p->metric, cls, uint8_t(m.p->completion), c.cp, c.rank, inst[k].index, m.delayer_rank,
                       m.delayer_index, m.p->completion ? c.leave - v : c.enter, v});
      }
    }
  });
}

// Positions of the owned blocking (`colls`) and non-blocking (`nbcs`) collective records in
// one sequence in event order: by rank, then the order the rank's events came in.
struct CollOrder {
  std::vector<uint32_t> colls, nbcs;
  std::vector<uint32_t> call;  // per position: the completing call of a non-blocking record, else kNone
  std::vector<int64_t> duration;  // per position: that completing call's duration (non-blocking only)
  std::vector<Thread> thread;     // per position: the record's location
};
CollOrder collective_order(const LocalData& data) {
  CollOrder o;
  o.colls.resize(data.colls.size());
  o.nbcs.resize(data.nbcs.size());
  o.call.assign(data.colls.size() + data.nbcs.size(), kNone);
  o.duration.assign(o.call.size(), 0);
  o.thread.assign(o.call.size(), 0);
  uint32_t m = 0, b = 0;
  auto blocking_until = [&](uint32_t end) {
    for (; b < end; ++b) {
      if (b > 0) check_rank_order(data.colls[b - 1].rank, data.colls[b].rank);
      o.thread[m] = data.colls[b].thread;
      o.colls[b] = m++;
    }
  };
  for (size_t k = 0; k < data.nbcs.size(); ++k) {
    if (k > 0) check_rank_order(data.nbcs[k - 1].rank, data.nbcs[k].rank);
    blocking_until(data.nbcs[k].after_colls);
    o.call[m] = data.nbcs[k].call;
    o.duration[m] = data.nbcs[k].leave - data.nbcs[k].enter;
    o.thread[m] = data.nbcs[k].thread;
    o.nbcs[k] = m++;
  }
  blocking_until(uint32_t(data.colls.size()));
  return o;
}

}  // namespace

// Collective records go to their instance's owner, which computes the instances' waiting
// times and sends them back to the members' owners. data.colls and data.nbcs are freed once
// the instances are computed (the memory serves the steps after it).
void collectives(const Defs& d, LocalData& data, Transport& t, ReplayResult& res, Accumulator& acc) {
  const int P = t.size();
  const CollOrder order_of = collective_order(data);
  const size_t owned = order_of.call.size();
  const bool rc = data.timeline.enabled;
  std::vector<uint32_t> nbc_done_call;  // per position: a non-blocking record's completing call
  if (rc) {  // record position -> synchronisation call, for the root-cause pass
    res.coll_position_call.assign(owned, kNone);
    res.coll_position_sync.assign(owned, -1);
    res.coll_position_group.assign(owned, kNone);
    for (size_t b = 0; b < order_of.colls.size(); ++b) res.coll_position_call[order_of.colls[b]] = data.timeline.coll_call[b];
    // a non-blocking record's position names its initiating call (where it is a delayer);
    // its waits are charged at its completing call
    nbc_done_call.assign(owned, kNone);
    for (size_t k = 0; k < order_of.nbcs.size(); ++k) {
      res.coll_position_call[order_of.nbcs[k]] = data.nbcs[k].req_call;
      nbc_done_call[order_of.nbcs[k]] = data.nbcs[k].done_call;
    }
  }
  const uint32_t N = d.ranks(), me = uint32_t(t.rank());
  // A member's result from its instance's summary (summary_results), as collective_results
  // writes it from the records: a wait state, and a group's synchronisation point.
  auto summary_wait = [&](const CollRec& c, uint32_t index, const CollPattern& p, const Picked& delayer, int64_t start,
                          int64_t w) {
    return ResMsg{p.metric, uint8_t(d.comms[c.comm].grid ? CLS_GRID : CLS_LOCAL), 0, c.cp, c.rank, index,
                  delayer.rank, delayer.index, start, w};
  };
  auto summary_sync = [](const CollRec& c, uint32_t index, int64_t completion) {
    return ResMsg{kRcSync, 0, 0, c.cp, c.rank, index, c.comm, kNone, c.begin, completion};
  };
  // Charging a blocking member's wait state and keeping a synchronisation point, wherever
  // the result comes from (charge below, or a summary charged as it comes).
  auto charge_blocking = [&](const ResMsg& m) {
    acc.add(m.metric, m.cls == CLS_GRID, m.cp, m.rank, order_of.thread[m.index], m.start, m.value);
    if (rc && m.delayer != kNone && m.value > 0)
      res.rc_waits.push_back({res.coll_position_call[m.index], m.metric, m.cls, REF_COLL, m.delayer, m.delayer_index,
                              m.value});
  };
  auto keep_sync = [&](const ResMsg& m) {
    res.coll_position_sync[m.index] = m.value;
    res.coll_position_group[m.index] = m.delayer;
  };
  ResultsByRank computed(N);
  {
    const Partials partials = summarise(d, data.colls, order_of.colls, t);
    auto needs_records = [&](const Partial& a) { return a.count > 0 && complete(d, a) && !from_summary(a, rc); };
    bool any_records = false;  // whether any of our blocking records goes to its instance's owner
    for (const auto& of_comm : partials)
      for (const Partial& a : of_comm) any_records |= needs_records(a);
    if (data.nbcs.empty() && !any_records) {
      // Our ranks' waits come from no other instance (no non-blocking record, no complete
      // instance that needs the records): charged as they come, in the order the loop below
      // charges them, not kept for it.
      summary_results(
          d, data.colls, order_of.colls, partials, rc, t, res,
          [&](auto&&... a) { charge_blocking(summary_wait(a...)); }, [&](auto&&... a) { keep_sync(summary_sync(a...)); });
    } else {
      std::vector<size_t> per_rank(N, 0);
      for (const CollRec& c : data.colls) per_rank[c.rank]++;
      computed.reserve(per_rank, rc ? 3 : 2);
      summary_results(
          d, data.colls, order_of.colls, partials, rc, t, res,
          [&](auto&&... a) { computed.add(summary_wait(a...)); }, [&](auto&&... a) { computed.add(summary_sync(a...)); });
    }
    const auto colls = gather_instances<CollMsg>(data.colls, order_of.colls, N, t, [&](size_t b) {
      return any_records && needs_records(partials[data.colls[b].comm][data.colls[b].seq]);
    });
    const auto nbcs = gather_instances<NbcMsg>(data.nbcs, order_of.nbcs, N, t, [](size_t) { return true; });
    collective_results(d, colls, P, res, rc, computed);
    nonblocking_results(d, nbcs, P, res, computed);
  }
  PageVector<CollRec>().swap(data.colls);
  PageVector<NbcRec>().swap(data.nbcs);
  // Our own ranks' results stay; the others go to their owners, rank by rank.
  std::vector<Bytes> out(P);
  for (uint32_t r = 0; r < N; ++r) {
    const uint32_t p = owner_of(r, N, P);
    if (p == me) continue;
    ResultsByRank::Results& v = computed.of(r);
    const char* bytes = reinterpret_cast<const char*>(v.data());
    out[p].insert(out[p].end(), bytes, bytes + v.size() * sizeof(ResMsg));
    ResultsByRank::Results().swap(v);
  }
  const Records<ResMsg> arrived = unpack<ResMsg>(t.exchange(out));
  // They are charged (and written) in the order of the members' own records, which no -j
  // changes: rank, then event order, the results of one record in the order computed
  // (waiting before completion). Rank by rank (the owned ranks are consecutive), a stable
  // counting sort by record index of the rank's results: ours, then those that arrived (each
  // process sent its rank by rank: runs of one rank).
  uint32_t first_rank = N, end_rank = 0;
  for (uint32_t r = 0; r < N; ++r)
    if (owner_of(r, N, P) == me) first_rank = std::min(first_rank, r), end_rank = r + 1;
  std::vector<std::vector<std::pair<size_t, size_t>>> runs(end_rank > first_rank ? end_rank - first_rank : 0);
  for (size_t i = 0, j; i < arrived.size(); i = j) {
    const uint32_t r = arrived[i].rank;
    for (j = i + 1; j < arrived.size() && arrived[j].rank == r; ++j) {}
    if (r < first_rank || r >= end_rank) throw std::logic_error("collective result for a rank not owned here");
    runs[r - first_rank].push_back({i, j});
  }
  // A Wait*/Test* that completes several non-blocking collectives waits once: only its
  // longest wait for a join counts (the first of equal ones), as for Late Sender in a
  // Waitall, then its longest completion delay (the first of equal ones), capped by the
  // call's duration minus that wait: the two never cover the same time of the call.
  std::vector<std::pair<uint32_t, int64_t>> in_set;     // (record position, key of its synchronising set)
  std::map<int64_t, std::vector<uint32_t>> set_ranks;  // key -> the set's ranks
  // (one rank's results, read in its records' order: a few fetched ahead, as they may lie
  // apart)
  constexpr size_t kAhead = 16;
  // one rank's n results, at(k) the k-th in its records' order
  auto charge = [&](size_t n, auto&& at) {
    for (size_t k = 0; k < n;) {
      if (k + kAhead < n) __builtin_prefetch(&at(k + kAhead));
      const ResMsg& first = at(k);
      if (first.metric == kRcSync) {
        keep_sync(first);
        if (first.delayer == kInSyncSet) in_set.emplace_back(first.index, first.start);
        ++k;
        continue;
      }
      if (first.metric == kRcSyncSet) {
        set_ranks[first.start].push_back(first.delayer);
        ++k;
        continue;
      }
      const uint32_t call = order_of.call[first.index];
      if (call == kNone) {
        charge_blocking(first);
        ++k;
        continue;
      }
      const ResMsg* wait = nullptr;
      const ResMsg* done = nullptr;
      size_t next = k;
      for (; next < n; ++next) {
        const ResMsg& r = at(next);
        if (r.rank != first.rank || order_of.call[r.index] != call || r.metric >= kRcSyncSet) break;
        const ResMsg*& best = r.completion ? done : wait;
        if (!best || r.value > best->value) best = &r;
      }
      int64_t waited = 0;
      if (wait) {
        acc.add(wait->metric, wait->cls == CLS_GRID, wait->cp, wait->rank, order_of.thread[wait->index], wait->start,
                wait->value);
        waited = wait->value;
        if (rc && wait->delayer != kNone && wait->delayer != wait->rank && nbc_done_call[wait->index] != kNone)
          res.rc_waits.push_back({nbc_done_call[wait->index], wait->metric, wait->cls, REF_COLL, wait->delayer,
                                  wait->delayer_index, wait->value});
      }
      if (done) {
        const int64_t leave = done->start + done->value;
        const int64_t value = std::min(done->value, order_of.duration[done->index] - waited);
        acc.add(done->metric, done->cls == CLS_GRID, done->cp, done->rank, order_of.thread[done->index], leave - value,
                value);
      }
      k = next;
    }
  };
  std::vector<const ResMsg*> order;
  std::vector<uint32_t> slot;
  for (uint32_t r = first_rank; r < end_rank; ++r) {
    auto each_result = [&](auto&& f) {
      for (const ResMsg& m : computed.of(r)) f(m);
      for (const auto& [begin, end] : runs[r - first_rank])
        for (size_t i = begin; i < end; ++i) f(arrived[i]);
    };
    uint32_t lo = UINT32_MAX, hi = 0;
    size_t n = 0;
    bool in_order = true;  // (the results of one communicator come in its records' order)
    each_result([&](const ResMsg& m) {
      if (m.index >= owned) throw std::logic_error("collective result for an unknown record");
      in_order &= n == 0 || m.index >= hi;
      lo = std::min(lo, m.index), hi = std::max(hi, m.index), ++n;
    });
    ResultsByRank::Results& ours = computed.of(r);
    if (in_order && ours.size() == n) {  // ours alone, already in order: no sort
      charge(n, [&](size_t k) -> const ResMsg& { return ours[k]; });
    } else if (n > 0) {
      slot.assign(size_t(hi - lo) + 2, 0);
      each_result([&](const ResMsg& m) { slot[m.index - lo + 1]++; });
      for (size_t k = 1; k < slot.size(); ++k) slot[k] += slot[k - 1];
      order.resize(n);
      each_result([&](const ResMsg& m) { order[slot[m.index - lo]++] = &m; });
      charge(n, [&](size_t k) -> const ResMsg& { return *order[k]; });
    }
    ResultsByRank::Results().swap(ours);
  }
  std::map<int64_t, uint32_t> set_id;
  for (auto& [key, ranks] : set_ranks) {
    std::sort(ranks.begin(), ranks.end());
    set_id[key] = uint32_t(res.sync_sets.size());
    res.sync_sets.push_back(std::move(ranks));
  }
  for (const auto& [pos, key] : in_set) res.coll_position_group[pos] = kSyncSetFlag | set_id.at(key);
}

}  // namespace gs::replay_detail
