#include "replay.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <tuple>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/matching.hpp"
#include "gs_pattern_dispatch.hpp"
#include "pattern_math.hpp"

namespace gs {
namespace {

// `index`: the send's position in its owner's records, so the receive side's match can be
// sent back instead of being computed again from the other end.
struct SendMsg { uint32_t src, dst, comm, tag, index, pad; int64_t enter, evt; uint64_t bytes; };
// when a send's receive was posted; `recv`: that receive's position in its owner's records
struct PostMsg { uint32_t index, recv; int64_t req_enter; };
// A collective record on its way to the instance's computing process; `index`: its position
// in the member's owner's records, so the results can be put back in that order.
struct CollMsg { CollRec rec; uint32_t index, pad; };
struct NbcMsg { NbcRec rec; uint32_t index, pad; };  // the same for a non-blocking collective
// A member's waiting time in a collective instance, sent back to the member's owner.
// `completion`: a non-blocking collective's completion delay (capped again at the owner).
// `delayer`, `delayer_index`: the member whose lateness caused the wait and its record
// position at its owner (root causes; kNone for completion delays and non-blocking ones).
struct ResMsg {
  uint16_t metric; uint8_t cls, completion; uint32_t cp, rank, index, delayer, delayer_index;
  int64_t start, value;
};


class Accumulator {
 public:
  Accumulator(const Defs& d, ReplayResult& r) : d_(d), r_(r) {}
  void add(uint16_t metric, bool grid, uint32_t cp, uint32_t rank, Thread thread, int64_t start, int64_t ticks) {
    if (ticks <= 0) return;
    double res = double(d_.resolution);
    SevKey key{metric, uint8_t(grid ? CLS_GRID : CLS_LOCAL), thread, cp, rank};
    // consecutive instances usually share their key: skip the hash lookup then
    // (references into an unordered_map stay valid when it grows)
    if (!last_ || !(key == last_key_)) { last_ = &r_.severities[key]; last_key_ = key; }
    *last_ += ticks / res;
    r_.waits->add({metric, key.cls, 0, cp, rank, 0, start / res, (start + ticks) / res});
  }

 private:
  const Defs& d_;
  ReplayResult& r_;
  SevKey last_key_{};
  double* last_ = nullptr;
};

// Position of matched send i in its owner's records.
uint32_t send_index(const std::vector<SendRec>&, size_t i) { return uint32_t(i); }
template <class SendList>
uint32_t send_index(const SendList& sends, size_t i) { return sends.index(i); }

// Receiver side: Late Sender, Wrong Order, transfer statistics, clock violations.
// `sends` holds the matched-to records (any type with src, dst, comm, tag, enter, evt).
// Returns each receive's partner in `sends` (kNone: unmatched).
// A receive-completing call that waited for a sender (a Late Sender candidate, Scalasca's
// LATE_SENDER_CANDIDATE): its rank, thread and enter. Late Receiver leaves such a multiple
// wait alone (sender_side).
struct CallKey {
  uint32_t rank, thread;
  int64_t enter;
  bool operator<(const CallKey& o) const { return std::tie(rank, thread, enter) < std::tie(o.rank, o.thread, o.enter); }
};

template <class SendList>
std::vector<uint32_t> receiver_side(const Defs& d, LocalData& data, const SendList& sends, ReplayResult& res,
                                    Accumulator& acc, std::vector<CallKey>& ls_calls) {
  std::vector<uint32_t> partner = match(data.recvs, sends, &res.counters.unmatched_sends, data.recv_order);

  const size_t M = d.metahosts.size();
  res.pairs.assign(M * M, PairRow{});
  for (size_t i = 0; i < M * M; ++i) {
    res.pairs[i].from = i / M; res.pairs[i].to = i % M; res.pairs[i].min_duration = -1.0;
    res.pairs[i].ready_min = -1.0;
  }
  // Late Sender instances wait in a window of the receiver's last 100 before they are
  // charged: a later receive may still turn one into Messages in Wrong Order.
  struct Instance { uint32_t dst, src, cp, recv, send; Thread thread; int64_t start, value, send_enter; };
  const bool rc = data.timeline.enabled;
  if (rc) res.recv_transfer.assign(data.recvs.size(), -1);
  std::deque<Instance> pending;
  int64_t pending_max = INT64_MIN;  // latest send start in the window: skips the scan when none qualifies
  auto recompute_max = [&]() {
    pending_max = INT64_MIN;
    for (auto& p : pending) pending_max = std::max(pending_max, p.send_enter);
  };
  auto charge = [&](const Instance& in, bool wrong_order) {
    const uint16_t metric = wrong_order ? M_WRONG_ORDER : M_LATE_SENDER;
    const bool grid = d.rank_metahost[in.src] != d.rank_metahost[in.dst];
    acc.add(metric, grid, in.cp, in.dst, in.thread, in.start, in.value);
    if (rc)
      res.rc_waits.push_back({data.timeline.recv_call[in.recv], metric, uint8_t(grid ? CLS_GRID : CLS_LOCAL), REF_SEND,
                              in.src, in.send, in.value});
  };
  auto flush = [&]() {
    for (auto& in : pending) charge(in, false);
    pending.clear();
    pending_max = INT64_MIN;
  };
  const size_t kWindow = 100;
  uint32_t current_dst = kNone;
  auto& recvs = data.recvs;
  for (size_t i = 0; i < recvs.size();) {
    // One receive-completing region instance (a Waitall may complete several receives).
    size_t j = i;
    while (j < recvs.size() && recvs[j].dst == recvs[i].dst && recvs[j].thread == recvs[i].thread &&
           recvs[j].instance == recvs[i].instance)
      ++j;
    if (recvs[i].dst != current_dst) { flush(); current_dst = recvs[i].dst; }
    int64_t best = 0;
    size_t best_k = j;
    for (size_t k = i; k < j; ++k) {
      const RecvRec& r = recvs[k];
      if (partner[k] == kNone) { res.counters.unmatched_receives++; continue; }
      const auto& s = sends[partner[k]];
      res.counters.messages++;
      if (r.evt < s.evt) res.counters.clock_violations++;
      // A receive gets what its send sent: counts that differ are a damaged event (or a
      // tool's mistake), counted; the statistics take the smaller, which both ends vouch for.
      if (r.bytes != s.bytes) res.counters.byte_mismatches++;
      const uint64_t bytes = std::min<uint64_t>(r.bytes, s.bytes);
      PairRow& pr = res.pairs[d.rank_metahost[r.src] * M + d.rank_metahost[r.dst]];
      pr.bytes += bytes;
      pr.messages++;
      int64_t dur = r.evt - s.evt;
      if (rc && d.rank_metahost[r.src] != d.rank_metahost[r.dst])
        res.recv_transfer[k] = std::max<int64_t>(0, r.evt - std::max(s.evt, r.enter));
      if (dur > 0) {
        double sec = double(dur) / d.resolution;
        pr.max_rate = std::max(pr.max_rate, bytes / sec);
        pr.min_duration = pr.min_duration < 0 ? sec : std::min(pr.min_duration, sec);
        // the receive was posted before the send and its completing call waited for at least
        // half the transfer: the time is the network's, not the receiver's lateness
        if (r.req_enter <= s.evt && 2 * (r.evt - r.enter) >= dur) {
          pr.ready_messages++;
          pr.ready_ticks += double(dur);
          if (r.bytes < kLargeMessageBytes) {  // the latency: small messages only
            pr.ready_min = pr.ready_min < 0 ? sec : std::min(pr.ready_min, sec);
          } else {  // keep the fastest (least disturbed) large transfer
            pr.large_messages++;
            if (pr.large_seconds <= 0 || r.bytes / sec > pr.large_bytes / pr.large_seconds) {
              pr.large_bytes = r.bytes;
              pr.large_seconds = sec;
            }
          }
        }
      }
      // Messages in wrong order: an earlier Late Sender waited for a message sent after this one.
      if (pending_max > s.enter) {
        for (auto it = pending.begin(); it != pending.end();) {
          if (it->send_enter > s.enter) { charge(*it, true); it = pending.erase(it); }
          else ++it;
        }
        recompute_max();
      }
      if (r.is_test) continue;
      int64_t ls = late_sender(s.enter, r.enter, r.leave);
      if (ls > best) { best = ls; best_k = k; }
    }
    if (best_k < j) {
      const RecvRec& r = recvs[best_k];
      ls_calls.push_back({r.dst, r.thread, r.enter});
      int64_t e = sends[partner[best_k]].enter;
      pending.push_back({r.dst, r.src, r.cp, uint32_t(best_k), send_index(sends, partner[best_k]), Thread(r.thread),
                         r.enter, best, e});
      pending_max = std::max(pending_max, e);
      if (pending.size() > kWindow) {
        bool was_max = pending.front().send_enter == pending_max;
        charge(pending.front(), false);
        pending.pop_front();
        if (was_max) recompute_max();
      }
    }
    i = j;
  }
  flush();
  return partner;
}

// Sender side: Late Receiver, as Scalasca's scout charges it (MPI.pattern,
// MPI_LATERECEIVER): by the region that completes the send. A blocking standard or
// synchronous send and a single wait (MPI_Wait, MPI_Waitany) are charged each send's
// waiting; a multiple wait (MPI_Waitall, MPI_Waitsome) only the largest over the sends it
// completes, and nothing at all when it also completed a receive that waited for its
// sender (`ls_calls`: the Late Sender candidates). MPI_Sendrecv, MPI_Test* and the
// buffered/ready kinds are not charged. `posted[k]`: when the receive matched to send k was
// posted (kUnposted: none matched).
constexpr int64_t kUnposted = INT64_MIN;
enum LrCall : uint8_t { LR_NONE = 0, LR_SINGLE = 1, LR_MULTI = 2 };
LrCall lr_call(const std::string& name) {
  if (name == "MPI_Send" || name == "MPI_Ssend" || name == "MPI_Wait" || name == "MPI_Waitany") return LR_SINGLE;
  if (name == "MPI_Waitall" || name == "MPI_Waitsome") return LR_MULTI;
  return LR_NONE;
}
// `post_recv[k]`: that receive's position at its owner (root causes).
void sender_side(const Defs& d, const LocalData& data, const std::vector<int64_t>& posted,
                 const std::vector<uint32_t>& post_recv, std::vector<CallKey> ls_calls, ReplayResult& res,
                 Accumulator& acc) {
  std::sort(ls_calls.begin(), ls_calls.end());
  std::vector<uint8_t> kind_of(data.tree.nodes.size(), 0xff);  // LrCall by completion call path, when looked up
  auto kind = [&](uint32_t cp) {
    if (kind_of[cp] == 0xff) kind_of[cp] = lr_call(d.regions[data.tree.nodes[cp].region].name);
    return LrCall(kind_of[cp]);
  };
  // the sends of each multiple wait: the one charged (kNone: none)
  std::map<CallKey, uint32_t> multi;
  std::vector<int64_t> lr(data.sends.size(), 0);
  for (size_t k = 0; k < data.sends.size(); ++k) {
    const SendRec& s = data.sends[k];
    if (posted[k] == kUnposted || !s.lr_ok || !s.complete) continue;
    const LrCall c = kind(s.cp_complete);
    if (c == LR_NONE) continue;
    lr[k] = late_receiver(posted[k], s.c_enter, s.c_leave);
    if (c != LR_MULTI) continue;
    const CallKey key{s.src, s.thread, s.c_enter};
    auto [it, fresh] = multi.emplace(key, kNone);
    if (fresh && std::binary_search(ls_calls.begin(), ls_calls.end(), key)) it->second = kNone - 1;  // a candidate
    if (it->second == kNone - 1) { lr[k] = 0; continue; }
    if (lr[k] > 0 && (it->second == kNone || lr[k] > lr[it->second])) {
      if (it->second != kNone) lr[it->second] = 0;
      it->second = uint32_t(k);
    } else {
      lr[k] = 0;
    }
  }
  for (size_t k = 0; k < data.sends.size(); ++k) {
    if (lr[k] <= 0) continue;
    const SendRec& s = data.sends[k];
    const bool grid = d.rank_metahost[s.src] != d.rank_metahost[s.dst];
    acc.add(M_LATE_RECEIVER, grid, s.cp_complete, s.src, s.thread, s.c_enter, lr[k]);
    if (data.timeline.enabled && data.timeline.send_done_call[k] != kNone)
      res.rc_waits.push_back({data.timeline.send_done_call[k], M_LATE_RECEIVER, uint8_t(grid ? CLS_GRID : CLS_LOCAL),
                              REF_RECV_POST, s.dst, post_recv[k], lr[k]});
  }
}

// The sends a receivers' owner matches against: the sends of its own ranks to its own
// ranks, read in place, then the records the other processes sent (a channel's sends are
// all in one of the two parts, in posting order).
class SendsSeen {
 public:
  struct View { uint32_t src, dst, comm, tag; int64_t enter, evt; uint64_t bytes; };
  SendsSeen(const std::vector<SendRec>& own, std::vector<uint32_t> own_index, Records<SendMsg> remote)
      : own_(own), own_index_(std::move(own_index)), remote_(std::move(remote)) {}
  size_t size() const { return own_index_.size() + remote_.size(); }
  View operator[](size_t i) const {
    if (is_own(i)) {
      const SendRec& s = own_[own_index_[i]];
      return {s.src, s.dst, s.comm, s.tag, s.enter, s.evt, s.bytes};
    }
    const SendMsg& m = remote_[i - own_index_.size()];
    return {m.src, m.dst, m.comm, m.tag, m.enter, m.evt, m.bytes};
  }
  bool is_own(size_t i) const { return i < own_index_.size(); }
  // position of send i in its owner's records
  uint32_t index(size_t i) const { return is_own(i) ? own_index_[i] : remote_[i - own_index_.size()].index; }

 private:
  const std::vector<SendRec>& own_;
  std::vector<uint32_t> own_index_;
  Records<SendMsg> remote_;
};

void point_to_point(const Defs& d, LocalData& data, Transport& t, ReplayResult& res, Accumulator& acc,
                    WaitWriter& waits) {
  const int P = t.size();
  const uint32_t N = d.ranks();
  std::vector<int64_t> posted(data.sends.size(), kUnposted);
  std::vector<uint32_t> post_recv(data.sends.size(), kNone);
  std::vector<CallKey> ls_calls;
  if (P == 1) {  // everything is local: match against our own records, no copies
    std::vector<uint32_t> partner = receiver_side(d, data, data.sends, res, acc, ls_calls);
    waits.end_phase(PHASE_RECEIVER);
    for (size_t k = 0; k < partner.size(); ++k)
      if (partner[k] != kNone) {
        posted[partner[k]] = data.recvs[k].req_enter;
        post_recv[partner[k]] = uint32_t(k);
      }
    sender_side(d, data, posted, post_recv, std::move(ls_calls), res, acc);
    waits.end_phase(PHASE_LATE_RECEIVER);
    return;
  }
  // Senders tell the receivers' owners when each send started ...
  // (buffers sized exactly first: growing them would copy and touch fresh pages twice)
  const uint32_t me = t.rank();
  std::vector<Bytes> out(P);
  std::vector<size_t> count(P, 0);
  for (const SendRec& s : data.sends) count[owner_of(s.dst, N, P)]++;
  std::vector<uint32_t> own;
  own.reserve(count[me]);
  for (int p = 0; p < P; ++p)
    if (uint32_t(p) != me) out[p].reserve(count[p] * sizeof(SendMsg));
  for (size_t k = 0; k < data.sends.size(); ++k) {
    const SendRec& s = data.sends[k];
    uint32_t p = owner_of(s.dst, N, P);
    if (p == me) own.push_back(k);
    else append(out[p], SendMsg{s.src, s.dst, s.comm, s.tag, uint32_t(k), 0, s.enter, s.evt, s.bytes});
  }
  SendsSeen sends(data.sends, std::move(own), unpack<SendMsg>(t.exchange(out)));
  std::vector<uint32_t> partner = receiver_side(d, data, sends, res, acc, ls_calls);
  waits.end_phase(PHASE_RECEIVER);
  // ... and the receivers' owners tell the senders' owners when the matched receive was posted.
  for (size_t k = 0; k < partner.size(); ++k) {
    if (partner[k] == kNone) continue;
    if (sends.is_own(partner[k])) {
      posted[sends.index(partner[k])] = data.recvs[k].req_enter;
      post_recv[sends.index(partner[k])] = uint32_t(k);
    } else {
      append(out[owner_of(data.recvs[k].src, N, P)], PostMsg{sends.index(partner[k]), uint32_t(k), data.recvs[k].req_enter});
    }
  }
  for (const PostMsg& m : unpack<PostMsg>(t.exchange(out))) {
    posted[m.index] = m.req_enter;
    post_recv[m.index] = m.recv;
  }
  sender_side(d, data, posted, post_recv, std::move(ls_calls), res, acc);
  waits.end_phase(PHASE_LATE_RECEIVER);
}

// Sorts the gathered records of collective instances (blocking or non-blocking) by
// communicator, instance and member position, and calls fn(i, j, comm) for each complete
// instance [i, j); instances that lack members or mix operations are counted incomplete.
template <class Msgs, class Fn>
void for_each_complete_instance(const Defs& d, Msgs& recs, ReplayResult& res, Fn fn) {
  std::sort(recs.begin(), recs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.rec.comm, a.rec.seq, a.rec.pos) < std::tie(b.rec.comm, b.rec.seq, b.rec.pos);
  });
  for (size_t i = 0; i < recs.size();) {
    size_t j = i;
    while (j < recs.size() && recs[j].rec.comm == recs[i].rec.comm && recs[j].rec.seq == recs[i].rec.seq) ++j;
    const CommDef& comm = d.comms[recs[i].rec.comm];
    bool complete = j - i == comm.members.size();
    for (size_t k = i; complete && k < j; ++k) complete = recs[k].rec.cls == recs[i].rec.cls && recs[k].rec.pos == k - i;
    if (complete) {
      res.counters.collectives++;
      fn(i, j, comm);
    } else {
      res.counters.incomplete_collectives++;
    }
    i = j;
  }
}

// A result that is no wait state: a member's part in an instance's synchronisation, for the
// root-cause pass (value: its completion time; delayer: the communicator when it
// synchronised with every member, else kNone).
constexpr uint16_t kRcSync = 0xffff;     // a member's synchronisation point (root causes)
constexpr uint16_t kRcSyncSet = 0xfffe;  // one rank of a synchronising set (start: the set's key)
constexpr uint32_t kInSyncSet = UINT32_MAX - 2;  // kRcSync's group: the set keyed by its start

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
    case CollClass::Barrier:
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

// At the owner of the communicator's first rank: the waiting times of every complete
// instance, addressed to each member's owner. RECS is freed on return.
std::vector<Bytes> collective_results(const Defs& d, Records<CollMsg> recs, int P, ReplayResult& res, bool rc) {
  const uint32_t N = d.ranks();
  // at most two results (waiting, completion) per record: reserved address space, the
  // pages are touched only as results are written
  std::vector<Bytes> out(P);
  std::vector<size_t> count(P, 0);
  for (const CollMsg& m : recs) count[owner_of(m.rec.rank, N, P)] += rc ? 3 : 2;
  for (int p = 0; p < P; ++p) out[p].reserve(count[p] * sizeof(ResMsg));
  std::vector<CollMember> members;
  for_each_complete_instance(d, recs, res, [&](size_t i, size_t j, const CommDef& comm) {
    members.clear();
    int64_t latest_begin = INT64_MIN;
    for (size_t k = i; k < j; ++k) {
      const CollRec& c = recs[k].rec;
      members.push_back({c.begin, c.end, c.sent, c.received, c.rank == c.root});
      latest_begin = std::max(latest_begin, c.begin);
    }
    // `delayer`: the member whose lateness the waits are charged to (-1: none, docs/root-causes.md)
    auto send = [&](uint16_t metric, const std::vector<int64_t>& w, bool completion, int delayer) {
      const uint32_t delayer_rank = delayer < 0 ? kNone : recs[i + delayer].rec.rank;
      const uint32_t delayer_index = delayer < 0 ? kNone : recs[i + delayer].index;
      for (size_t k = 0; k < w.size(); ++k) {
        if (w[k] <= 0) continue;
        const CollRec& c = recs[i + k].rec;
        int64_t start = completion ? c.end - w[k] : c.begin;
        append(out[owner_of(c.rank, N, P)], ResMsg{metric, uint8_t(comm.grid ? CLS_GRID : CLS_LOCAL), 0, c.cp, c.rank,
                                                   recs[i + k].index, delayer_rank, delayer_index, start, w[k]});
      }
    };
    const CollClass cls = CollClass(recs[i].rec.cls);
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
      const int64_t key = int64_t(uint64_t(recs[i].rec.rank) << 32 | recs[i].index);
      std::vector<uint8_t> set_sent(in_set ? P : 0, 0);
      for (size_t k = 0; k < sy.sync.size(); ++k) {
        if (!sy.sync[k]) continue;
        const CollRec& c = recs[i + k].rec;
        const uint32_t owner = owner_of(c.rank, N, P);
        append(out[owner], ResMsg{kRcSync, 0, 0, c.cp, c.rank, recs[i + k].index,
                                  sy.group ? c.comm : in_set ? kInSyncSet : kNone, kNone, in_set ? key : c.begin,
                                  sy.completion[k]});
        if (!in_set || set_sent[owner]) continue;
        set_sent[owner] = 1;
        for (size_t j = 0; j < sy.sync.size(); ++j)
          if (sy.sync[j])
            append(out[owner], ResMsg{kRcSyncSet, 0, 0, c.cp, c.rank, recs[i + k].index, recs[i + j].rec.rank, kNone,
                                      key, 0});
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
  return out;
}

// At the owner of the communicator's first rank: the waiting times of every complete
// non-blocking instance (docs/patterns.md), appended to `out` for each member's owner:
// per member its wait for a late join, then its completion delay (Barrier, N-to-N only).
// Members that completed it in an MPI_Test* wait for nobody (their join and their leave
// still count for the others).
void nonblocking_results(const Defs& d, Records<NbcMsg> recs, int P, ReplayResult& res, std::vector<Bytes>& out) {
  const uint32_t N = d.ranks();
  std::vector<NbcMember> members;
  for_each_complete_instance(d, recs, res, [&](size_t i, size_t j, const CommDef& comm) {
    members.clear();
    for (size_t k = i; k < j; ++k) {
      const NbcRec& c = recs[k].rec;
      members.push_back({c.join, c.enter, c.leave, c.sent, c.received, c.rank == c.root});
    }
    // Each pattern of the class (patterns/patterns.toml): its waits by member and its delayer
    // (root causes, our extension; docs/root-causes.md): the member whose initiating MPI_I*
    // call the waiting was for, the latest join (the root of a 1-to-N instance, the latest
    // sending member of an N-to-1 one).
    struct Measured { const CollPattern* p; std::vector<int64_t> w; uint32_t delayer_rank, delayer_index; };
    std::vector<Measured> measured;
    const CollClass cls_of_instance = CollClass(recs[i].rec.cls);
    for (const CollPattern& p : kCollPatterns) {
      if (p.cls != cls_of_instance || p.nonblocking_formula == CollFormula::None) continue;
      const int delayer = nonblocking_delayer(p.nonblocking_delayer, members);
      measured.push_back({&p, nonblocking_formula(p.nonblocking_formula, members),
                          delayer < 0 ? kNone : recs[i + delayer].rec.rank, delayer < 0 ? kNone : recs[i + delayer].index});
    }
    const uint8_t cls = comm.grid ? CLS_GRID : CLS_LOCAL;
    for (size_t k = 0; k < members.size(); ++k) {
      const NbcRec& c = recs[i + k].rec;
      if (c.is_test) continue;
      Bytes& to = out[owner_of(c.rank, N, P)];
      for (const Measured& m : measured) {  // per member in declaration order: waiting before completion
        const int64_t v = k < m.w.size() ? m.w[k] : 0;
        if (v <= 0) continue;
        append(to, ResMsg{m.p->metric, cls, uint8_t(m.p->completion), c.cp, c.rank, recs[i + k].index, m.delayer_rank,
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
      o.thread[m] = data.colls[b].thread;
      o.colls[b] = m++;
    }
  };
  for (size_t k = 0; k < data.nbcs.size(); ++k) {
    blocking_until(data.nbcs[k].after_colls);
    o.call[m] = data.nbcs[k].call;
    o.duration[m] = data.nbcs[k].leave - data.nbcs[k].enter;
    o.thread[m] = data.nbcs[k].thread;
    o.nbcs[k] = m++;
  }
  blocking_until(uint32_t(data.colls.size()));
  return o;
}

// Collective records go to the owner of the communicator's first rank, which computes the
// instances' waiting times and sends them back to the members' owners. data.colls and
// data.nbcs are freed once sent (the memory serves the steps after it).
void collectives(const Defs& d, LocalData& data, Transport& t, ReplayResult& res, Accumulator& acc) {
  const int P = t.size();
  const uint32_t N = d.ranks();
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
  std::vector<Bytes> out(P);
  std::vector<size_t> count(P, 0);  // sized exactly first, as in point_to_point
  for (const CollRec& c : data.colls) count[owner_of(d.comms[c.comm].members[0], N, P)]++;
  for (int p = 0; p < P; ++p) out[p].reserve(count[p] * sizeof(CollMsg));
  for (size_t k = 0; k < data.colls.size(); ++k) {
    const CollRec& c = data.colls[k];
    append(out[owner_of(d.comms[c.comm].members[0], N, P)], CollMsg{c, order_of.colls[k], 0});
  }
  std::vector<CollRec>().swap(data.colls);
  Records<CollMsg> coll_recs = unpack<CollMsg>(t.exchange(out));
  for (int p = 0; p < P; ++p) out[p].clear();
  for (size_t k = 0; k < data.nbcs.size(); ++k) {
    const NbcRec& c = data.nbcs[k];
    append(out[owner_of(d.comms[c.comm].members[0], N, P)], NbcMsg{c, order_of.nbcs[k], 0});
  }
  std::vector<NbcRec>().swap(data.nbcs);
  Records<NbcMsg> nbc_recs = unpack<NbcMsg>(t.exchange(out));
  out = collective_results(d, std::move(coll_recs), P, res, rc);
  nonblocking_results(d, std::move(nbc_recs), P, res, out);
  // The results arrive grouped by computing process; they are charged (and written) in
  // the order of the members' own records instead, which no -j changes: rank, then event
  // order, the results of one record in the order computed (waiting before completion).
  // A stable counting sort by record index: O(n), 4 bytes per result and record.
  Records<ResMsg> results = unpack<ResMsg>(t.exchange(out));
  std::vector<uint32_t> slot(owned + 1, 0);
  for (const ResMsg& r : results) {
    if (r.index >= owned) throw std::logic_error("collective result for an unknown record");
    slot[r.index + 1]++;
  }
  for (size_t k = 1; k < slot.size(); ++k) slot[k] += slot[k - 1];
  std::vector<uint32_t> order(results.size());
  for (size_t i = 0; i < results.size(); ++i) order[slot[results[i].index]++] = uint32_t(i);
  // A Wait*/Test* that completes several non-blocking collectives waits once: only its
  // longest wait for a join counts (the first of equal ones), as for Late Sender in a
  // Waitall, then its longest completion delay (the first of equal ones), capped by the
  // call's duration minus that wait: the two never cover the same time of the call.
  std::vector<std::pair<uint32_t, int64_t>> in_set;     // (record position, key of its synchronising set)
  std::map<int64_t, std::vector<uint32_t>> set_ranks;  // key -> the set's ranks
  for (size_t k = 0; k < order.size();) {
    const ResMsg& first = results[order[k]];
    if (first.metric == kRcSync) {
      res.coll_position_sync[first.index] = first.value;
      res.coll_position_group[first.index] = first.delayer;
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
      acc.add(first.metric, first.cls == CLS_GRID, first.cp, first.rank, order_of.thread[first.index], first.start,
              first.value);
      if (rc && first.delayer != kNone && first.value > 0)
        res.rc_waits.push_back({res.coll_position_call[first.index], first.metric, first.cls, REF_COLL, first.delayer,
                                first.delayer_index, first.value});
      ++k;
      continue;
    }
    const ResMsg* wait = nullptr;
    const ResMsg* done = nullptr;
    size_t next = k;
    for (; next < order.size(); ++next) {
      const ResMsg& r = results[order[next]];
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
  std::map<int64_t, uint32_t> set_id;
  for (auto& [key, ranks] : set_ranks) {
    std::sort(ranks.begin(), ranks.end());
    set_id[key] = uint32_t(res.sync_sets.size());
    res.sync_sets.push_back(std::move(ranks));
  }
  for (const auto& [pos, key] : in_set) res.coll_position_group[pos] = kSyncSetFlag | set_id.at(key);
}


}  // namespace

void write_file(const std::string& path, const void* data, size_t bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path, "cannot write engine output");
  if (bytes && std::fwrite(data, 1, bytes, f) != bytes) { std::fclose(f); throw Error(path, "write failed (disk full?)"); }
  if (std::fclose(f) != 0) throw Error(path, "write failed (disk full?)");
}

uint32_t owner_of(uint32_t rank, uint32_t ranks, int processes) {
  return uint32_t(uint64_t(rank) * uint64_t(processes) / ranks);
}

// Column files, in the order flush() writes them; names mirrored in
// gridscope/analysis/engine_files.py (WAIT_COLUMNS).
static const char* const kWaitColumns[6] = {"start", "end", "cp", "rank", "metric", "cls"};

WaitWriter::WaitWriter(const std::string& prefix) : prefix_(prefix) {
  for (int c = 0; c < 6; ++c) {
    std::string path = prefix + "." + kWaitColumns[c] + ".bin";
    files_[c] = std::fopen(path.c_str(), "wb");
    if (!files_[c]) throw Error(path, "cannot write engine output");
  }
  buf_.reserve(kChunk);
}

WaitWriter::~WaitWriter() {
  for (FILE* f : files_)
    if (f) std::fclose(f);
}

namespace {
template <class T, class Get>
bool write_column(FILE* f, const std::vector<WaitRow>& rows, std::vector<char>& tmp, Get get) {
  tmp.resize(rows.size() * sizeof(T));
  T* p = reinterpret_cast<T*>(tmp.data());
  for (const auto& r : rows) *p++ = T(get(r));
  return std::fwrite(tmp.data(), 1, tmp.size(), f) == tmp.size();
}
}  // namespace

void WaitWriter::flush() {
  if (!files_[0]) {
    kept.insert(kept.end(), buf_.begin(), buf_.end());
  } else if (!buf_.empty()) {
    bool ok = write_column<double>(files_[0], buf_, col_, [](const WaitRow& r) { return r.start; });
    ok &= write_column<double>(files_[1], buf_, col_, [](const WaitRow& r) { return r.end; });
    ok &= write_column<uint32_t>(files_[2], buf_, col_, [](const WaitRow& r) { return r.cp; });
    ok &= write_column<uint32_t>(files_[3], buf_, col_, [](const WaitRow& r) { return r.rank; });
    ok &= write_column<uint16_t>(files_[4], buf_, col_, [](const WaitRow& r) { return r.metric; });
    ok &= write_column<uint8_t>(files_[5], buf_, col_, [](const WaitRow& r) { return r.cls; });
    if (!ok) failed_ = true;
  }
  buf_.clear();
}

void WaitWriter::end_phase(WaitPhase phase) {
  if (phase != phases_ended_) throw std::logic_error("wait-state phases out of order");
  uint64_t before = 0;
  for (int p = 0; p < phase; ++p) before += phase_rows_[p];
  phase_rows_[phase] = count_ - before;
  ++phases_ended_;
}

void WaitWriter::close() {
  flush();
  bool bad = failed_;
  for (FILE*& f : files_)
    if (f) {
      bad |= std::fclose(f) != 0;
      f = nullptr;
    }
  if (bad) throw Error(prefix_ + ".*.bin", "write failed (disk full?)");
}

// The canonical wait-state order needs each kind of record grouped by rank in ascending
// order (the reader reads the owned locations one after the other, in rank order).
void check_rank_order(const LocalData& data) {
  bool ok = std::is_sorted(data.sends.begin(), data.sends.end(),
                           [](const SendRec& a, const SendRec& b) { return a.src < b.src; }) &&
            std::is_sorted(data.recvs.begin(), data.recvs.end(),
                           [](const RecvRec& a, const RecvRec& b) { return a.dst < b.dst; }) &&
            std::is_sorted(data.colls.begin(), data.colls.end(),
                           [](const CollRec& a, const CollRec& b) { return a.rank < b.rank; }) &&
            std::is_sorted(data.nbcs.begin(), data.nbcs.end(),
                           [](const NbcRec& a, const NbcRec& b) { return a.rank < b.rank; });
  if (!ok) throw std::logic_error("records are not grouped by rank in ascending order");
}

ReplayResult replay(const Defs& defs, LocalData& data, Transport& t, WaitWriter& waits) {
  check_rank_order(data);
  ReplayResult res;
  res.waits = &waits;
  Accumulator acc(defs, res);
  point_to_point(defs, data, t, res, acc, waits);
  collectives(defs, data, t, res, acc);
  waits.end_phase(PHASE_COLLECTIVE);
  res.counters.events = data.events;
  res.counters.mpi_events = data.mpi_events;
  res.counters.clock_offset_locations = data.clock_offsets_applied;
  return res;
}

void write_engine_files(const std::string& dir, const Defs& defs, const LocalData& data, const ReplayResult& res,
                        int process) {
  const std::string suffix = "." + std::to_string(process);
  std::string cps;
  cps.reserve(data.tree.nodes.size() * 24);
  for (size_t i = 0; i < data.tree.nodes.size(); ++i) {
    const auto& n = data.tree.nodes[i];
    std::string name = defs.regions[n.region].name;
    for (char& c : name)
      if (c == '\t' || c == '\n' || c == '/') c = ' ';
    cps += std::to_string(i) + "\t" + (n.parent == kNone ? std::string("-1") : std::to_string(n.parent)) + "\t" + name +
           "\t" + (defs.regions[n.region].is_mpi ? "1" : "0") + "\n";
  }
  write_file(dir + "/callpaths" + suffix + ".tsv", cps.data(), cps.size());
  std::vector<SevRow> rows;
  rows.reserve(4 * data.cp_stats.size() + res.severities.size());
  for (const CallPathStats& c : data.cp_stats) {
    const uint8_t th = uint8_t(c.thread);
    rows.push_back({M_TIME, CLS_NONE, th, c.cp, c.rank, 0, double(c.time) / defs.resolution});
    rows.push_back({M_VISITS, CLS_NONE, th, c.cp, c.rank, 0, double(c.visits)});
    if (c.bytes_sent) rows.push_back({M_BYTES_SENT, CLS_NONE, th, c.cp, c.rank, 0, double(c.bytes_sent)});
    if (c.bytes_received) rows.push_back({M_BYTES_RECEIVED, CLS_NONE, th, c.cp, c.rank, 0, double(c.bytes_received)});
    if (c.bytes_put) rows.push_back({M_BYTES_PUT, CLS_NONE, th, c.cp, c.rank, 0, double(c.bytes_put)});
    if (c.bytes_get) rows.push_back({M_BYTES_GET, CLS_NONE, th, c.cp, c.rank, 0, double(c.bytes_get)});
    if (c.io_bytes_read) rows.push_back({M_IO_BYTES_READ, CLS_NONE, th, c.cp, c.rank, 0, double(c.io_bytes_read)});
    if (c.io_bytes_written)
      rows.push_back({M_IO_BYTES_WRITTEN, CLS_NONE, th, c.cp, c.rank, 0, double(c.io_bytes_written)});
  }
  // in key order, not the hash table's (which depends on how many keys this process has)
  size_t first_wait = rows.size();
  for (auto& [k, v] : res.severities) rows.push_back({k.metric, k.cls, k.thread, k.cp, k.rank, 0, v});
  std::sort(rows.begin() + first_wait, rows.end(), [](const SevRow& a, const SevRow& b) {
    return std::tie(a.metric, a.cls, a.cp, a.rank, a.thread) < std::tie(b.metric, b.cls, b.cp, b.rank, b.thread);
  });
  write_file(dir + "/severities" + suffix + ".bin", rows.data(), rows.size() * sizeof(SevRow));
  write_file(dir + "/pairs" + suffix + ".bin", res.pairs.data(), res.pairs.size() * sizeof(PairRow));
}

}  // namespace gs
