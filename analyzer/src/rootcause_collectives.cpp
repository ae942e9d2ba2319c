// Root causes, step 1 for the collectives' wait states (docs/root-causes.md, "Parallel
// replay"): a collective's wait states are all charged to its latecomer, so computed at the
// latecomer's owner they were one process's work (a slow site's ranks, or the rank a tie
// makes the latecomer of every barrier). The latecomer's owner finds their intervals only;
// each waiting owner computes the costs of its own wait states against them and sends each
// waiting rank's sums back, added there in rank order at any -j.
#include <algorithm>
#include <cstdio>

#include "rootcause_impl.hpp"

namespace gs::rootcause_detail {

namespace {
PartHead& head_of(Bytes& part) { return *reinterpret_cast<PartHead*>(part.data()); }
}  // namespace

void Analysis::open_parts(std::vector<Bytes>& parts) const {
  for (Bytes& b : parts) append(b, PartHead{uint32_t(me_), 0, 0, 0});
}

// waiting owner: a collective wait state to its delayer's owner, into `out` (open_parts;
// every wait state goes there, ours too: one path at any -j)
void Analysis::coll_request(const RcWait& w, uint32_t i, uint32_t q, std::vector<Bytes>& out) {
  const uint32_t L = uint32_t(owner_(w.delayer));
  append(out[L], CollReq{q, w.delayer, w.delayer_index, w.ref, {0, 0, 0}});
  coll_waits_.push_back({gid_of(w.call), i, head_of(out[L]).n++});
}

// delayer owner: the requests' intervals, each distinct one once to each waiting owner, with
// each request's interval (kNone: its delayer call is not known). Found in delayer-call
// order: a sweep over the timelines, and one call's requests that start alike share a fill.
std::vector<Bytes> Analysis::coll_intervals(const Bytes& requests) {
  struct Req { uint32_t q, src, pos; };
  std::vector<Req> reqs;
  reqs.reserve(requests.size() / sizeof(CollReq));
  std::vector<uint64_t> by_call, scratch;  // delayer call << 32 | request
  by_call.reserve(reqs.capacity());
  std::vector<std::vector<uint32_t>> iv_of(P_);  // per waiting owner, per request: its interval there
  for (Cursor c(requests); !c.done();) {
    const PartHead h = c.get<PartHead>();
    if (h.src >= uint32_t(P_)) throw std::logic_error("root causes: a message from no process");
    iv_of[h.src].assign(h.n, kNone);
    for (uint32_t j = 0; j < h.n; ++j) {
      const CollReq r = c.get<CollReq>();
      const uint32_t sp = delayer_call(r.ref, r.index);
      if (sp == kNone || !call_of(sp, r.p)) continue;
      by_call.push_back(uint64_t(sp) << 32 | reqs.size());
      reqs.push_back({r.q, h.src, j});
    }
  }
  radix_sort_from_bit(by_call, scratch, 32);  // (stable: one call's requests in arrival order)
  std::vector<Bytes> ivs(P_);      // per waiting owner: its intervals
  std::vector<uint32_t> n_iv(P_, 0);
  // the current call's distinct intervals: their start, bytes in `pool`, number at each owner
  struct Start { IntervalStart st; size_t at, len; };
  std::vector<Start> starts;
  std::vector<uint32_t> number;  // starts.size() x P_
  Bytes pool;
  std::vector<std::pair<uint32_t, int64_t>> wl;
  std::vector<uint32_t> hints(mine_.size(), 0);
  const auto& calls = tl_.calls;
  for (size_t a = 0; a < by_call.size();) {
    const uint32_t sp = uint32_t(by_call[a] >> 32);
    const uint32_t slot = uint32_t(slot_of(rank_of(sp)));
    starts.clear();
    number.clear();
    pool.clear();
    for (; a < by_call.size() && uint32_t(by_call[a] >> 32) == sp; ++a) {
      const Req& r = reqs[uint32_t(by_call[a])];
      const IntervalStart st = interval_start(sp, r.q, &hints[slot]);
      size_t s = 0;
      while (s < starts.size() && !(starts[s].st == st)) ++s;
      if (s == starts.size()) {
        tp_.clear();
        wl.clear();
        interval_fill(sp, st, tp_, &wl);
        const size_t at = pool.size();
        append(pool, CollIv{gid_of(sp), calls[sp].enter, uint32_t(tp_.touched().size()), uint32_t(wl.size())});
        for (uint32_t cp : tp_.touched())  // (first-touch order: the order the costs are summed in)
          append(pool, IvEntry{cp | (cp_mpi_[cp] ? kMpiPart : 0), tp_.at(cp, false), tp_.at(cp, true)});
        for (const auto& [c, w] : wl) append(pool, ListEntry{gid_of(c), w});
        starts.push_back({st, at, pool.size() - at});
        number.resize(number.size() + P_, kNone);
      }
      uint32_t& k = number[s * P_ + r.src];
      if (k == kNone) {
        k = n_iv[r.src]++;
        ivs[r.src].insert(ivs[r.src].end(), pool.begin() + starts[s].at, pool.begin() + starts[s].at + starts[s].len);
      }
      iv_of[r.src][r.pos] = k;
    }
  }
  std::vector<Bytes> out(P_);
  for (int p = 0; p < P_; ++p) {
    const uint32_t n = uint32_t(iv_of[p].size());
    out[p].reserve(sizeof(PartHead) + 4 * (n + 1) + ivs[p].size());
    append(out[p], PartHead{uint32_t(me_), n, n_iv[p], 0});
    for (uint32_t k : iv_of[p]) append(out[p], k);
    if (n % 2) append(out[p], uint32_t(0));  // (the intervals 8-byte aligned)
    out[p].insert(out[p].end(), ivs[p].begin(), ivs[p].end());
    Bytes().swap(ivs[p]);
  }
  return out;
}

void Analysis::flush_partials(std::vector<Bytes>& parts) {
  psum_.flush([&](const CauseKey& k, double v) {
    Bytes& b = parts[owner_(k.rank)];
    append(b, PartialMsg{k.pattern, k.cls, k.kind, k.cp, k.rank, k.wait_metahost, v});
    head_of(b).n++;
  });
}

// waiting owner: the costs of our collective wait states, in call order, against their
// delayers' intervals (`in`: each delayer owner's part). What the delayer owner did for them
// before happens here, in its call paths: the delay entries and the short-term sums (to it,
// per waiting rank), the wait list to the propagation graph, where the critical path would
// move; back go the sums and the wait lists' largest propagating scales.
void Analysis::coll_costs(const Bytes& in, Bytes& graph0, std::vector<Bytes>& sums) {
  struct Part {
    const uint32_t* iv_of = nullptr;  // per request
    uint32_t n = 0;
    std::vector<size_t> iv_at, list_end;  // per interval: its offset in `in`, its list's end in graph0
    std::vector<double> prop;             // per interval: the largest propagating scale (< 0: none)
  };
  std::vector<Part> part(P_);
  for (Cursor c(in); !c.done();) {
    const PartHead h = c.get<PartHead>();
    if (h.src >= uint32_t(P_)) throw std::logic_error("root causes: a message from no process");
    Part& pt = part[h.src];
    pt.n = h.n;
    pt.iv_of = reinterpret_cast<const uint32_t*>(in.data() + c.offset());
    c.skip(4 * size_t(h.n + h.n % 2));
    pt.iv_at.resize(h.m);
    for (uint32_t k = 0; k < h.m; ++k) {
      pt.iv_at[k] = c.offset();
      const CollIv iv = c.get<CollIv>();
      c.skip(size_t(iv.nmap) * sizeof(IvEntry) + size_t(iv.nwl) * sizeof(ListEntry));
    }
    pt.list_end.assign(h.m, kNoList);
    pt.prop.assign(h.m, -1.0);
  }
  if (rc_timing())
    std::fprintf(stderr, "   [%d] collective wait states %zu, their intervals %zu B\n", me_, coll_waits_.size(), in.size());
  const auto& waits = fwd_.rc_waits;
  sort_in_call_order(coll_waits_);
  crecs_.reserve(coll_waits_.size());  // (sized once: a regrowth's copy leaves a hole the heap keeps)
  cdents_.reserve(2 * coll_waits_.size());  // (a guess: only the pages written count)
  open_parts(sums);
  uint32_t rank = kNone;  // whose sums psum_ holds
  for (const CollWait& cw : coll_waits_) {
    const RcWait& w = waits[cw.idx];
    const uint32_t q = rank_of(w.call), p = w.delayer, L = uint32_t(owner_(p));
    Part& pt = part[L];
    if (cw.pos >= pt.n) throw std::logic_error("root causes: a collective request unanswered");
    const uint32_t k = pt.iv_of[cw.pos];
    if (k == kNone) continue;  // (its delayer's call is not known)
    if (k >= pt.iv_at.size()) throw std::logic_error("root causes: an interval out of range");
    if (q != rank) {
      flush_partials(sums);
      rank = q;
    }
    ++with_delayer_;
    CollIv iv;
    std::memcpy(&iv, in.data() + pt.iv_at[k], sizeof iv);
    const IvEntry* map = reinterpret_cast<const IvEntry*>(in.data() + pt.iv_at[k] + sizeof iv);
    const ListEntry* wl = reinterpret_cast<const ListEntry*>(map + iv.nmap);
    // the waiting side's map, in the delayer owner's call paths (ours where that is us)
    tq_.clear();
    interval(w.call, p, tq_, nullptr);
    const TimeMap* mq = &tq_;
    if (L != uint32_t(me_)) {
      tt_.clear();
      const std::vector<uint32_t>& to = cp_to_[L];
      for (uint32_t cp : tq_.touched())
        if (const uint32_t t = to[cp]; t != kNone) {
          tt_.add(t, false, tq_.at(cp, false));
          tt_.add(t, true, tq_.at(cp, true));
        }
      mq = &tt_;
    }
    const uint32_t d_begin = uint32_t(cdents_.size());
    double dsum = 0;
    for (uint32_t e = 0; e < iv.nmap; ++e) {
      IvEntry x;
      std::memcpy(&x, map + e, sizeof x);
      add_dents(cdents_, x.cp, x.plain, x.wan, *mq, x.cp & ~kMpiPart, dsum);
    }
    double wsum = 0;
    for (uint32_t j = 0; j < iv.nwl; ++j) wsum += double(wl[j].w);
    const double D = dsum + wsum;
    const int g = group_of(w.metric);
    // (Scalasca caps the scale at 1 for point-to-point waits only: a collective's wait is
    // charged in full to the latecomer's delay, however small; scout's MpiDelayOps.cpp)
    const double scale = !(D > 0) ? 0.0 : double(w.ticks) / D;
    const uint32_t wait_mh = d_.rank_metahost[q];
    for (size_t j = d_begin; j < cdents_.size(); ++j) {
      const DEntry& e = cdents_[j];
      const uint32_t cp = e.cp & ~kMpiPart;
      const uint8_t kind = coll_kind(e);
      const double v = scale * double(e.d) / res_;
      psum_.add(CauseKey{w.metric, w.cls, kind, cp, p, wait_mh}, v);
      if (v != 0) psum_.add(CauseKey{uint16_t(kDelayShort[g]), w.cls, kSevKind, cp, p, 0}, v);
    }
    if (iv.nwl) {
      NodeMsg nm{};
      nm.gid = cw.gid; nm.w_local = cw.idx; nm.list = iv.nwl;
      nm.group = uint8_t(g); nm.cls = w.cls; nm.D = D; nm.scale = scale;
      nm.share = double(w.ticks) / double(wait_of(w.call));
      to_graph(graph0, nm, pt.list_end[k], [&] {
        graph0.insert(graph0.end(), reinterpret_cast<const char*>(wl), reinterpret_cast<const char*>(wl + iv.nwl));
      });
      // scout marks a wait propagating only when it caused a point-to-point wait state (its
      // callbacks for collective successors are commented out in Waitstates.MPI.pattern);
      // gridscope's rules also count collective successors, as both count their long-term delay
      if (fwd_.rules == Rules::Gridscope) pt.prop[k] = std::max(pt.prop[k], scale);
    }
    uint32_t rec = kNone;
    if (cdents_.size() > d_begin) {
      rec = kCollRec | uint32_t(crecs_.size());
      crecs_.push_back({d_begin, p, q, D, w.metric, w.cls});
    }
    if (L == uint32_t(me_)) {  // (where the path would move: the delayer's call here)
      replies_[cw.idx] = Reply{rec, local_of(iv.sp_gid), scale * wsum};
    } else {
      replies_[cw.idx] = Reply{rec, kFar | uint32_t(far_replies_.size()), scale * wsum};
      far_replies_.push_back({iv.sp_gid, iv.enter, uint32_t(me_), 0});
    }
  }
  flush_partials(sums);
  decltype(coll_waits_)().swap(coll_waits_);
  for (int L = 0; L < P_; ++L) {
    const Part& pt = part[L];
    for (size_t k = 0; k < pt.prop.size(); ++k) {
      if (pt.prop[k] < 0) continue;
      CollIv iv;
      std::memcpy(&iv, in.data() + pt.iv_at[k], sizeof iv);
      const ListEntry* wl = reinterpret_cast<const ListEntry*>(in.data() + pt.iv_at[k] + sizeof iv + iv.nmap * sizeof(IvEntry));
      for (uint32_t j = 0; j < iv.nwl; ++j) append(sums[L], PropMsg{wl[j].gid, pt.prop[k]});
      head_of(sums[L]).m += iv.nwl;
    }
  }
}

// delayer owner: the waiting ranks' sums, in rank order (the parts arrive in process order,
// each in its ranks' order), and the wait lists' propagating scales
void Analysis::coll_sums_in(const Bytes& in, bool long_term) {
  for (Cursor c(in); !c.done();) {
    const PartHead h = c.get<PartHead>();
    for (uint32_t j = 0; j < h.n; ++j) {
      const PartialMsg m = c.get<PartialMsg>();
      if (m.rank >= d_.ranks() || owner_(m.rank) != uint32_t(me_)) throw std::logic_error("root causes: a sum for another process");
      if (m.kind == kSevKind) {
        add_sev(m.pattern, m.cls, m.cp, m.rank, m.v);
      } else {
        std::pair<double, double>& s = causes_[CauseKey{m.pattern, m.cls, m.kind, m.cp, m.rank, m.wait_metahost}];
        (long_term ? s.second : s.first) += m.v;
      }
    }
    for (uint32_t j = 0; j < h.m; ++j) {
      const PropMsg m = c.get<PropMsg>();
      double& pm = prop_max_[aux_of_[local_of(m.gid)]];
      pm = std::max(pm, m.scale);
    }
  }
}

// waiting owner: the long-term charges of our collective wait states' delays, from their
// inherited costs (`cost_at`: each record's CostHead in `wait_costs`), per waiting rank to
// the delayers' owners
std::vector<Bytes> Analysis::coll_long_costs(const Bytes& wait_costs, const std::vector<size_t>& cost_at) {
  std::vector<Bytes> sums(P_);
  open_parts(sums);
  uint32_t rank = kNone;
  for (uint32_t r = 0; r < crecs_.size(); ++r) {
    if (cost_at[r] == SIZE_MAX) continue;
    const WaitCost m = read_wait_cost(wait_costs.data() + cost_at[r]);
    const CollRec& w = crecs_[r];
    double total = 0;
    for (double x : m.c) total += x;
    if (!(total > 0) || !(w.D > 0)) continue;
    if (w.q != rank) {
      flush_partials(sums);
      rank = w.q;
    }
    for (size_t k = w.d_begin, end = cdents_end(r); k < end; ++k) {
      const DEntry& e = cdents_[k];
      const uint32_t cp = e.cp & ~kMpiPart;
      psum_.add(CauseKey{w.metric, w.cls, coll_kind(e), cp, w.p, d_.rank_metahost[w.q]}, total / w.D * double(e.d) / res_);
      for (int j = 0; j < kCosts; ++j)
        if (m.c[j] > 0) psum_.add(CauseKey{uint16_t(kDelayLong[j / 2]), uint8_t(j % 2), kSevKind, cp, w.p, 0}, m.c[j] / w.D * double(e.d) / res_);
    }
  }
  flush_partials(sums);
  std::vector<DEntry>().swap(cdents_);
  std::vector<CollRec>().swap(crecs_);
  return sums;
}

}  // namespace gs::rootcause_detail
