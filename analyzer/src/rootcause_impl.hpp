// Private to the root-cause pass (rootcause.cpp: set-up, synchronisation points, driver;
// rootcause_delays.cpp: intervals, delay costs, wait classes; rootcause_collectives.cpp: the
// collectives' delay costs at the waiting owners; rootcause_path.cpp: the
// propagation graph, long-term costs and the critical path): its wire records, time maps
// and the Analysis class.
#pragma once
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <tuple>
#include <utility>
#include <vector>

#include <malloc.h>

#include "rootcause.hpp"
#include "sorting.hpp"

namespace gs::rootcause_detail {

// Delay groups, their delay metrics and wait-class metrics: patterns/patterns.toml
// (analyzer/generated/gs_patterns.hpp).
constexpr int kGroups = kDelayGroups;
constexpr int kCosts = kGroups * 2;   // x class of the wait finally caused (local, grid)

inline int group_of(uint16_t metric) { return metric < M_COUNT ? kDelayGroupOf[metric] : -1; }
enum WaitClass { DIRECT = 0, INDIRECT = 1, PROPAGATING = 2, TERMINAL = 3 };
inline uint16_t class_metric(WaitClass c, int group) { return kWaitClassMetric[c][group]; }

inline uint64_t name_hash(const std::string& s) {  // FNV-1a
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}
inline uint64_t mix(uint64_t h, uint64_t v) { return (h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull; }

// ---- wire records (plain structs, copied byte-wise)
// per rank: its calls, first and last event, MPI_Init's and MPI_Finalize's call (offsets in
// the rank's calls, kNone: none) with the Init's enter and the Finalize's enter
struct RankCount { uint32_t rank, init, finalize, pad; uint64_t calls; int64_t start, end, init_enter, init_leave, finalize_enter; };
// A wait state from another process, followed by `keys` KeyTicks (the waiting side's time
// map); a wait state of our own ranks has its map computed in place.
struct Request {
  uint64_t gid;                     // waiting call
  uint32_t q, p, index, pad;        // waiting rank, delayer rank, delayer record
  uint32_t w_local, wait_metahost;  // index in the waiting owner's rc_waits; q's metahost
  uint32_t keys;
  uint16_t metric;
  uint8_t cls, ref;
  int64_t ticks;
  double share;                     // this wait's part of its call's waiting
};
// One entry of a waiting side's time map: its call path at the sending process (kWanPart
// set: the WAN part of it), translated to ours on arrival (cp_from_).
#pragma pack(push, 4)
struct CpTicks { uint32_t cp; int64_t ticks; };
#pragma pack(pop)
constexpr uint32_t kWanPart = 0x80000000u;
// waiting owner -> delayer owner: the delayer's call synchronised with rank q; `call` (the
// waiting call at its owner) and `leave` (its leave) give both sides' completion times;
// `reply`: the waiting side needs the delayer call's leave back (Late Sender)
struct Notice { uint32_t ref, index, p, q, call, reply; int64_t leave; };
// delayer owner -> waiting owner: the leave of the delayer's call (INT64_MAX: no such call)
struct Back { uint32_t call, p, ref, pad; int64_t leave; };
// delayer owner -> waiting owner: the indirect part and where the critical path would move
struct Indirect { uint32_t w_local, wrec, src, pad; double ticks; uint64_t target; int64_t target_enter; };
// What a waiting owner keeps of each of its wait states from the delayer's side: 16 bytes.
// `via`: kNone, no delayer call; else, without kFar, the delayer's call here (its owner is
// this process, where the path would move is that call, its enter from the timeline); with
// kFar, the entry in far_replies_ of a delayer call at another process.
struct Reply { uint32_t wrec, via; double indirect; };
constexpr uint32_t kFar = 0x80000000u;
struct FarReply { uint64_t target; int64_t target_enter; uint32_t src, pad; };
// a wait state with a non-empty wait list of `list` ListEntry: they follow (back == 0), or
// an earlier message of the same sender holds them, ending back * 8 bytes before this one's
// end (the members of a collective that wait for one latecomer share its interval's list)
struct NodeMsg {
  uint64_t gid;
  uint32_t w_local, list;  // w_local: orders one call's wait states (they have one owner)
  uint8_t group, cls, pad[2];
  uint32_t back;
  double D, scale, share;
};
struct ListEntry { uint64_t gid; int64_t w; };
// 0 -> waiting owner: a call's inherited costs, the columns in `cols` only, followed by those doubles
struct NodeCostHead { uint64_t gid, cols; };
struct WaitCost { uint32_t wrec, pad; double c[kCosts]; };    // a wait state's inherited costs
// waiting owner -> delayer owner: a wait state's inherited costs, the non-zero ones only
// (`mask`), followed by those doubles; none when they sum to no positive total
struct CostHead { uint32_t wrec; uint16_t mask, pad; };
static_assert(kCosts <= 16, "a cost mask has 16 bits");
// A wait state's inherited costs at `at` (a CostHead and its doubles), the zeros the sender
// left out back in place.
inline WaitCost read_wait_cost(const char* at) {
  CostHead h;
  std::memcpy(&h, at, sizeof h);
  WaitCost m{};
  m.wrec = h.wrec;
  const char* v = at + sizeof h;
  for (int j = 0; j < kCosts; ++j)
    if (h.mask >> j & 1) { std::memcpy(&m.c[j], v, sizeof(double)); v += sizeof(double); }
  return m;
}
// waiting owner -> 0: a call the critical path can leave through (its longest wait with a
// known delayer) and where it would go; `resume`: the call's enter + that wait. Only those
// the path can take (target_enter <= resume) are sent: 40 bytes each.
struct JumpMsg { uint64_t gid, target; int64_t resume, leave, target_enter; };
// the order walk() reads them in: by call, then the latest resume (one call's jumps have one
// enter: the longest wait), then the target
inline bool jump_order(const JumpMsg& a, const JumpMsg& b) {
  return std::tie(a.gid, b.resume, a.target) < std::tie(b.gid, a.resume, b.target);
}
// 0 -> owner: the path covers rank's segments before calls (lo, hi] and calls (lo, hi)
// whole, and `lo_ticks` of call lo (lo_ticks < 0: no call lo, down to the rank's start)
struct CoverMsg { uint64_t lo, hi; int64_t lo_ticks; };

// ---- the collectives' wait states (rootcause_collectives.cpp): their costs at the waiting
// owners. Every process's part of these messages starts with a PartHead, even when empty.
struct PartHead { uint32_t src, n, m, pad; };  // n, m: the counts of the part's two kinds of records
// waiting owner -> delayer owner: a collective wait state's delayer record and waiting rank
struct CollReq { uint32_t q, p, index; uint8_t ref, pad[3]; };
// delayer owner -> waiting owner: a delayer interval, followed by its time map (nmap IvEntry)
// and its wait list (nwl ListEntry)
struct CollIv { uint64_t sp_gid; int64_t enter; uint32_t nmap, nwl; };
#pragma pack(push, 4)
struct IvEntry { uint32_t cp; int64_t plain, wan; };  // cp in the delayer owner's call paths (| kMpiPart)
#pragma pack(pop)
constexpr uint32_t kMpiPart = 0x40000000u;  // an MPI call's call path (the delay is communication)
// waiting owner -> delayer owner: one waiting rank's sum for one key (kind kSevKind: a
// severity's key: pattern = metric, cp, rank), and a wait-list call's largest propagating scale
constexpr uint8_t kSevKind = 0xff;
struct PartialMsg { uint16_t pattern; uint8_t cls, kind; uint32_t cp, rank, wait_metahost; double v; };
struct PropMsg { uint64_t gid; double scale; };
// What a waiting owner keeps of a collective wait state until its inherited costs come back:
// its delay entries (cdents_, in the delayer owner's call paths) from d_begin on
#pragma pack(push, 4)
struct CollRec { uint32_t d_begin, p, q; double D; uint16_t metric; uint8_t cls; };
#pragma pack(pop)
static_assert(sizeof(CollRec) == 24, "a collective's wait record stays at 24 bytes");
constexpr uint32_t kCollRec = 0x80000000u;  // a Reply's wrec that is a CollRec
constexpr size_t kNoList = SIZE_MAX;  // a wait list not sent to the graph yet

class Cursor {
 public:
  explicit Cursor(const Bytes& b) : begin_(b.data()), p_(b.data()), end_(b.data() + b.size()) {}
  bool done() const { return p_ >= end_; }
  size_t offset() const { return size_t(p_ - begin_); }  // of the next record in the buffer
  void skip(size_t bytes) {  // records read in place (at offset() before the skip)
    if (size_t(end_ - p_) < bytes) throw std::logic_error("root causes: truncated message");
    p_ += bytes;
  }
  template <class T>
  T get() {
    if (p_ + sizeof(T) > end_) throw std::logic_error("root causes: truncated message");
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
};

struct CauseKey {
  uint16_t pattern; uint8_t cls, kind; uint32_t cp, rank, wait_metahost;
  bool operator==(const CauseKey& o) const {
    return pattern == o.pattern && cls == o.cls && kind == o.kind && cp == o.cp && rank == o.rank &&
           wait_metahost == o.wait_metahost;
  }
};
struct CauseKeyHash {
  size_t operator()(const CauseKey& k) const { return of(k.pattern, k.cls, k.kind, k.cp, k.rank, k.wait_metahost); }
  static size_t of(uint16_t pattern, uint8_t cls, uint8_t kind, uint32_t cp, uint32_t rank, uint32_t wait_metahost) {
    return mix(mix(mix(cp, rank), wait_metahost), uint64_t(pattern) << 16 | cls << 8 | kind);
  }
};

// One waiting rank's sums per key (its collective wait states' costs), sent to the keys'
// owners when the next rank begins and added there in rank order: every total is summed in
// the same order at any -j, wherever its parts were computed.
class PartialSums {
 public:
  void add(const CauseKey& k, double v) {
    Slot& s = cache_[cache_slot<8>(CauseKeyHash{}(k))];
    if (!(s.value && s.key == k)) s = {k, &sums_[k]};
    *s.value += v;
  }
  template <class Out>
  void flush(Out&& out) {
    for (const auto& [k, v] : sums_) out(k, v);
    sums_.clear();
    for (Slot& s : cache_) s.value = nullptr;
  }

 private:
  struct Slot { CauseKey key{}; double* value = nullptr; };
  std::unordered_map<CauseKey, double, CauseKeyHash> sums_;
  Slot cache_[256];
};

// std::lower_bound by `key` over the sorted `v`, searched outward from `hint` (then set to
// the result): a rank's successive intervals start near each other, so most searches read
// a few neighbouring entries instead of log2(n) scattered ones.
template <class T, class Key>
size_t lower_bound_near(const std::vector<T>& v, uint32_t k, uint32_t& hint, Key key) {
  const size_t n = v.size();
  size_t h = std::min<size_t>(hint, n), lo, hi, step = 1;
  if (h < n && key(v[h]) < k) {  // past h: gallop up; everything before lo is < k
    lo = h + 1;
    while (lo + step - 1 < n && key(v[lo + step - 1]) < k) lo += step, step *= 2;
    hi = std::min(n, lo + step - 1);
  } else {  // at or before h: gallop down; v[hi] >= k (or hi == n)
    hi = h;
    while (hi >= step && key(v[hi - step]) >= k) hi -= step, step *= 2;
    lo = hi >= step ? hi - step + 1 : 0;
  }
  const size_t at = size_t(std::lower_bound(v.begin() + lo, v.begin() + hi, k,
                                            [&](const T& x, uint32_t c) { return key(x) < c; }) - v.begin());
  hint = uint32_t(at);
  return at;
}

// Sorts [first, last) by `less` (entries equal under it are alike) where it is
// at most `max_runs` ascending runs, by merging them pairwise (std::inplace_merge); returns
// false, leaving it as it was, where it is more. Records that arrive as a few sorted pieces
// (one per process, per kind of wait state, per side) merge in a few linear passes, where
// std::sort took n log n comparisons and fell into its heap sort on such patterns.
template <class It, class Less>
bool merge_runs(It first, It last, Less less, size_t max_runs) {
  std::vector<size_t> runs(1, 0);
  const size_t n = size_t(last - first);
  for (size_t i = 1; i < n; ++i)
    if (less(first[i], first[i - 1])) {
      if (runs.size() == max_runs) return false;
      runs.push_back(i);
    }
  runs.push_back(n);
  while (runs.size() > 2) {  // adjacent runs merged pairwise until one is left
    size_t k = 0;
    for (size_t j = 0; j + 2 < runs.size(); j += 2, ++k) {
      std::inplace_merge(first + runs[j], first + runs[j + 1], first + runs[j + 2], less);
      runs[k] = runs[j];
    }
    if (runs.size() % 2 == 0) runs[k++] = runs[runs.size() - 2];
    runs[k++] = runs.back();
    runs.resize(k);
  }
  return true;
}

// Tuning knob: with GRIDSCOPE_RC_TIMING set, the pass prints its phases' times and its
// memory on stderr.
inline bool rc_timing() {
  static const bool on = std::getenv("GRIDSCOPE_RC_TIMING") != nullptr;
  return on;
}
// The process's resident memory now, in MB (/proc/self/statm; 0 where unreadable).
inline long resident_mb() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * 4096 / 1048576;
}
// The steps inside a phase (with rc_timing): each one's wall time since the one before,
// as "   [process] TAG step: S s".
class StepTimer {
 public:
  StepTimer(int me, const char* tag) : me_(me), tag_(tag) {}
  void operator()(const char* step) {
    if (!rc_timing()) return;
    const auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "   [%d] %s %s: %.3f s\n", me_, tag_, step, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  int me_;
  const char* tag_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Memory at a point inside a phase (with rc_timing): resident, and the heap's use.
inline void report_memory(const char* what) {
  if (!rc_timing()) return;
  const struct mallinfo2 mi = mallinfo2();
  std::fprintf(stderr, "   rss %s: %ld MB (heap %zu MB in use, %zu free; large blocks: %zu MB kept in %zu runs)\n", what,
               resident_mb(), mi.uordblks >> 20, mi.fordblks >> 20, pages::kept_bytes() >> 20, pages::kept_runs());
}

// A time map over call paths (and their WAN parts), dense by process-local call path.
class TimeMap {
 public:
  explicit TimeMap(size_t cps) : plain_(cps, 0), wan_(cps, 0), seen_(cps, 0) {}
  void add(uint32_t cp, bool wan, int64_t v) {
    if (v == 0) return;
    if (!seen_[cp]) { seen_[cp] = 1; touched_.push_back(cp); }
    (wan ? wan_ : plain_)[cp] += v;
  }
  void clear() {
    for (uint32_t cp : touched_) { plain_[cp] = wan_[cp] = 0; seen_[cp] = 0; }
    touched_.clear();
  }
  const std::vector<uint32_t>& touched() const { return touched_; }
  // The whole state (values in first-touch order) after `out`'s, to be read again in place.
  struct Entry { uint32_t cp; int64_t plain, wan; };
  void save_append(std::vector<Entry>& out) const {
    for (uint32_t cp : touched_) out.push_back({cp, plain_[cp], wan_[cp]});
  }
  int64_t at(uint32_t cp, bool wan) const { return (wan ? wan_ : plain_)[cp]; }

 private:
  std::vector<int64_t> plain_, wan_;
  std::vector<uint8_t> seen_;
  std::vector<uint32_t> touched_;
};

// A delay entry: 12 bytes (packed, the WAN flag in the call path's top bit), millions of
// them are kept until the long-term costs come back.
#pragma pack(push, 4)
struct DEntry { uint32_t cp : 31, wan : 1; int64_t d; };
#pragma pack(pop)
static_assert(sizeof(DEntry) == 12, "a delay entry stays at 12 bytes");
// What a delayer owner keeps of a wait state until its inherited costs come back; its delay
// entries run from d_begin to the next record's (dents_end).
struct WRec {
  uint32_t d_begin;
  uint32_t sp;  // the delayer's call
  double D;
  uint32_t wait_metahost;  // the waiting rank's metahost
  uint16_t metric;
  uint8_t cls;
};
static_assert(sizeof(WRec) == 24, "a wait record stays at 24 bytes");

class Analysis {
 public:
  Analysis(const Defs& d, const LocalData& data, const ReplayResult& fwd, Transport& t, const std::vector<uint32_t>& mine)
      : d_(d), data_(data), tl_(data.timeline), fwd_(fwd), t_(t), mine_(mine), P_(t.size()), me_(t.rank()),
        res_(double(d.resolution)), owner_(d.ranks(), P_), ncp_(data.tree.nodes.size()), tp_(ncp_), tq_(ncp_) {
    // per block of 2^kRankBlockBits calls: the slot of its first call's rank
    const std::vector<uint32_t>& first = data.timeline.rank_first;
    slot_at_block_.resize((data.timeline.calls.size() >> kRankBlockBits) + 1);
    for (size_t b = 0, s = 0; b < slot_at_block_.size(); ++b) {
      while (s + 1 < first.size() && first[s + 1] <= (b << kRankBlockBits)) ++s;
      slot_at_block_[b] = uint32_t(s);
    }
  }

  RootCauseResult run();

 private:
  void setup();
  void translate_call_paths();

  void wan_sources();

  size_t slot_of(uint32_t rank) const { return rank - mine_[0]; }
  uint32_t rank_end(size_t slot) const {
    return slot + 1 < mine_.size() ? tl_.rank_first[slot + 1] : uint32_t(tl_.calls.size());
  }
  // The owned rank of call c: the calls lie rank after rank (rank_first, ascending). From the
  // rank of its block of calls on (a call's rank is asked millions of times: a search over
  // a thousand ranks each time was ten steps).
  static constexpr uint32_t kRankBlockBits = 10;
  uint32_t rank_of(uint32_t c) const {
    size_t s = slot_at_block_[c >> kRankBlockBits];
    while (s + 1 < tl_.rank_first.size() && tl_.rank_first[s + 1] <= c) ++s;
    return mine_[0] + uint32_t(s);
  }
  bool call_of(uint32_t c, uint32_t rank) const {  // c is a call of `rank` (an owned rank or not)
    const size_t s = size_t(rank) - mine_[0];
    return rank >= mine_[0] && s < mine_.size() && c >= tl_.rank_first[s] && c < rank_end(s);
  }
  uint64_t gid_of(uint32_t c) const {
    const uint32_t r = rank_of(c);
    return gbase_[r] + (c - tl_.rank_first[slot_of(r)]);
  }
  uint32_t rank_of_gid(uint64_t gid) const {
    return uint32_t(std::upper_bound(gbase_.begin(), gbase_.end(), gid) - gbase_.begin()) - 1;
  }
  uint32_t local_of(uint64_t gid) const {
    const uint32_t r = rank_of_gid(gid);
    return uint32_t(tl_.rank_first[slot_of(r)] + (gid - gbase_[r]));
  }

  // A call's waiting (the sum of its wait states' ticks) and WAN excess: only calls with a
  // wait state or a WAN excess have them, through aux_of_ (4 B per call, not 28).
  int64_t wait_of(uint32_t c) const { const uint32_t a = aux_of_[c]; return a == kNone ? 0 : aux_wait_[a]; }
  int64_t wan_of(uint32_t c) const { const uint32_t a = aux_of_[c]; return a == kNone || aux_wan_.empty() ? 0 : aux_wan_[a]; }

  void synchronisations();
  // The waiting call's completion time of a point-to-point synchronisation: own leave − the
  // delayer's call's leave, ≥ 0. A Late Receiver's is never positive in scout (the comparison
  // in its MPI.pattern is inverted): min(0, ·) under scout's rules, and a negative one takes
  // time from the next interval; 0 under ours (docs/root-causes.md).
  int64_t waiting_completion(uint32_t ref, int64_t own_leave, int64_t delayer_leave) const {
    if (ref == REF_RECV_POST) return fwd_.rules == Rules::Scalasca ? std::min<int64_t>(0, own_leave - delayer_leave) : 0;
    return std::max<int64_t>(0, own_leave - delayer_leave);
  }
  // whether the waiting side needs the delayer's leave for its completion time
  bool needs_delayer_leave(uint32_t ref) const {
    return ref == REF_SEND || (ref == REF_RECV_POST && fwd_.rules == Rules::Scalasca);
  }
  void synchronised(uint32_t call, uint32_t peer, int64_t completion) {
    peer_calls_[uint64_t(rank_of(call)) << 32 | peer].push_back({call, completion});
  }
  // A collective's synchronisation of `call` with `peer`, unless the call is a group call
  // holding peer: that one starts the same intervals, with the same completion (an interval
  // search finds the group call where it would have found the peer's entry; fewer entries,
  // 12 B each, fewer to sort and search).
  void synchronised_coll(uint32_t call, uint32_t peer) {
    if (!group_call_with(call, peer)) synchronised(call, peer, call_completion_[call]);
  }
  // whether `call` synchronised as a whole a group holding `peer` (while group_comm_ is held)
  bool group_call_with(uint32_t call, uint32_t peer) const {
    return group_comm_[call] != kNone && group_holds(group_comm_[call], peer);
  }
  // the delayer's call (kNone: none), registered as synchronised with q
  uint32_t add_delayer_sync(uint8_t ref, uint32_t index, uint32_t p, uint32_t q, int64_t wait_leave) {
    const uint32_t sp = delayer_call(ref, index);
    if (sp == kNone || !call_of(sp, p)) return kNone;
    if (ref == REF_COLL) synchronised_coll(sp, q);
    else synchronised(sp, q, std::max<int64_t>(0, tl_.calls[sp].leave - wait_leave));
    return sp;
  }
  // A call that synchronised a group as a whole, with what an interval starting in it needs
  // (kept together: the interval search reads them without touching per-call arrays).
  struct GroupCall { uint32_t call, comm; int64_t completion; };
  bool group_holds(uint32_t comm, uint32_t other) const {
    if (comm == kAllRanks) return true;
    if (comm == kNone) return false;
    if (comm & kSyncSetFlag) {
      const std::vector<uint32_t>& set = fwd_.sync_sets[comm & ~kSyncSetFlag];
      return std::binary_search(set.begin(), set.end(), other);
    }
    return d_.comms[comm].position.count(other) > 0;
  }

  // Where an interval starts: at call `start`, inside call `from` (kNone: the rank's start),
  // whose completion time it keeps.
  struct IntervalStart {
    uint32_t start, from;
    int64_t completion;
    bool operator==(const IntervalStart& o) const { return start == o.start && from == o.from && completion == o.completion; }
  };
  // (group_hint: where the search of b's rank's group calls starts, then where it ended;
  // none: group_hint_'s)
  IntervalStart interval_start(uint32_t b, uint32_t other, uint32_t* group_hint = nullptr);
  void interval_fill(uint32_t b, const IntervalStart& s, TimeMap& map, std::vector<std::pair<uint32_t, int64_t>>* waits) const;
  void interval(uint32_t b, uint32_t other, TimeMap& map, std::vector<std::pair<uint32_t, int64_t>>* waits) {
    interval_fill(b, interval_start(b, other), map, waits);
  }
  uint32_t delayer_call(uint8_t ref, uint32_t index) const {
    const std::vector<uint32_t>* v = ref == REF_SEND        ? &tl_.send_call
                                     : ref == REF_RECV_POST ? &tl_.recv_post_call
                                                            : &fwd_.coll_position_call;
    return index < v->size() ? (*v)[index] : kNone;
  }

  void delays();

  // ---- the collectives' wait states: their delay costs at the waiting owners
  // (rootcause_collectives.cpp). A collective's wait states are all charged to its latecomer,
  // so at the latecomer's owner they were one process's work; there only their intervals are
  // found, sent to the waiting owners, which compute the costs and send each waiting rank's
  // sums back.
  struct CollWait { uint64_t gid; uint32_t idx, pos; };  // pos: its request's at the delayer owner
  void coll_request(const RcWait& w, uint32_t i, uint32_t q, std::vector<Bytes>& out);
  std::vector<Bytes> coll_intervals(const Bytes& requests);
  void coll_costs(const Bytes& intervals, Bytes& graph0, std::vector<Bytes>& sums);
  void coll_sums_in(const Bytes& in, bool long_term);
  std::vector<Bytes> coll_long_costs(const Bytes& wait_costs, const std::vector<size_t>& cost_at);
  // psum_'s sums to their owners' parts (PartialMsg records; PartHead.n counted)
  void flush_partials(std::vector<Bytes>& parts);
  // each process's part of a message begun with our PartHead, its counts 0
  void open_parts(std::vector<Bytes>& parts) const;
  std::vector<CollWait> coll_waits_;
  std::vector<DEntry> cdents_;  // (cp | kMpiPart)
  size_t cdents_end(size_t r) const { return r + 1 < crecs_.size() ? crecs_[r + 1].d_begin : cdents_.size(); }
  std::vector<CollRec> crecs_;
  PartialSums psum_;
  // per process: our call paths -> theirs with the same chain of region names (the first of
  // equal chains, as cp_from_ there); the waiting side's map in the delayer owner's terms
  // (tt_, as large as the most call paths of a process)
  std::vector<std::vector<uint32_t>> cp_to_;
  TimeMap tt_{0};

  // The cause cache compares a key's fields as they are and makes the key only on a miss (as
  // SevCache); a delay entry and a wait record are written field by field into their arrays:
  // a struct made on the stack with narrow stores and read back with wide loads (a
  // comparison, a copy) stalled on store forwarding, several per request.
  std::pair<double, double>& cause(uint16_t metric, uint8_t cls, const DEntry& e, uint32_t p, uint32_t wait_mh) {
    const uint8_t kind = e.wan ? KIND_WAN : cp_mpi_[e.cp] ? KIND_COMMUNICATION : KIND_COMPUTATION;
    const uint32_t cp = e.cp;
    CauseSlot& s = cause_cache_[cache_slot<8>(CauseKeyHash::of(metric, cls, kind, cp, p, wait_mh))];
    const CauseKey& k = s.key;
    if (!(s.value && k.cp == cp && k.rank == p && k.wait_metahost == wait_mh && k.pattern == metric && k.cls == cls &&
          k.kind == kind)) {
      const CauseKey key{metric, cls, kind, cp, p, wait_mh};
      s = {key, &causes_[key]};
    }
    return *s.value;
  }
  void add_sev(uint16_t metric, uint8_t cls, uint32_t cp, uint32_t rank, double v) {
    if (v != 0) sev_cache_.at(out_.severities, metric, cls, 0, cp, rank) += v;  // (master locations only)
  }
  // a collective's delay entry (cp | kMpiPart, in its delayer owner's call paths): its kind
  static uint8_t coll_kind(const DEntry& e) {
    return e.wan ? KIND_WAN : e.cp & kMpiPart ? KIND_COMMUNICATION : KIND_COMPUTATION;
  }
  // The delay entries of one delayer-map entry (`plain`, `wan`) against the waiting side's
  // map `q` at call path `cp`, kept as `tag` (their call path, with what it carries), added
  // to `dsum`. Written field by field (as the wait records).
  static void add_dents(std::vector<DEntry>& out, uint32_t tag, int64_t plain, int64_t wan, const TimeMap& q, uint32_t cp,
                        double& dsum) {
    for (const bool is_wan : {false, true})
      if (int64_t dv = (is_wan ? wan : plain) - q.at(cp, is_wan); dv > 0) {
        DEntry& e = out.emplace_back();
        e.cp = tag; e.wan = is_wan; e.d = dv;
        dsum += double(dv);
      }
  }
  // A wait state's message to the propagation graph (process 0, in `graph0`), its wait list
  // behind it (`put_list` appends it), or referred back to where `list_end` says it was sent
  // already (kNoList: not yet; the members of a collective that wait for one latecomer, the
  // requests of one delayer call that start alike, share one interval's list).
  template <class PutList>
  void to_graph(Bytes& graph0, NodeMsg nm, size_t& list_end, PutList&& put_list) {
    const size_t end = graph0.size() + sizeof nm;
    if (list_end != kNoList && (end - list_end) / 8 > UINT32_MAX) list_end = kNoList;  // (sent anew)
    if (list_end != kNoList) nm.back = uint32_t((end - list_end) / 8);
    append(graph0, nm);
    if (list_end == kNoList) {
      put_list();
      list_end = graph0.size();
    }
    edges_ += nm.list;
  }
  // Waits (each with gid, its call's global id, and idx, its index at the waiting owner) in
  // call order, each call's in its owner's order: the order every sum over them runs in. They
  // are listed per kind in call order, a few runs merged.
  template <class T>
  void sort_in_call_order(std::vector<T>& v) const {
    auto less = [](const T& a, const T& b) { return std::tie(a.gid, a.idx) < std::tie(b.gid, b.idx); };
    if (!merge_runs(v.begin(), v.end(), less, 16))
      sort_by_gid(v.data(), v.size(), gbase_[d_.ranks()], [](const T& x) { return x.gid; }, less);
  }

  void classes();

  void jumps();

  void graph_and_path();

  void solve(std::vector<Bytes>& node_costs);

  void walk(std::vector<Bytes>& cover);
  // the process that walks the critical path: the last, so that with 2+ processes it walks
  // while process 0 solves (the path itself then goes to process 0 with the covered stretches)
  int walker() const { return P_ - 1; }

  void finish();

  const Defs& d_;
  const LocalData& data_;
  const Timeline& tl_;
  const ReplayResult& fwd_;
  Transport& t_;
  const std::vector<uint32_t>& mine_;
  const int P_, me_;
  const double res_;
  const RankOwners owner_;
  const size_t ncp_;
  TimeMap tp_, tq_;
  std::vector<uint32_t> slot_at_block_;  // rank_of's
  std::vector<uint8_t> cp_mpi_;
  // per process: its call paths -> ours with the same chain of region names (kNone: none
  // here); call-path ids are per process
  std::vector<std::vector<uint32_t>> cp_from_;
  std::vector<uint64_t> gbase_;
  std::vector<RankCount> ranks_;  // every rank's
  // (rank << 32 | peer) -> its calls that synchronised with peer, with their completion times
  // (collected in peer_calls_, 12 bytes an entry; then sorted in place and moved to `sync` in
  // peer_syncs_, found through peers_: a search in a rank's few peers, not a hash per interval)
#pragma pack(push, 4)
  struct PeerSync {
    uint32_t call;
    int64_t completion;
    bool operator<(const PeerSync& o) const { return call != o.call ? call < o.call : completion < o.completion; }
  };
#pragma pack(pop)
  struct PeerCalls {
    std::vector<PeerSync> sync;
    uint32_t hint = 0;
  };
  // (while the synchronisations are collected)
  std::unordered_map<uint64_t, std::vector<PeerSync>> peer_calls_;
  struct PeerIndex {
    uint32_t peer, index;  // into peer_syncs_
    bool operator<(const PeerIndex& o) const { return peer < o.peer; }
  };
  std::vector<std::vector<PeerIndex>> peers_;  // per owned rank, by peer
  std::vector<PeerCalls> peer_syncs_;
  std::vector<std::vector<GroupCall>> group_calls_;  // per owned rank: barriers, N-to-N groups, Init, Finalize
  std::vector<uint32_t> group_hint_;                 // per owned rank: where its last interval search ended
  // per call, while the synchronisations are collected: the communicator it synchronised
  // as a whole (kNone) and its completion time as a collective or MPI_Init
  std::vector<uint32_t> group_comm_;
  std::vector<int64_t> call_completion_;
  // per call: its entry in the aux_ vectors (kNone: no wait state, no WAN excess); the calls
  // with a wait state are numbered in call order first, those with only a WAN excess follow
  std::vector<uint32_t> aux_of_;
  std::vector<int64_t> aux_wait_;      // the call's waiting: the sum of its wait states' ticks
  std::vector<int64_t> aux_wan_;       // its WAN excess (0: none; empty: no call has one)
  std::vector<uint32_t> aux_wan_from_; // the metahost its largest WAN excess came from (setup only)
  std::vector<double> prop_max_;  // per aux entry on some wait list: the largest scale (else 0)
  std::vector<Reply> replies_;  // per rc_waits entry
  std::vector<FarReply> far_replies_;  // those of delayer calls at other processes
  uint32_t reply_src(const Reply& r) const { return r.via & kFar ? far_replies_[r.via & ~kFar].src : uint32_t(me_); }
  std::vector<DEntry> dents_;
  size_t dents_end(size_t wrec) const { return wrec + 1 < wrecs_.size() ? wrecs_[wrec + 1].d_begin : dents_.size(); }
  std::vector<WRec> wrecs_;
  std::unordered_map<CauseKey, std::pair<double, double>, CauseKeyHash> causes_;
  Bytes graph_in_, jumps_in_;
  uint64_t with_delayer_ = 0, edges_ = 0, unordered_ = 0;
  RootCauseResult out_;
  struct CauseSlot { CauseKey key{}; std::pair<double, double>* value = nullptr; };
  CauseSlot cause_cache_[256];
  SevCache sev_cache_;
};

}  // namespace gs::rootcause_detail
