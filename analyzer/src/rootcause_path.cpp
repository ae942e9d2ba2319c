// Root causes, steps 2 and 3 (docs/root-causes.md): the propagation graph at process 0,
// long-term costs per waiting call, the critical path walked back from the end of the run,
// and the totals.
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

// ---- 3. process 0 solves and walks; the results go back
void Analysis::graph_and_path() {
  StepTimer glap(me_, "gp");
  // what the intervals needed of the calls' waiting and WAN excess; aux_of_ stays: it
  // numbers the calls with waits (in call order, first) for the index of their waits below
  std::vector<int64_t>().swap(aux_wan_);
  std::vector<uint32_t>().swap(aux_wan_from_);
  std::vector<Bytes> node_costs(P_), cover(P_);
  // with 2+ processes the path is walked at the last process while process 0 solves: the
  // jumps first, then (its own results do not depend on where it runs) the walk
  const bool walk_first = walker() != 0;
  if (walk_first) {
    jumps();
    if (me_ == walker()) {
      walk(cover);
      // the path to process 0 ahead of its covered stretches (the walker alone sends cover)
      Bytes head;
      const uint64_t pieces = out_.path.size();
      append(head, uint64_t(out_.path_start_rank));
      append(head, out_.path_length_s);
      append(head, pieces);
      const char* p = reinterpret_cast<const char*>(out_.path.data());
      head.insert(head.end(), p, p + pieces * sizeof(PathPiece));
      head.insert(head.end(), cover[0].begin(), cover[0].end());
      cover[0].swap(head);
      out_.path_start_rank = kNone;
      out_.path_length_s = 0;
      std::vector<PathPiece>().swap(out_.path);
      report_memory("walked");
    }
  }
  glap("walk first");
  if (me_ == 0) {
    solve(node_costs);
    report_memory("solved");
  }
  // the wait classes need only this process's replies: process 0 finds them after its solve,
  // the others while it solves
  classes();
  glap("solved");
  // a waiting call's inherited costs, shared among its waits, to their delayers' owners
  std::vector<Bytes> wait_costs(P_);
  {
    Bytes in = t_.exchange(node_costs);
    glap("exchanged node costs");
    {  // at most one WaitCost per wait state with a delay record, to its delayer's owner
      std::vector<size_t> to(P_, 0);
      for (const Reply& r : replies_)
        if (r.wrec != kNone) to[reply_src(r)]++;
      for (int p = 0; p < P_; ++p) wait_costs[p].reserve(to[p] * (sizeof(CostHead) + 2 * sizeof(double)));  // (a guess)
    }
    // each call's record by its aux entry (the calls with waits come first), then the waits
    // in their order: one pass over them (each cost goes to its own wait record, so the
    // order they are sent in does not matter)
    constexpr size_t kNoCost = SIZE_MAX;
    std::vector<size_t> cost_at(aux_wait_.size(), kNoCost);
    for (size_t pos = 0; pos < in.size();) {
      NodeCostHead nh;
      if (pos + sizeof nh > in.size()) throw std::logic_error("root causes: truncated message");
      std::memcpy(&nh, in.data() + pos, sizeof nh);
      const uint32_t a = aux_of_[local_of(nh.gid)];
      if (a != kNone && a < cost_at.size()) cost_at[a] = pos;  // (else no wait state of ours)
      pos += sizeof nh + sizeof(double) * size_t(__builtin_popcountll(nh.cols & ((uint64_t(1) << kCosts) - 1)));
    }
    const auto& waits = fwd_.rc_waits;
    for (size_t i = 0; i < waits.size(); ++i) {
      if (replies_[i].wrec == kNone) continue;
      const uint32_t a = aux_of_[waits[i].call];
      const size_t pos = cost_at[a];
      if (pos == kNoCost) continue;
      NodeCostHead nh;
      std::memcpy(&nh, in.data() + pos, sizeof nh);
      double nc[kCosts] = {};  // the columns left out are 0
      const char* v = in.data() + pos + sizeof nh;
      for (int j = 0; j < kCosts; ++j)
        if (nh.cols >> j & 1) { std::memcpy(&nc[j], v, sizeof(double)); v += sizeof(double); }
      const int64_t call_wait = aux_wait_[a];  // as setup() summed it
      const double share = double(waits[i].ticks) / double(call_wait);
      double c[kCosts], total = 0;
      CostHead h{replies_[i].wrec, 0, 0};
      for (int j = 0; j < kCosts; ++j) {
        c[j] = nc[j] * share;
        total += c[j];
        if (c[j] != 0) h.mask |= uint16_t(1u << j);
      }
      if (!(total > 0)) continue;  // the delayer's owner would skip it (a zero adds nothing to its sums)
      Bytes& b = wait_costs[reply_src(replies_[i])];
      append(b, h);
      for (int j = 0; j < kCosts; ++j)
        if (h.mask >> j & 1) append(b, c[j]);
    }
  }
  std::vector<uint32_t>().swap(aux_of_);
  std::vector<int64_t>().swap(aux_wait_);
  if (walk_first) {  // (jumps() has read them)
    std::vector<Reply>().swap(replies_);
    std::vector<FarReply>().swap(far_replies_);
  }
  report_memory("wait costs");
  glap("wait costs");
  {
    Bytes in = t_.exchange(wait_costs);
    glap("exchanged wait costs");
    // in our own wait-record order (the arrival order depends on the processes): each
    // record's arrival (at most one: a record is one wait state's) by a direct index
    constexpr size_t kNoCost = SIZE_MAX;
    std::vector<size_t> cost_at(wrecs_.size(), kNoCost), coll_cost_at(crecs_.size(), kNoCost);
    for (size_t at = 0; at < in.size();) {
      CostHead h;
      if (at + sizeof h > in.size()) throw std::logic_error("root causes: truncated message");
      std::memcpy(&h, in.data() + at, sizeof h);
      std::vector<size_t>& at_of = h.wrec & kCollRec ? coll_cost_at : cost_at;
      const uint32_t r = h.wrec & ~kCollRec;
      if (r >= at_of.size() || at_of[r] != kNoCost) throw std::logic_error("root causes: a wait record's costs twice");
      at_of[r] = at;
      at += sizeof h + sizeof(double) * size_t(__builtin_popcount(h.mask));
    }
    for (uint32_t r = 0; r < wrecs_.size(); ++r) {
      const size_t at = cost_at[r];
      if (at == kNoCost) continue;
      const WaitCost m = read_wait_cost(in.data() + at);
      const WRec& w = wrecs_[m.wrec];
      const uint32_t p = rank_of(w.sp);
      double total = 0;
      for (double x : m.c) total += x;
      if (!(total > 0) || !(w.D > 0)) continue;
      for (size_t k = w.d_begin, end = dents_end(m.wrec); k < end; ++k) {
        const DEntry& e = dents_[k];
        cause(w.metric, w.cls, e, p, w.wait_metahost).second += total / w.D * double(e.d) / res_;
        for (int j = 0; j < kCosts; ++j)
          if (m.c[j] > 0) add_sev(kDelayLong[j / 2], uint8_t(j % 2), e.cp, p, m.c[j] / w.D * double(e.d) / res_);
      }
    }
    // the collectives' records are ours (rootcause_collectives.cpp): their charges go to
    // the delayers' owners, added there after the point-to-point ones above
    std::vector<Bytes> coll = coll_long_costs(in, coll_cost_at);
    Bytes().swap(in);
    coll_sums_in(t_.exchange(coll), true);
  }
  // the delay records are done with; the path's jumps follow
  std::vector<DEntry>().swap(dents_);
  std::vector<WRec>().swap(wrecs_);
  report_memory("long");
  glap("long");
  if (!walk_first) {
    jumps();
    std::vector<Reply>().swap(replies_);
    std::vector<FarReply>().swap(far_replies_);
    glap("jumps");
    walk(cover);
    report_memory("walked");
  }
  glap("walk");
  Bytes cover_in = t_.exchange(cover);
  glap("cover exchanged");
  Cursor c(cover_in);
  if (walk_first && me_ == 0) {
    out_.path_start_rank = uint32_t(c.get<uint64_t>());
    out_.path_length_s = c.get<double>();
    out_.path.resize(c.get<uint64_t>());
    for (PathPiece& piece : out_.path) piece = c.get<PathPiece>();
  }
  while (!c.done()) {
    CoverMsg m = c.get<CoverMsg>();
    const uint32_t hi = local_of(m.hi);
    const uint32_t rank = rank_of(hi);
    const uint32_t lo = m.lo_ticks < 0 ? kNone : local_of(m.lo);
    for (uint32_t x = lo == kNone ? tl_.rank_first[slot_of(rank)] : lo + 1;; ++x) {
      const SyncCall call = tl_.calls[x];
      for (uint32_t e = tl_.seg_begin(x), end = tl_.seg_end(x); e < end; ++e)
        add_sev(M_CRITICAL_PATH, CLS_NONE, tl_.seg[e].cp, rank, double(tl_.seg[e].ticks) / res_);
      if (x == hi) break;
      add_sev(M_CRITICAL_PATH, CLS_NONE, call.cp, rank, double(call.leave - call.enter) / res_);
    }
    if (lo != kNone) add_sev(M_CRITICAL_PATH, CLS_NONE, tl_.calls[lo].cp, rank, double(m.lo_ticks) / res_);
  }
  glap("cover");
}

// Long-term costs over the propagation graph, in a fixed topological order: each waiting
// call's costs are final before its wait states pass them on.
void Analysis::solve(std::vector<Bytes>& node_costs) {
  const uint32_t N = d_.ranks();
  StepTimer tlap(me_, "solve");
  // the wait states by (call, w_local), each pointing at its message in graph_in_, which
  // stays: its wait list is read (and renumbered) in place, behind its header
  struct Node { uint64_t gid, at; uint32_t w_local, list; };
  std::vector<Node> ws;
  ws.reserve(graph_in_.size() / sizeof(NodeMsg));  // (at most: untouched pages cost nothing)
  // nodes: the calls that occur, numbered in call order: a bit per call, and the nodes below
  // each word of them (1 MB where a direct index over all calls took 29 MB, missed at random)
  const uint64_t G = gbase_[N];
  std::vector<uint64_t> occurs((G + 63) / 64, 0);
  auto mark = [&](uint64_t g) {
    if (g >= G) throw std::logic_error("root causes: call id out of range");
    occurs[g >> 6] |= uint64_t(1) << (g & 63);
  };
  size_t entries = 0;
  // costs only where some wait state passes them on (a call without predecessors has none).
  // Only the columns some wait state starts, (its group, its class), are kept: costs are
  // passed on column by column, so every other column stays 0 everywhere (and the owners add
  // no zero).
  uint64_t cols = 0;
  // each message's list: behind it, or (shared) ending back * 8 bytes before its end; the
  // next message follows the list it carries
  auto list_bytes = [](const NodeMsg& m) { return size_t(m.list) * sizeof(ListEntry); };
  auto list_at = [&](size_t at, const NodeMsg& m) {
    return m.back == 0 ? at + sizeof m : at + sizeof m - size_t(m.back) * 8 - list_bytes(m);
  };
  auto next_at = [&](size_t at, const NodeMsg& m) { return at + sizeof m + (m.back == 0 ? list_bytes(m) : 0); };
  for (size_t at = 0; at < graph_in_.size();) {
    if (at + sizeof(NodeMsg) > graph_in_.size()) throw std::logic_error("root causes: truncated message");
    NodeMsg m;
    std::memcpy(&m, graph_in_.data() + at, sizeof m);
    const size_t back = size_t(m.back) * 8;  // (a shared list lies wholly before this message)
    const bool fits = m.back == 0 ? list_bytes(m) <= graph_in_.size() - at - sizeof m
                                  : back >= sizeof m && back + list_bytes(m) <= at + sizeof m;
    if (!fits) throw std::logic_error("root causes: truncated message");
    ws.push_back({m.gid, at, m.w_local, m.list});
    cols |= uint64_t(1) << (m.group * 2 + m.cls);
    mark(m.gid);
    if (m.back == 0) {  // (a shared list is marked where it was sent)
      const ListEntry* list = reinterpret_cast<const ListEntry*>(graph_in_.data() + at + sizeof m);
      for (uint32_t k = 0; k < m.list; ++k) mark(list[k].gid);
    }
    entries += m.list;
    at = next_at(at, m);
  }
  auto by_wait = [](const Node& a, const Node& b) { return std::tie(a.gid, a.w_local) < std::tie(b.gid, b.w_local); };
  // (one process's are sorted: one run per process)
  if (!merge_runs(ws.begin(), ws.end(), by_wait, 64)) std::sort(ws.begin(), ws.end(), by_wait);
  std::vector<uint32_t> below(occurs.size() + 1, 0);
  for (size_t w = 0; w < occurs.size(); ++w) below[w + 1] = below[w] + uint32_t(__builtin_popcountll(occurs[w]));
  auto node_of = [&](uint64_t g) {
    return below[g >> 6] + uint32_t(__builtin_popcountll(occurs[g >> 6] & ((uint64_t(1) << (g & 63)) - 1)));
  };
  std::vector<uint64_t> ids;
  ids.reserve(below.back());
  for (size_t w = 0; w < occurs.size(); ++w)
    for (uint64_t bits = occurs[w]; bits != 0; bits &= bits - 1) ids.push_back(w * 64 + uint64_t(__builtin_ctzll(bits)));
  auto msg = [&](const Node& w) { return reinterpret_cast<const NodeMsg*>(graph_in_.data() + w.at); };
  auto list_of = [&](const Node& w) { return reinterpret_cast<ListEntry*>(graph_in_.data() + list_at(w.at, *msg(w))); };
  report_memory("solve parsed");
  tlap("parsed");
  int col[kCosts], ncol = 0;
  for (int j = 0; j < kCosts; ++j) col[j] = cols >> j & 1 ? ncol++ : -1;
  if (rc_timing()) std::fprintf(stderr, "   solve ncol %d nodes %zu waits %zu entries %zu\n", ncol, ids.size(), ws.size(), entries);
  // what the propagation reads of a node, together: its in-degree (kDone: processed), its
  // first wait state (kPred: it has predecessors) and its costs, one record (one cache miss
  // per list entry, not one for the state and one for the costs)
  struct Head { uint32_t indeg, first; };
  constexpr uint32_t kDone = 0x80000000u, kPred = 0x80000000u;
  if (ws.size() >= kPred) throw std::logic_error("root causes: more than 2^31 wait states with a wait list");
  const size_t S = sizeof(Head) + sizeof(double) * size_t(ncol);
  // the in-degrees counted apart first (4 B a node: random increments that stay in the
  // cache, where the 32 B node records missed it at each)
  std::vector<uint32_t> indeg(ids.size(), 0);
  // the list entries by node from here on: each list renumbered once, in the order sent (a
  // shared list before the messages that refer to it), counted for each of its messages
  for (size_t at = 0; at < graph_in_.size();) {
    NodeMsg m;
    std::memcpy(&m, graph_in_.data() + at, sizeof m);
    ListEntry* list = reinterpret_cast<ListEntry*>(graph_in_.data() + list_at(at, m));
    for (uint32_t k = 0; k < m.list; ++k) {
      if (m.back == 0) list[k].gid = node_of(list[k].gid);
      indeg[list[k].gid]++;
    }
    at = next_at(at, m);
  }
  Bytes nodes(ids.size() * S);
  for (size_t n = 0; n < ids.size(); ++n) {
    char* at = nodes.data() + n * S;
    const Head h{indeg[n], uint32_t(ws.size()) | (indeg[n] > 0 ? kPred : 0)};
    std::memcpy(at, &h, sizeof h);
    std::fill_n(reinterpret_cast<double*>(at + sizeof h), ncol, 0.0);
  }
  std::vector<uint32_t>().swap(indeg);
  auto head = [&](size_t n) -> Head& { return *reinterpret_cast<Head*>(nodes.data() + n * S); };
  auto cost = [&](size_t n) { return reinterpret_cast<double*>(nodes.data() + n * S + sizeof(Head)); };
  for (size_t i = ws.size(); i-- > 0;) {
    Head& h = head(node_of(ws[i].gid));
    h.first = uint32_t(i) | (h.first & kPred);
  }
  std::vector<uint64_t>().swap(occurs);
  std::vector<uint32_t>().swap(below);
  // the nodes ready, latest call first (any fixed rule would do): a node becomes ready once,
  // so a set whose largest element is taken, a bitmap under bitmaps of its non-zero words
  // (a few word reads a step, where a binary heap of 2 M nodes missed the cache at each level)
  struct Ready {
    std::vector<std::vector<uint64_t>> lv;  // lv[0]: a bit per node
    explicit Ready(size_t n) {
      do {
        n = std::max<size_t>(1, (n + 63) / 64);
        lv.emplace_back(n, 0);
      } while (n > 1);
    }
    bool empty() const { return lv.back()[0] == 0; }
    void push(size_t i) {
      for (auto& l : lv) { l[i >> 6] |= uint64_t(1) << (i & 63); i >>= 6; }
    }
    size_t top_pop() {
      size_t i = 0;
      for (size_t k = lv.size(); k-- > 0;) i = i * 64 + size_t(63 - __builtin_clzll(lv[k][i]));
      for (size_t j = i, k = 0; k < lv.size(); ++k, j >>= 6)
        if ((lv[k][j >> 6] &= ~(uint64_t(1) << (j & 63))) != 0) break;
      return i;
    }
  } ready(ids.size());
  for (size_t n = 0; n < ids.size(); ++n)
    if (head(n).indeg == 0) ready.push(n);
  auto process = [&](size_t n) {
    head(n).indeg |= kDone;
    double mine[kCosts];
    std::copy(cost(n), cost(n) + ncol, mine);  // final: nothing adds to it after
    const size_t f = head(n).first & ~kPred;
    // the wait states just below are often next (the latest call first): their messages
    // and their lists' nodes ahead, a cache miss each at random otherwise
    if (f < ws.size() && f >= 8) {
      __builtin_prefetch(graph_in_.data() + ws[f - 8].at);
      const Node& a = ws[f - 4];
      const ListEntry* l = list_of(a);
      for (uint32_t k = 0; k < a.list && k < 4; ++k) __builtin_prefetch(nodes.data() + l[k].gid * S);
    }
    for (size_t i = f; i < ws.size() && ws[i].gid == ids[n]; ++i) {
      const NodeMsg& m = *msg(ws[i]);
      const ListEntry* list = list_of(ws[i]);
      for (uint32_t k = 0; k < m.list; ++k) {
        if (k + 2 < m.list) __builtin_prefetch(nodes.data() + list[k + 2].gid * S);  // (solve: 4 % fewer samples)
        Head& x = head(list[k].gid);
        if (!(x.indeg & kDone)) {  // (a node already done, in a cycle, has sent its costs)
          double* cx = cost(list[k].gid);
          const double w = double(list[k].w);
          cx[col[m.group * 2 + m.cls]] += m.scale * w;
          if (m.D > 0)
            for (int j = 0; j < ncol; ++j) cx[j] += mine[j] * m.share / m.D * w;
        }
        if ((x.indeg & ~kDone) > 0 && (--x.indeg & ~kDone) == 0) ready.push(size_t(list[k].gid));
      }
    }
  };
  tlap("set up");
  while (!ready.empty()) {
    const size_t n = ready.top_pop();
    if (!(head(n).indeg & kDone)) process(n);
  }
  for (size_t n = ids.size(); n-- > 0;)  // cycles (a trace that breaks causality): as far as they go
    if (!(head(n).indeg & kDone)) { ++unordered_; process(n); }
  std::vector<Node>().swap(ws);
  Bytes().swap(graph_in_);
  tlap("propagated");
  // the costs of the calls with predecessors to their owners (the owners' results do not
  // depend on the records' order: each wait's share is its own)
  const size_t rec = sizeof(NodeCostHead) + sizeof(double) * size_t(ncol);
  // (ids ascend: their ranks by a cursor, no search per node)
  auto each = [&](auto&& f) {
    uint32_t r = 0;
    for (size_t n = 0; n < ids.size(); ++n) {
      while (ids[n] >= gbase_[r + 1]) ++r;
      if (head(n).first & kPred) f(n, owner_(r));
    }
  };
  std::vector<size_t> to(P_, 0);
  each([&](size_t, uint32_t p) { to[p]++; });
  for (int p = 0; p < P_; ++p) node_costs[p].resize(to[p] * rec);
  std::fill(to.begin(), to.end(), 0);
  each([&](size_t n, uint32_t p) {
    char* at = node_costs[p].data() + rec * to[p]++;
    const NodeCostHead h{ids[n], cols};
    std::memcpy(at, &h, sizeof h);
    std::memcpy(at + sizeof h, cost(n), sizeof(double) * size_t(ncol));
  });
  tlap("sent");
}

// The critical path: backward from the end of the last rank (docs/root-causes.md), from
// one call it can leave through to the next.
void Analysis::walk(std::vector<Bytes>& cover) {
  const uint32_t N = d_.ranks();
  Records<JumpMsg> jumps = unpack<JumpMsg>(std::move(jumps_in_));
  // (a call can come twice: its waits are listed per kind; the longer one is tried first)
  // (sorted by their owners, which hold ascending blocks of ranks: the check is one pass)
  sort_unless_sorted(jumps.begin(), jumps.end(), jump_order);
  // From the latest MPI_Finalize back to MPI_Init, as Scalasca (from the latest last event
  // back to the first when some rank has no Finalize, or no Init)
  bool all_finalize = N > 0;
  for (uint32_t k = 0; k < N; ++k) all_finalize &= ranks_[k].finalize != kNone;
  auto end_of = [&](uint32_t k) { return all_finalize ? ranks_[k].finalize_enter : ranks_[k].end; };
  uint32_t r = 0;
  for (uint32_t k = 1; k < N; ++k)
    if (end_of(k) > end_of(r)) r = k;
  out_.path_start_rank = r;
  uint64_t cursor = all_finalize ? gbase_[r] + ranks_[r].finalize : gbase_[r + 1] - 1;
  int64_t arrival = end_of(r), length = 0;
  std::unordered_set<uint64_t> arrived;
  for (;;) {
    const RankCount& rk = ranks_[r];
    const uint64_t floor = rk.init == kNone ? gbase_[r] : gbase_[r] + rk.init + 1;  // lowest call to leave through
    auto it = std::lower_bound(jumps.begin(), jumps.end(), cursor, [](const JumpMsg& j, uint64_t g) { return j.gid < g; });
    const JumpMsg* out = nullptr;
    while (it != jumps.begin() && (it - 1)->gid >= floor) {
      const JumpMsg& j = *--it;
      if (j.target_enter <= j.resume && !arrived.count(j.target)) {
        out = &j;
        break;
      }
    }
    if (!out) {
      // the path ends with the whole MPI_Init, as scout's (CriticalPath.pattern "INIT": the
      // runtimes from Init's synchronisation point, its leave, hold the call itself)
      const int64_t begin = rk.init == kNone ? rk.start : rk.init_enter;
      const uint64_t init = gbase_[r] + rk.init;
      append(cover[owner_(r)], rk.init == kNone ? CoverMsg{0, cursor, -1}
                                                          : CoverMsg{init, cursor, rk.init_leave - rk.init_enter});
      out_.path.push_back({r, 0, double(begin) / res_, double(arrival) / res_});
      length += arrival - begin;
      break;
    }
    const int64_t resume = std::min(out->resume, out->leave);
    append(cover[owner_(r)], CoverMsg{out->gid, cursor, out->leave - resume});
    out_.path.push_back({r, 0, double(resume) / res_, double(arrival) / res_});
    length += arrival - resume;
    arrived.insert(out->target);
    cursor = out->target;
    r = rank_of_gid(cursor);
    arrival = out->target_enter;
  }
  out_.path_length_s = double(length) / res_;
}

void Analysis::finish() {
  uint64_t totals[3] = {fwd_.rc_waits.size(), with_delayer_, edges_};
  t_.sum(totals, 3);
  out_.wait_states = totals[0];
  out_.with_delayer = totals[1];
  out_.propagation_edges = totals[2];
  out_.unordered = unordered_;
  for (auto& [k, v] : causes_) out_.causes.push_back({k.pattern, k.cls, k.kind, k.cp, k.rank, k.wait_metahost, v.first, v.second});
  std::sort(out_.causes.begin(), out_.causes.end(), [](const CauseRow& a, const CauseRow& b) {
    return std::tie(a.pattern, a.cls, a.kind, a.cp, a.rank, a.wait_metahost) <
           std::tie(b.pattern, b.cls, b.kind, b.cp, b.rank, b.wait_metahost);
  });
}

}  // namespace gs::rootcause_detail
