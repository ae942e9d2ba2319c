#include "replay.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <tuple>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/matching.hpp"
#include "pattern_math.hpp"
#include "replay_impl.hpp"
#include "sorting.hpp"

namespace gs {
namespace {

using replay_detail::Accumulator;

// `index`: the send's position in its owner's records, so the receive side's match can be
// sent back instead of being computed again from the other end.
struct SendMsg { uint32_t src, dst, comm, tag, index, pad; int64_t enter, evt; uint64_t bytes; };
// when a send's receive was posted; `recv`: that receive's position in its owner's records
struct PostMsg { uint32_t index, recv; int64_t req_enter; };



// Position of matched send i in its owner's records.
uint32_t send_index(const SendRecords&, size_t i) { return uint32_t(i); }
template <class SendList>
uint32_t send_index(const SendList& sends, size_t i) { return sends.index(i); }

// Receiver side: Late Sender, Wrong Order, transfer statistics, clock violations.
// `sends` holds the matched-to records (any type with src, dst, comm, tag, enter, evt).
// Calls matched(k, i) for each receive k matched to send i of `sends`, as it reads the
// receive (a second pass over the receives for it read every record again).
// A receive-completing call that waited for a sender (a Late Sender candidate, Scalasca's
// LATE_SENDER_CANDIDATE): its rank, thread and enter. Late Receiver leaves such a multiple
// wait alone (sender_side).
struct CallKey {
  uint32_t rank, thread;
  int64_t enter;
  bool operator<(const CallKey& o) const { return std::tie(rank, thread, enter) < std::tie(o.rank, o.thread, o.enter); }
};

template <class SendList, class Matched>
void receiver_side(const Defs& d, LocalData& data, const SendList& sends, ReplayResult& res, Accumulator& acc,
                   std::vector<CallKey>& ls_calls, Matched matched) {
  // (sends.channel: an id in the receives' channel table, which holds the own sends' too)
  std::vector<uint32_t> partner = match_channels(
      data.recvs.channels().size(), data.recvs.size(), [&](size_t i) { return data.recvs.channel(i); }, sends.size(),
      [&](size_t i) { return sends.channel(i); }, &res.counters.unmatched_sends, data.recv_order);

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
  constexpr size_t kAhead = 48;  // (8 ahead left a third of the misses: point_to_point 278 -> 229 samples)
  for (size_t k = 0; k < std::min(kAhead, recvs.size()); ++k)
    if (partner[k] != kNone) sends.prefetch(partner[k]);
  for (size_t i = 0; i < recvs.size();) {
    // One receive-completing region instance (a Waitall may complete several receives).
    size_t j = i + 1;
    while (j < recvs.size() && recvs[j].same_call) ++j;
    const uint32_t dst = recvs[i].dst;
    if (dst != current_dst) {
      if (current_dst != kNone) replay_detail::check_rank_order(current_dst, dst);
      flush();
      current_dst = dst;
    }
    int64_t best = 0;
    size_t best_k = j;
    for (size_t k = i; k < j; ++k) {
      const RecvRec r = recvs[k];
      if (k + kAhead < recvs.size() && partner[k + kAhead] != kNone) sends.prefetch(partner[k + kAhead]);
      if (partner[k] == kNone) { res.counters.unmatched_receives++; continue; }
      matched(k, partner[k]);
      const auto s = sends[partner[k]];
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
        res.recv_transfer.push_back({uint32_t(k), r.src, r.dst, 0, std::max<int64_t>(0, r.evt - std::max(s.evt, r.enter))});
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
      const RecvRec r = recvs[best_k];
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
}

// Sender side: Late Receiver, as Scalasca's scout charges it (MPI.pattern,
// MPI_LATERECEIVER): by the region that completes the send. A blocking standard or
// synchronous send and a single wait (MPI_Wait, MPI_Waitany) are charged each send's
// waiting; a multiple wait (MPI_Waitall, MPI_Waitsome) only the largest over the sends it
// completes, and nothing at all when it also completed a receive that waited for its
// sender (`ls_calls`: the Late Sender candidates). MPI_Sendrecv, MPI_Test* and the
// blocking buffered/ready sends are not charged. Where the rules differ (rules.hpp):
// scout charges a wait completing MPI_Ibsend/MPI_Irsend like any other; gridscope's rules
// only standard and synchronous sends. A multiple wait with a send that no receive matched
// is charged the largest over the matched ones (scout does not finish on such a trace).
// `posted[k]`: when the receive matched to send k was posted (kUnposted: none matched).
constexpr int64_t kUnposted = INT64_MIN;
enum LrCall : uint8_t { LR_NONE = 0, LR_SINGLE = 1, LR_MULTI = 2 };
LrCall lr_call(const std::string& name) {
  if (name == "MPI_Send" || name == "MPI_Ssend" || name == "MPI_Wait" || name == "MPI_Waitany") return LR_SINGLE;
  if (name == "MPI_Waitall" || name == "MPI_Waitsome") return LR_MULTI;
  return LR_NONE;
}
// `post_recv[k]`: that receive's position at its owner (root causes; empty without).
void sender_side(const Defs& d, const LocalData& data, const std::vector<int64_t>& posted,
                 const std::vector<uint32_t>& post_recv, std::vector<CallKey> ls_calls, ReplayResult& res,
                 Accumulator& acc) {
  const bool scalasca = res.rules == Rules::Scalasca;
  sort_unless_sorted(ls_calls.begin(), ls_calls.end(), std::less<CallKey>());
  std::vector<uint8_t> kind_of(data.tree.nodes.size(), 0xff);  // LrCall by completion call path, when looked up
  auto kind = [&](uint32_t cp) {
    if (kind_of[cp] == 0xff) kind_of[cp] = lr_call(d.regions[data.tree.nodes[cp].region].name);
    return LrCall(kind_of[cp]);
  };
  // One rank at a time (the sends are grouped by rank): its sends completed by multiple
  // waits are grouped by their call with a sort of flat records (a map node per send cost
  // 9 % of a collective-heavy analysis), and the buffers hold one rank's sends, not all.
  struct MultiSend { int64_t enter; uint32_t k; Thread thread; };
  std::vector<MultiSend> multi;
  std::vector<int64_t> lr;
  const auto& sends = data.sends;
  auto ls = ls_calls.begin();  // the Late Sender calls of the rank at hand (both go by rank)
  for (size_t first = 0, end; first < sends.size(); first = end) {
    const uint32_t rank = sends[first].src;
    if (first > 0) replay_detail::check_rank_order(sends[first - 1].src, rank);
    // (found by a search, not a scan: a scan read every record once more, a quarter of the
    // pass; the loop below checks that each record is the rank's)
    end = first + 1;
    for (size_t count = sends.size() - end; count > 0;) {  // the first record of a later rank
      const size_t half = count / 2;
      if (sends[end + half].src <= rank) { end += half + 1; count -= half + 1; }
      else count = half;
    }
    lr.assign(end - first, 0);
    multi.clear();
    for (size_t k = first; k < end; ++k) {
      const SendRec s = sends[k];
      if (s.src != rank) replay_detail::fail_rank_order();
      if (posted[k] == kUnposted || !s.complete || !(s.lr_ok || scalasca)) continue;
      const LrCall c = kind(s.cp_complete);
      if (c == LR_NONE) continue;
      const int64_t v = late_receiver(posted[k], s.c_enter, s.c_leave);
      lr[k - first] = v;
      if (c == LR_MULTI && v > 0) multi.push_back({s.c_enter, uint32_t(k), s.thread});
    }
    auto same_call = [](const MultiSend& a, const MultiSend& b) { return a.thread == b.thread && a.enter == b.enter; };
    sort_unless_sorted(multi.begin(), multi.end(), [](const MultiSend& a, const MultiSend& b) {
      return std::tie(a.thread, a.enter, a.k) < std::tie(b.thread, b.enter, b.k);
    });
    // the multiple waits and the Late Sender calls both in (rank, thread, enter) order: one walk
    for (size_t i = 0, j; i < multi.size(); i = j) {
      uint32_t best = multi[i].k;  // the first of the largest
      for (j = i + 1; j < multi.size() && same_call(multi[i], multi[j]); ++j)
        if (lr[multi[j].k - first] > lr[best - first]) best = multi[j].k;
      const CallKey call{rank, multi[i].thread, multi[i].enter};
      while (ls != ls_calls.end() && *ls < call) ++ls;
      const bool candidate = ls != ls_calls.end() && !(call < *ls);
      for (size_t x = i; x < j; ++x)
        if (candidate || multi[x].k != best) lr[multi[x].k - first] = 0;
    }
    for (size_t k = first; k < end; ++k) {
      const int64_t v = lr[k - first];
      if (v <= 0) continue;
      const SendRec s = sends[k];
      const bool grid = d.rank_metahost[s.src] != d.rank_metahost[s.dst];
      acc.add(M_LATE_RECEIVER, grid, s.cp_complete, s.src, s.thread, s.c_enter, v);
      if (data.timeline.enabled && data.timeline.send_done_call[k] != kNone)
        res.rc_waits.push_back({data.timeline.send_done_call[k], M_LATE_RECEIVER, uint8_t(grid ? CLS_GRID : CLS_LOCAL),
                                REF_RECV_POST, s.dst, post_recv[k], v});
    }
  }
}

// The sends a receivers' owner matches against: the sends of its own ranks to its own
// ranks, read in place, then the records the other processes sent (a channel's sends are
// all in one of the two parts, in posting order).
class SendsSeen {
 public:
  struct View { uint32_t src, dst, comm, tag; int64_t enter, evt; uint64_t bytes; };
  SendsSeen(const SendRecords& own, std::vector<uint32_t> own_index, Records<SendMsg> remote)
      : own_(own), own_index_(std::move(own_index)), remote_(std::move(remote)) {}
  size_t size() const { return own_index_.size() + remote_.size(); }
  View operator[](size_t i) const {
    if (is_own(i)) {
      const SendRec s = own_[own_index_[i]];
      return {s.src, s.dst, s.comm, s.tag, s.enter, s.evt, s.bytes};
    }
    const SendMsg& m = remote_[i - own_index_.size()];
    return {m.src, m.dst, m.comm, m.tag, m.enter, m.evt, m.bytes};
  }
  bool is_own(size_t i) const { return i < own_index_.size(); }
  void prefetch(size_t i) const {
    if (is_own(i)) own_.prefetch(own_index_[i]);
    else __builtin_prefetch(&remote_[i - own_index_.size()]);
  }
  // position of send i in its owner's records
  uint32_t index(size_t i) const { return is_own(i) ? own_index_[i] : remote_[i - own_index_.size()].index; }
  // send i's channel id in the table of the own records (kNone: no receive here has it)
  uint32_t channel(size_t i) const {
    return is_own(i) ? own_.channel(own_index_[i]) : own_.channels().find(chan(remote_[i - own_index_.size()]));
  }

 private:
  const SendRecords& own_;
  std::vector<uint32_t> own_index_;
  Records<SendMsg> remote_;
};

void point_to_point(const Defs& d, LocalData& data, Transport& t, ReplayResult& res, Accumulator& acc,
                    WaitWriter& waits) {
  const int P = t.size();
  const uint32_t N = d.ranks();
  std::vector<int64_t> posted(data.sends.size(), kUnposted);
  const bool rc = data.timeline.enabled;  // post_recv only for root causes (11 MB of fresh pages on the reference row)
  std::vector<uint32_t> post_recv(rc ? data.sends.size() : 0, kNone);
  std::vector<CallKey> ls_calls;  // (at most one per receive: reserved, its pages touched only as written)
  ls_calls.reserve(data.recvs.size());
  if (P == 1) {  // everything is local: match against our own records, no copies
    receiver_side(d, data, data.sends, res, acc, ls_calls, [&](size_t k, uint32_t i) {
      posted[i] = data.recvs[k].req_enter;
      if (rc) post_recv[i] = uint32_t(k);
    });
    waits.end_phase(PHASE_RECEIVER);
    sender_side(d, data, posted, post_recv, std::move(ls_calls), res, acc);
    waits.end_phase(PHASE_LATE_RECEIVER);
    return;
  }
  // Senders tell the receivers' owners when each send started ...
  // (buffers sized exactly first: growing them would copy and touch fresh pages twice)
  const uint32_t me = t.rank();
  const RankOwners owner(N, P);
  std::vector<Bytes> out(P);
  std::vector<size_t> count(P, 0);
  for (size_t k = 0; k < data.sends.size(); ++k) count[owner(data.sends[k].dst)]++;
  std::vector<uint32_t> own;
  own.reserve(count[me]);
  for (int p = 0; p < P; ++p)
    if (uint32_t(p) != me) out[p].reserve(count[p] * sizeof(SendMsg));
  for (size_t k = 0; k < data.sends.size(); ++k) {
    const SendRec s = data.sends[k];
    const uint32_t p = owner(s.dst);
    if (p == me) own.push_back(k);
    else append(out[p], SendMsg{s.src, s.dst, s.comm, s.tag, uint32_t(k), 0, s.enter, s.evt, s.bytes});
  }
  SendsSeen sends(data.sends, std::move(own), unpack<SendMsg>(t.exchange(out)));
  // ... and the receivers' owners tell the senders' owners when the matched receive was posted.
  receiver_side(d, data, sends, res, acc, ls_calls, [&](size_t k, uint32_t i) {
    if (sends.is_own(i)) {
      posted[sends.index(i)] = data.recvs[k].req_enter;
      if (rc) post_recv[sends.index(i)] = uint32_t(k);
    } else {
      append(out[owner(data.recvs[k].src)], PostMsg{sends.index(i), uint32_t(k), data.recvs[k].req_enter});
    }
  });
  waits.end_phase(PHASE_RECEIVER);
  for (const PostMsg& m : unpack<PostMsg>(t.exchange(out))) {
    posted[m.index] = m.req_enter;
    if (rc) post_recv[m.index] = m.recv;
  }
  sender_side(d, data, posted, post_recv, std::move(ls_calls), res, acc);
  waits.end_phase(PHASE_LATE_RECEIVER);
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
}

WaitWriter::~WaitWriter() {
  for (FILE* f : files_)
    if (f) std::fclose(f);
}

namespace {
template <class T>
bool write_column(FILE* f, const std::vector<T>& column, size_t n) {
  return std::fwrite(column.data(), sizeof(T), n, f) == n;
}
}  // namespace

void WaitWriter::flush() {
  if (!files_[0]) {
    for (size_t i = 0; i < n_; ++i) kept.push_back({metric_[i], cls_[i], 0, cp_[i], rank_[i], 0, start_[i], end_[i]});
  } else if (n_ > 0) {
    bool ok = write_column(files_[0], start_, n_);
    ok &= write_column(files_[1], end_, n_);
    ok &= write_column(files_[2], cp_, n_);
    ok &= write_column(files_[3], rank_, n_);
    ok &= write_column(files_[4], metric_, n_);
    ok &= write_column(files_[5], cls_, n_);
    if (!ok) failed_ = true;
    on_disk_ += n_;
    if (report_) say_rows();
  }
  n_ = 0;
}

void WaitWriter::report_rows() {
  report_ = files_[0] != nullptr;
  if (report_) say_rows();
}

void WaitWriter::say_rows() {
  for (FILE* f : files_)
    if (std::fflush(f) != 0) failed_ = true;
  if (failed_) return;  // (close() reports it)
  std::printf("gridscope-replay: wait rows %llu\n", (unsigned long long)on_disk_);
  std::fflush(stdout);
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

ReplayResult replay(const Defs& defs, LocalData& data, Transport& t, WaitWriter& waits, Rules rules) {
  ReplayResult res;
  res.rules = rules;
  res.waits = &waits;
  Accumulator acc(defs, res);
  point_to_point(defs, data, t, res, acc, waits);
  // The message records (64 B a message) are done with. Their memory goes back now where the
  // steps after need memory: the root-cause pass, or a collective phase that gathers many
  // records (without root causes only the non-blocking ones: blocking instances are
  // summarised, and collective-heavy's peak stays 466 MB with the records kept). Otherwise
  // the exit returns it, which the driver does not wait for (unmapping them here took
  // ~25 ms of the reference row, ~15 ms of collective-heavy).
  const size_t message_bytes = data.sends.bytes() + data.recvs.bytes();
  if (data.timeline.enabled || data.nbcs.size() * sizeof(NbcRec) * 8 > message_bytes) {
    data.sends.release();
    data.recvs.release();
    Order().swap(data.recv_order);
  }
  replay_detail::collectives(defs, data, t, res, acc);
  waits.end_phase(PHASE_COLLECTIVE);
  replay_detail::world_synchronisations(defs, data, t, acc);
  waits.end_phase(PHASE_WORLD);
  res.counters.events = data.events;
  res.counters.mpi_events = data.mpi_events;
  res.counters.clock_offset_locations = data.clock_offsets_applied;
  return res;
}

void write_callpaths(const std::string& dir, const Defs& defs, const LocalData& data, int process) {
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
  write_file(dir + "/callpaths." + std::to_string(process) + ".tsv", cps.data(), cps.size());
}

void write_engine_files(const std::string& dir, const Defs& defs, const LocalData& data, const ReplayResult& res,
                        int process) {
  const std::string suffix = "." + std::to_string(process);
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
