// Root causes, step 1 and the wait classes (docs/root-causes.md): synchronisation
// intervals as time maps, the delay of each wait state at its delayer's owner, short-term
// costs, and each wait state's class (direct/indirect, propagating/terminal).
#include <algorithm>
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
Analysis::IntervalStart Analysis::interval_start(uint32_t b, uint32_t other, uint32_t* group_hint) {
  const uint32_t rank = rank_of(b);
  uint32_t start = tl_.rank_first[slot_of(rank)];
  uint32_t from = kNone;  // the call that starts it
  int64_t completion = 0;
  const std::vector<PeerIndex>& peers = peers_[slot_of(rank)];  // the latest call before b that synchronised with it
  auto peer = std::lower_bound(peers.begin(), peers.end(), PeerIndex{other, 0});
  if (peer != peers.end() && peer->peer == other) {
    PeerCalls& pc = peer_syncs_[peer->index];
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
  auto it = groups.begin() + lower_bound_near(groups, b, group_hint ? *group_hint : group_hint_[slot_of(rank)], [](const GroupCall& g) { return g.call; });
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
    const SyncCall x = calls[c];
    const uint32_t a = aux_of_[c];
    const int64_t wait = a == kNone ? 0 : aux_wait_[a], wan = a == kNone || !has_wan ? 0 : aux_wan_[a];
    map.add(x.cp, false, std::max<int64_t>(0, x.leave - x.enter - wait - wan));
    map.add(x.cp, true, wan);
    if (waits && wait > 0) waits->push_back({c, wait});
  }
}

// ---- 1. delays at the delayers' owners
void Analysis::delays() {
  StepTimer dlap(me_, "dl");
  const auto& waits = fwd_.rc_waits;
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
  std::vector<Bytes> coll_out(P_);  // the collectives' wait states (rootcause_collectives.cpp)
  open_parts(coll_out);
  reqs.reserve(waits.size());  // (every buffer of the pass sized once where it can be: a regrowth's
                               // copy leaves a hole the heap keeps)
  for (size_t i = 0; i < waits.size(); ++i) {
    const RcWait& w = waits[i];
    const uint32_t q = rank_of(w.call);
    if (w.delayer == kNone || w.delayer == q) continue;
    if (group_of(w.metric) >= 2) {
      coll_request(w, uint32_t(i), q, coll_out);
      continue;
    }
    const uint32_t owner = owner_(w.delayer);
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
        if (int64_t v = tq_.at(cp, wan)) append(b, CpTicks{cp | (wan ? kWanPart : 0), v});
  }
  dlap("requests built");
  // The requests from other processes stay where they arrived, read in place: each one's
  // offset, its keys' call paths translated to ours there (copying 60 MB of them into typed
  // vectors took longer than the pass over them).
  Bytes arrived = t_.exchange(out);
  dlap("requests exchanged");
  std::vector<Bytes> coll_ivs = coll_intervals(t_.exchange(coll_out));
  dlap("collectives' intervals");
  std::vector<size_t> remote_at;
  {
    size_t n_keys = 0;
    reqs.reserve(reqs.size() + arrived.size() / sizeof(Request));  // (at most: untouched pages cost nothing)
    remote_at.reserve(arrived.size() / sizeof(Request));
    for (Cursor c(arrived); !c.done();) {
      const size_t at = c.offset();
      const Request rq = c.get<Request>();
      c.skip(size_t(rq.keys) * sizeof(CpTicks));
      if (const uint32_t sp = delayer_of(rq.ref, rq.index, rq.p); sp != kNone)
        reqs.push_back({rq.gid, kRemote | uint32_t(remote_at.size()), sp});
      remote_at.push_back(at);
      const std::vector<uint32_t>& to_ours = cp_from_[owner_(rq.q)];
      CpTicks* kt = reinterpret_cast<CpTicks*>(arrived.data() + at + sizeof rq);
      for (uint32_t k = 0; k < rq.keys; ++k) {  // (a call path we lack: kNone, not counted)
        const uint32_t cp = kt[k].cp & ~kWanPart;
        kt[k].cp = cp < to_ours.size() && to_ours[cp] != kNone ? to_ours[cp] | (kt[k].cp & kWanPart) : kNone;
      }
      n_keys += rq.keys;
    }
    if (rc_timing())
      std::fprintf(stderr, "   [%d] requests from other processes %zu, keys %zu, of %zu B\n", me_, remote_at.size(), n_keys, arrived.size());
  }
  auto remote_request = [&](size_t r) {
    Request rq;
    std::memcpy(&rq, arrived.data() + remote_at[r], sizeof rq);
    return rq;
  };
  auto remote_keys = [&](size_t r) { return reinterpret_cast<const CpTicks*>(arrived.data() + remote_at[r] + sizeof(Request)); };
  dlap("requests parsed");
  report_memory("requests");
  sort_in_call_order(reqs);  // (one more run per process)
  // The requests go in chunks of consecutive ones. A chunk's delayer intervals are found and
  // filled first, in delayer-call order (pass A): a delayer call lies anywhere in its rank's
  // timeline, so in request order each interval was a run of cache misses; in call order
  // they are a sweep, and one call's requests that start alike share one fill. The costs
  // are then charged in request order (pass B: the order of every sum stays), the delayers'
  // propagating maxima in call order again (pass C: a maximum has no order).
  constexpr size_t kChunk = size_t(1) << 14;  // (its pool stays in the cache; 4-16 K alike, 64 K slower)
  std::vector<uint64_t> by_call, scratch;  // (delayer call << 32 | request in the chunk), sorted
  std::vector<uint32_t> q_of, iv_of;       // per request in the chunk: waiting rank, interval
  std::vector<double> prop_scale;          // per request in the chunk: its propagating scale (< 0: none)
  // a delayer interval of the chunk, in its pool (pass B reads the chunk's few MB only). Its
  // wait list goes into the graph once: list_end, where it ends in graph[0] once sent.
  struct Iv { uint32_t map_at, nmap, wl_at, nwl; int64_t enter; size_t list_end; };
  std::vector<Iv> ivs;
  std::vector<TimeMap::Entry> pool_map;
  std::vector<std::pair<uint32_t, int64_t>> pool_wl;
  std::vector<uint32_t> sp_hints(mine_.size(), 0);  // the delayer side's group-call search hints

  replies_.assign(waits.size(), Reply{kNone, kNone, 0.0});
  std::vector<Bytes> back(P_), graph(P_);
  prop_max_.assign(aux_wait_.size(), 0.0);
  wrecs_.reserve(reqs.size());
  dents_.reserve(2 * reqs.size());  // (a guess: only the pages written count)
  graph[0].reserve((reqs.size() + coll_waits_.size()) * (sizeof(NodeMsg) + 2 * sizeof(ListEntry)));  // (a guess too)
  for (size_t k0 = 0; k0 < reqs.size(); k0 += kChunk) {
    const size_t m = std::min(kChunk, reqs.size() - k0);
    // ---- pass A: the delayer intervals, in delayer-call order
    by_call.resize(m);
    q_of.resize(m);
    iv_of.resize(m);
    for (size_t i = 0, q = 0; i < m; ++i) {
      const Pending& pr = reqs[k0 + i];
      by_call[i] = uint64_t(pr.sp) << 32 | i;
      while (pr.gid >= gbase_[q + 1]) ++q;  // (requests in gid order: the waiting rank only grows)
      q_of[i] = uint32_t(q);
    }
    radix_sort_from_bit(by_call, scratch, 32);
    ivs.clear();
    pool_map.clear();
    pool_wl.clear();
    for (size_t a = 0; a < m;) {
      const uint32_t sp = uint32_t(by_call[a] >> 32);
      const uint32_t slot = uint32_t(slot_of(rank_of(sp)));
      uint32_t last = kNone;  // the interval the previous request of this call used
      IntervalStart last_st{};
      for (; a < m && uint32_t(by_call[a] >> 32) == sp; ++a) {
        const uint32_t i = uint32_t(by_call[a]);
        const IntervalStart st = interval_start(sp, q_of[i], &sp_hints[slot]);
        if (last != kNone && last_st == st) { iv_of[i] = last; continue; }
        last_st = st;
        last = uint32_t(ivs.size());
        iv_of[i] = last;
        const uint32_t map_at = uint32_t(pool_map.size()), wl_at = uint32_t(pool_wl.size());
        tp_.clear();
        interval_fill(sp, st, tp_, &pool_wl);
        tp_.save_append(pool_map);
        ivs.push_back({map_at, uint32_t(pool_map.size() - map_at), wl_at, uint32_t(pool_wl.size() - wl_at),
                       tl_.calls[sp].enter, kNoList});
      }
    }
    // ---- pass B: the costs, in request order
    prop_scale.assign(m, -1.0);
    for (size_t i = 0; i < m; ++i) {
      const Pending& pr = reqs[k0 + i];
      const bool is_remote = pr.idx & kRemote;
      Request rq;
      if (is_remote) {
        rq = remote_request(pr.idx & ~kRemote);
      } else {
        const RcWait& w = waits[pr.idx];
        const uint32_t q = q_of[i];
        rq = Request{pr.gid, q, w.delayer, w.delayer_index, 0, pr.idx, d_.rank_metahost[q], 0,
                     w.metric, w.cls, w.ref, w.ticks, double(w.ticks) / double(wait_of(w.call))};
      }
      const uint32_t sp = pr.sp;
      ++with_delayer_;
      // the delayer's map and wait list, read in place
      Iv& iv = ivs[iv_of[i]];
      const TimeMap::Entry* tp_map = pool_map.data() + iv.map_at;
      const size_t tp_n = iv.nmap;
      const std::pair<uint32_t, int64_t>* wl = pool_wl.data() + iv.wl_at;
      const size_t wl_n = iv.nwl;
      tq_.clear();  // the waiting side's map, by our call paths
      if (!is_remote) {
        interval(waits[pr.idx].call, rq.p, tq_, nullptr);
      } else {
        const CpTicks* keys = remote_keys(pr.idx & ~kRemote);
        for (uint32_t k = 0; k < rq.keys; ++k) {
          const CpTicks& kt = keys[k];
          if (kt.cp != kNone) tq_.add(kt.cp & ~kWanPart, kt.cp & kWanPart, kt.ticks);
        }
      }
      const uint32_t d_begin = uint32_t(dents_.size());
      double dsum = 0;
      for (size_t e = 0; e < tp_n; ++e) add_dents(dents_, tp_map[e].cp, tp_map[e].plain, tp_map[e].wan, tq_, tp_map[e].cp, dsum);
      double wsum = 0;
      for (size_t j = 0; j < wl_n; ++j) wsum += double(wl[j].second);
      const double D = dsum + wsum;
      // (a point-to-point wait's scale is at most 1, as Scalasca's: coll_costs())
      const int g = group_of(rq.metric);
      const double scale = !(D > 0) ? 0.0 : std::min(double(rq.ticks) / D, 1.0);
      for (size_t k = d_begin; k < dents_.size(); ++k) {
        const DEntry& e = dents_[k];
        const double v = scale * double(e.d) / res_;
        cause(rq.metric, rq.cls, e, rq.p, rq.wait_metahost).first += v;
        add_sev(kDelayShort[g], rq.cls, e.cp, rq.p, v);
      }
      if (wl_n) {
        NodeMsg nm{};
        nm.gid = rq.gid; nm.w_local = rq.w_local; nm.list = uint32_t(wl_n);
        nm.group = uint8_t(g); nm.cls = rq.cls; nm.D = D; nm.scale = scale; nm.share = rq.share;
        to_graph(graph[0], nm, iv.list_end, [&] {
          for (size_t j = 0; j < wl_n; ++j) append(graph[0], ListEntry{gid_of(wl[j].first), wl[j].second});
        });
        prop_scale[i] = scale;  // (a point-to-point successor: propagating under both rules, coll_costs())
      }
      const uint32_t wrec = uint32_t(wrecs_.size());
      if (dents_.size() > d_begin) {  // (field by field, as add_dents)
        WRec& w = wrecs_.emplace_back();
        w.d_begin = d_begin; w.sp = sp; w.D = D; w.wait_metahost = rq.wait_metahost; w.metric = rq.metric; w.cls = rq.cls;
      }
      const uint32_t rec = dents_.size() > d_begin ? wrec : kNone;
      if (is_remote)
        append(back[owner_(rq.q)], Indirect{rq.w_local, rec, uint32_t(me_), 0, scale * wsum, gid_of(sp), iv.enter});
      else
        replies_[pr.idx] = Reply{rec, sp, scale * wsum};
    }
    // ---- pass C: the propagating maxima, in delayer-call order (the wait lists lie there)
    for (size_t a = 0; a < m; ++a) {
      const uint32_t i = uint32_t(by_call[a]);
      if (prop_scale[i] < 0) continue;
      const Iv& iv = ivs[iv_of[i]];
      const std::pair<uint32_t, int64_t>* wl = pool_wl.data() + iv.wl_at;
      for (size_t j = 0; j < iv.nwl; ++j) {
        double& pm = prop_max_[aux_of_[wl[j].first]];
        pm = std::max(pm, prop_scale[i]);
      }
    }
  }
  dlap("delay loop");
  report_memory("delay loop");
  // the point-to-point requests are done
  decltype(reqs)().swap(reqs);
  Bytes().swap(arrived);
  decltype(remote_at)().swap(remote_at);
  {
    const Bytes ivs = t_.exchange(coll_ivs);
    dlap("collectives' intervals exchanged");
    std::vector<Bytes> sums(P_);
    coll_costs(ivs, graph[0], sums);
    dlap("collectives' costs");
    coll_sums_in(t_.exchange(sums), false);
    dlap("collectives' sums exchanged");
  }
  // the intervals are done: what located their starts goes before the next steps allocate
  decltype(peers_)().swap(peers_);
  decltype(peer_syncs_)().swap(peer_syncs_);
  decltype(group_calls_)().swap(group_calls_);
  Bytes in = t_.exchange(back);
  far_replies_.reserve(far_replies_.size() + in.size() / sizeof(Indirect));
  for (Cursor c(in); !c.done();) {
    Indirect m = c.get<Indirect>();
    replies_[m.w_local] = Reply{m.wrec, kFar | uint32_t(far_replies_.size()), m.ticks};
    far_replies_.push_back({m.target, m.target_enter, m.src, 0});
  }
  dlap("back exchanged");
  graph_in_ = t_.exchange(graph);
  dlap("graph exchanged");
}

// ---- 2. wait-state classes at the waiting owners
void Analysis::classes() {
  const auto& waits = fwd_.rc_waits;
  for (size_t i = 0; i < waits.size(); ++i) {
    const RcWait& w = waits[i];
    const SyncCall call = tl_.calls[w.call];
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
  StepTimer jlap(me_, "jumps");
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
      calls.prefetch(waits[i + 16].call);
      if (!(replies_[i + 16].via & kFar)) calls.prefetch(replies_[i + 16].via);
    }
    if (replies_[i].via == kNone) continue;
    const RcWait& w = waits[i];
    if (best != kNone && waits[best].call != w.call) flush();
    if (best == kNone || w.ticks > waits[best].ticks) best = uint32_t(i);
  }
  flush();
  jlap("kept");
  std::vector<Bytes> jumps(P_);
  Bytes& to = jumps[walker()];
  to.resize(keep.size() * sizeof(JumpMsg));  // (their exact size: no regrowth)
  JumpMsg* out = reinterpret_cast<JumpMsg*>(to.data());
  for (size_t j = 0; j < keep.size(); ++j) {
    if (j + 16 < keep.size()) {
      calls.prefetch(waits[keep[j + 16].wait].call);
    }
    const Keep& k = keep[j];
    const RcWait& w = waits[k.wait];
    const SyncCall x = calls[w.call];
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
  jlap("sorted");
  jumps_in_ = t_.exchange(jumps);
  jlap("exchanged");
}

}  // namespace gs::rootcause_detail
