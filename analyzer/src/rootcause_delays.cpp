// Root causes, step 1 and the wait classes (docs/root-causes.md): synchronisation
// intervals as time maps, the delay of each wait state at its delayer's owner, short-term
// costs, and each wait state's class (direct/indirect, propagating/terminal).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_set>

#include "gridscope/trace/error.hpp"
#include "rootcause_impl.hpp"

namespace gs::rootcause_detail {

// Rank's synchronisation interval before call b with respect to `other` into `map`; the
// waiting calls inside go to `waits` (docs/root-causes.md). It starts inside the latest
// call that synchronised with `other`: that call's completion time counts.
Analysis::IntervalStart Analysis::interval_start(uint32_t b, uint32_t other) {
  const uint32_t rank = rank_of(b);
  uint32_t start = tl_.rank_first[slot_of(rank)];
  uint32_t from = kNone;  // the call that starts it
  int64_t completion = 0;
  auto peer = peer_calls_.find(uint64_t(rank) << 32 | other);  // the latest call before b that synchronised with it
  if (peer != peer_calls_.end()) {
    PeerCalls& pc = peer->second;
    const size_t at = lower_bound_near(pc.sync, b, pc.hint, [](const PeerSync& x) { return x.call; });
    if (at > 0) {
      from = pc.sync[at - 1].call;
      // several synchronisations of one call with the same rank: the largest completion (a
      // Late Receiver's may be negative under scout's rules: waiting_completion)
      completion = INT64_MIN;
      for (size_t j = at; j > 0 && pc.sync[j - 1].call == from; --j) completion = std::max(completion, pc.sync[j - 1].completion);
      start = from + 1;
    }
  }
  const std::vector<GroupCall>& groups = group_calls_[slot_of(rank)];  // or a group call holding it, later
  auto it = groups.begin() + lower_bound_near(groups, b, group_hint_[slot_of(rank)], [](const GroupCall& g) { return g.call; });
  while (it != groups.begin() && (it - 1)->call >= start) {
    const GroupCall& g = *--it;
    if (group_holds(g.comm, other)) { start = g.call + 1; from = g.call; completion = g.completion; break; }
  }
  return {start, from, completion};
}

void Analysis::interval_fill(uint32_t b, const IntervalStart& s, TimeMap& map,
                             std::vector<std::pair<uint32_t, int64_t>>* waits) const {
  const auto& calls = tl_.calls;
  const uint32_t start = s.start, from = s.from;
  const bool has_wan = !aux_wan_.empty();
  if (from != kNone) map.add(calls[from].cp, false, s.completion);  // (TimeMap ignores 0)
  for (uint32_t c = start;; ++c) {
    for (uint32_t e = tl_.seg_begin(c), end = tl_.seg_end(c); e < end; ++e) map.add(tl_.seg[e].cp, false, tl_.seg[e].ticks);
    if (c == b) break;
    const SyncCall& x = calls[c];
    const uint32_t a = aux_of_[c];
    const int64_t wait = a == kNone ? 0 : aux_wait_[a], wan = a == kNone || !has_wan ? 0 : aux_wan_[a];
    map.add(x.cp, false, std::max<int64_t>(0, x.leave - x.enter - wait - wan));
    map.add(x.cp, true, wan);
    if (waits && wait > 0) waits->push_back({c, wait});
  }
}

// ---- 1. delays at the delayers' owners
void Analysis::delays() {
  const auto& waits = fwd_.rc_waits;
  const uint32_t N = d_.ranks();
  std::vector<Bytes> out(P_);
  // our own wait states and those sent here whose delayer call is known, in one order:
  // (waiting call, index at the waiting owner). One call's wait states all come from its
  // owner (here, or in that process's order): the order of their ordinals among the rank's.
  constexpr uint32_t kRemote = 0x80000000u;
  // idx: rc_waits index, or kRemote | request; sp: the delayer's call (found here, where the
  // waits are read in order, not in the loop below, where it was a cache miss each)
  struct Pending { uint64_t gid; uint32_t idx, sp; };
  auto delayer_of = [&](uint8_t ref, uint32_t index, uint32_t p) {  // if it is one of rank p's calls
    const uint32_t sp = delayer_call(ref, index);
    return sp != kNone && call_of(sp, p) ? sp : kNone;
  };
  std::vector<Pending> reqs;
  reqs.reserve(waits.size());  // (every buffer of the pass sized once where it can be: a regrowth's
                               // copy leaves a hole the heap keeps)
  for (size_t i = 0; i < waits.size(); ++i) {
    const RcWait& w = waits[i];
    const uint32_t q = rank_of(w.call);
    if (w.delayer == kNone || w.delayer == q) continue;
    const uint32_t owner = owner_of(w.delayer, N, P_);
    if (owner == uint32_t(me_)) {
      if (const uint32_t sp = delayer_of(w.ref, w.delayer_index, w.delayer); sp != kNone)
        reqs.push_back({gid_of(w.call), uint32_t(i), sp});
      continue;
    }
    Request rq{gid_of(w.call), q, w.delayer, w.delayer_index, 0, uint32_t(i), d_.rank_metahost[q], 0,
               w.metric, w.cls, w.ref, w.ticks, double(w.ticks) / double(wait_of(w.call))};
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
    size_t n_remote = 0, n_keys = 0;
    for (Cursor c(in); !c.done(); ++n_remote) {
      const Request rq = c.get<Request>();
      n_keys += rq.keys;
      for (uint32_t k = 0; k < rq.keys; ++k) c.get<KeyTicks>();
    }
    reqs.reserve(reqs.size() + n_remote);
    remote.reserve(n_remote);
    keys_at.reserve(n_remote);
    keys.reserve(n_keys);
    for (Cursor c(in); !c.done();) {
      Request rq = c.get<Request>();
      if (const uint32_t sp = delayer_of(rq.ref, rq.index, rq.p); sp != kNone)
        reqs.push_back({rq.gid, kRemote | uint32_t(remote.size()), sp});
      remote.push_back(rq);
      keys_at.push_back(keys.size());
      for (uint32_t k = 0; k < rq.keys; ++k) keys.push_back(c.get<KeyTicks>());
    }
  }
  // per delayer call: its requests left (kMany: too many to count down) and whether `shared`
  // holds its interval
  constexpr uint8_t kStored = 0x80, kMany = 0x7f;
  std::vector<uint8_t> left(tl_.calls.size(), 0);
  for (const Pending& pr : reqs)
    if (left[pr.sp] < kMany) ++left[pr.sp];
  report_memory("requests");
  {  // (a few runs where the waits are listed per kind in call order, one more per process)
    auto less = [](const Pending& a, const Pending& b) { return std::tie(a.gid, a.idx) < std::tie(b.gid, b.idx); };
    if (!merge_runs(reqs.begin(), reqs.end(), less, 16))
      sort_by_gid(reqs.data(), reqs.size(), gbase_[N], [](const Pending& p) { return p.gid; }, less);
  }
  // the delayer calls with several requests, ascending (the scan is in call order), and
  // their shared intervals at the same positions: a search in a small array, not a hash map
  std::vector<uint32_t> multi;
  for (uint32_t c = 0; c < left.size(); ++c)
    if (left[c] > 1) multi.push_back(c);
  std::vector<SharedInterval> shared(multi.size());
  // (searched from where the rank's last search ended: its requests come in call order
  // per waiting rank, a few entries apart)
  std::vector<uint32_t> multi_hint(mine_.size(), 0);
  // a request's counter and shared interval lie at random delayer calls, a cache miss each:
  // located and fetched kAhead requests before it is handled
  constexpr size_t kAhead = 16;
  struct Ahead { uint32_t slot, at; };  // its delayer's rank slot and the call's entry in multi
  Ahead ahead[kAhead];
  auto look_ahead = [&](size_t a) {
    const uint32_t sp = reqs[a].sp;
    __builtin_prefetch(&left[sp]);
    const uint32_t slot = uint32_t(slot_of(rank_of(sp)));
    const size_t at = lower_bound_near(multi, sp, multi_hint[slot], [](uint32_t c) { return c; });
    if (at < multi.size() && multi[at] == sp) {
      __builtin_prefetch(&shared[at]);
      __builtin_prefetch(reinterpret_cast<const char*>(&shared[at] + 1) - 1);
    }
    ahead[a % kAhead] = {slot, uint32_t(at)};
  };
  for (size_t a = 0; a < std::min(kAhead, reqs.size()); ++a) look_ahead(a);

  replies_.assign(waits.size(), Reply{kNone, kNone, 0.0});
  std::vector<Bytes> back(P_), graph(P_);
  std::vector<std::pair<uint32_t, int64_t>> filled_wl;  // a delayer interval's wait list, when filled here
  prop_max_.assign(aux_wait_.size(), 0.0);
  wrecs_.reserve(reqs.size());
  dents_.reserve(2 * reqs.size());  // (a guess: only the pages written count)
  graph[0].reserve(reqs.size() * (sizeof(NodeMsg) + 2 * sizeof(ListEntry)));  // (a guess too)
  for (size_t k = 0; k < reqs.size(); ++k) {
    const Ahead here = ahead[k % kAhead];
    if (k + kAhead < reqs.size()) look_ahead(k + kAhead);
    const Pending& pr = reqs[k];
    const bool is_remote = pr.idx & kRemote;
    Request rq;
    if (is_remote) {
      rq = remote[pr.idx & ~kRemote];
    } else {
      const RcWait& w = waits[pr.idx];
      const uint32_t q = rank_of(w.call);
      rq = Request{pr.gid, q, w.delayer, w.delayer_index, 0, pr.idx, d_.rank_metahost[q], 0,
                   w.metric, w.cls, w.ref, w.ticks, double(w.ticks) / double(wait_of(w.call))};
    }
    const uint32_t sp = pr.sp;
    ++with_delayer_;
    uint8_t& n = left[sp];
    const size_t sp_slot = here.slot;
    SharedInterval* sh = n & kStored ? &shared[here.at] : nullptr;
    // the rank's group-call search starts where this call's first one ended: its requests
    // lie far apart (by waiting call), the search galloped over cold entries
    if (sh) group_hint_[sp_slot] = sh->group_at;
    const IntervalStart st = interval_start(sp, rq.q);
    int64_t sp_enter;
    // the delayer's map and wait list: the shared ones read in place, not copied
    const std::vector<TimeMap::Entry>* sh_map = nullptr;
    const std::vector<std::pair<uint32_t, int64_t>>* wlp = &filled_wl;
    if (sh && sh->start == st) {
      sh_map = &sh->map;
      wlp = &sh->waits;
      sp_enter = sh->enter;
    } else {
      tp_.clear();
      filled_wl.clear();
      interval_fill(sp, st, tp_, &filled_wl);
      sp_enter = tl_.calls[sp].enter;
      if ((n & kMany) > 1 && !(n & kStored)) {
        SharedInterval& s = shared[here.at];
        s.start = st;
        s.enter = sp_enter;
        s.group_at = group_hint_[sp_slot];
        tp_.save(s.map);
        s.waits = filled_wl;
        n |= kStored;
        sh = &s;
      }
    }
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
    auto dent = [&](uint32_t cp, int64_t plain, int64_t wan) {
      if (int64_t dv = plain - tq_.at(cp, false); dv > 0) { dents_.push_back({cp, 0, dv}); dsum += double(dv); }
      if (int64_t dv = wan - tq_.at(cp, true); dv > 0) { dents_.push_back({cp, 1, dv}); dsum += double(dv); }
    };
    if (sh_map)
      for (const TimeMap::Entry& e : *sh_map) dent(e.cp, e.plain, e.wan);
    else
      for (uint32_t cp : tp_.touched()) dent(cp, tp_.at(cp, false), tp_.at(cp, true));
    const auto& wl = *wlp;
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
      nm.gid = rq.gid; nm.w_local = rq.w_local; nm.list = uint32_t(wl.size());
      nm.group = uint8_t(g); nm.cls = rq.cls; nm.D = D; nm.scale = scale; nm.share = rq.share;
      append(graph[0], nm);
      // scout marks a wait propagating only when it caused a point-to-point wait state (its
      // callbacks for collective successors are commented out in Waitstates.MPI.pattern);
      // gridscope's rules also count collective successors, as both count their long-term delay
      const bool propagates = fwd_.rules == Rules::Gridscope || g < 2;
      for (auto& [c, w] : wl) {
        if (propagates) { double& pm = prop_max_[aux_of_[c]]; pm = std::max(pm, scale); }
        append(graph[0], ListEntry{gid_of(c), w});
      }
      edges_ += wl.size();
    }
    const uint32_t wrec = uint32_t(wrecs_.size());
    if (dents_.size() > d_begin) wrecs_.push_back({d_begin, sp, D, rq.wait_metahost, rq.metric, rq.cls});
    const uint32_t rec = dents_.size() > d_begin ? wrec : kNone;
    if (is_remote)
      append(back[owner_of(rq.q, N, P_)], Indirect{rq.w_local, rec, uint32_t(me_), 0, scale * wsum, gid_of(sp), sp_enter});
    else
      replies_[pr.idx] = Reply{rec, sp, scale * wsum};
    if ((n & kMany) != kMany && (--n & kMany) == 0 && (n & kStored)) {  // its last request
      decltype(sh->map)().swap(sh->map);
      decltype(sh->waits)().swap(sh->waits);
      n = 0;
    }
  }
  report_memory("delay loop");
  // the intervals are done: what located their starts goes before the next steps allocate
  decltype(peer_calls_)().swap(peer_calls_);
  decltype(group_calls_)().swap(group_calls_);
  decltype(reqs)().swap(reqs);
  decltype(remote)().swap(remote);
  decltype(keys)().swap(keys);
  Bytes in = t_.exchange(back);
  far_replies_.reserve(in.size() / sizeof(Indirect));
  for (Cursor c(in); !c.done();) {
    Indirect m = c.get<Indirect>();
    replies_[m.w_local] = Reply{m.wrec, kFar | uint32_t(far_replies_.size()), m.ticks};
    far_replies_.push_back({m.target, m.target_enter, m.src, 0});
  }
  graph_in_ = t_.exchange(graph);
}

// ---- 2. wait-state classes at the waiting owners
void Analysis::classes() {
  const auto& waits = fwd_.rc_waits;
  for (size_t i = 0; i < waits.size(); ++i) {
    const RcWait& w = waits[i];
    const SyncCall& call = tl_.calls[w.call];
    const uint32_t rank = rank_of(w.call);
    const int g = group_of(w.metric);
    const double ind = std::min(replies_[i].indirect, double(w.ticks));
    add_sev(class_metric(DIRECT, g), w.cls, call.cp, rank, (double(w.ticks) - ind) / res_);
    add_sev(class_metric(INDIRECT, g), w.cls, call.cp, rank, ind / res_);
    const double prop = std::min(prop_max_[aux_of_[w.call]], 1.0) * double(w.ticks);
    add_sev(class_metric(PROPAGATING, g), w.cls, call.cp, rank, prop / res_);
    add_sev(class_metric(TERMINAL, g), w.cls, call.cp, rank, (double(w.ticks) - prop) / res_);
  }
  std::vector<double>().swap(prop_max_);  // read above only
}

// The calls the critical path can leave through, to the process that walks it (alone: after
// the long-term costs, the jumps, 40 B each, are not held beside the propagation graph and
// the delay records; with more processes before them, at the last process, which walks while
// process 0 solves), sent in walk()'s order: by call, then the longest wait first. The
// processes own blocks of ascending ranks, so the walker receives them in that order too and
// sorts nothing.
void Analysis::jumps() {
  const auto& waits = fwd_.rc_waits;
  const auto& calls = tl_.calls;
  // each call's longest wait with a known delayer (a call can come twice: its waits are
  // listed per kind), with where it would go, except those the path could never take
  // (walk() would pass over them)
#pragma pack(push, 4)
  struct Keep { uint32_t wait; int64_t target_enter; };
#pragma pack(pop)
  std::vector<Keep> keep;
  {
    size_t with_target = 0;
    for (const Reply& r : replies_) with_target += r.via != kNone;
    keep.reserve(with_target);
  }
  uint32_t best = kNone;  // the wait the current call is left through on the critical path
  auto flush = [&]() {
    if (best == kNone) return;
    const uint32_t via = replies_[best].via;
    const int64_t target_enter = via & kFar ? far_replies_[via & ~kFar].target_enter : calls[via].enter;
    if (target_enter <= calls[waits[best].call].enter + waits[best].ticks) {
      keep.push_back({best, target_enter});
    }
    best = kNone;
  };
  for (size_t i = 0; i < waits.size(); ++i) {
    if (i + 16 < waits.size() && replies_[i + 16].via != kNone) {  // the two calls read, cache misses
      __builtin_prefetch(&calls[waits[i + 16].call]);
      if (!(replies_[i + 16].via & kFar)) __builtin_prefetch(&calls[replies_[i + 16].via]);
    }
    if (replies_[i].via == kNone) continue;
    const RcWait& w = waits[i];
    if (best != kNone && waits[best].call != w.call) flush();
    if (best == kNone || w.ticks > waits[best].ticks) best = uint32_t(i);
  }
  flush();
  std::vector<Bytes> jumps(P_);
  Bytes& to = jumps[walker()];
  to.resize(keep.size() * sizeof(JumpMsg));  // (their exact size: no regrowth)
  JumpMsg* out = reinterpret_cast<JumpMsg*>(to.data());
  for (size_t j = 0; j < keep.size(); ++j) {
    if (j + 16 < keep.size()) {
      __builtin_prefetch(&calls[waits[keep[j + 16].wait].call]);
    }
    const Keep& k = keep[j];
    const RcWait& w = waits[k.wait];
    const SyncCall& x = calls[w.call];
    const uint32_t via = replies_[k.wait].via;
    const uint64_t target = via & kFar ? far_replies_[via & ~kFar].target : gid_of(via);
    out[j] = JumpMsg{gid_of(w.call), target, x.enter + w.ticks, x.leave, k.target_enter};
  }
  std::vector<Keep>().swap(keep);
  // (replies_ and far_replies_ the caller frees: with 2+ processes it reads them after)
  // In walk()'s order: the waits are listed per kind in call order, so the jumps are a few
  // ascending runs, merged (a counting sort over every call cleared and summed an array as
  // long as the calls, 29 MB on the reference row, for a tenth as many jumps).
  const size_t n = to.size() / sizeof(JumpMsg);
  if (!merge_runs(out, out + n, jump_order, 16)) std::sort(out, out + n, jump_order);
  jumps_in_ = t_.exchange(jumps);
}

}  // namespace gs::rootcause_detail
