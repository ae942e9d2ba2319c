// `dump`: one pass over a Score-P-layout OTF2 archive into flat column files the viewer
// memory-maps (numpy), plus defs.json with the definitions.
//
// Columns (little-endian raw arrays, lengths in defs.json):
//   seg_time int64, seg_cp int32, seg_mpicum int64   per location, the innermost active
//       call path from seg_time[i] to seg_time[i+1] (-1: no region), and the MPI time
//       (ns) spent before seg_time[i]; location k owns [seg_offsets[k], seg_offsets[k+1]).
//   msg_*   matched point-to-point messages (sender/receiver location index, times, bytes).
//   ev_*    (with --events) every Enter/Leave/MPI record, for the parquet and Perfetto exports.
// Times are nanoseconds since the global offset of ClockProperties, after the reader applied
// the ClockOffset corrections (OTF2 does that when a location has two or more of them).
// The trace is read through the trace library (trace/): its definitions, and every
// location's events with balanced regions (user regions repaired, counted in defs.json).
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/error.hpp"
#include "gridscope/trace/events.hpp"
#include "gridscope/trace/records.hpp"

namespace gs {
namespace {

enum EventKind : uint8_t {
  kEnter = 1, kLeave, kMpiSend, kMpiIsend, kMpiIsendComplete, kMpiIrecvRequest,
  kMpiRecv, kMpiIrecv, kMpiCollectiveBegin, kMpiCollectiveEnd,
  kNbcRequest, kNbcComplete,  // NonBlockingCollectiveRequest / ...Complete
};

// Buffered writer of one raw column file.
template <typename T>
class Column {
 public:
  void open(const std::string& path) {
    path_ = path;
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) fail(path, "cannot create column file");
  }
  void push(T v) {
    buf_.push_back(v);
    ++count_;
    if (buf_.size() >= (1u << 16)) flush();
  }
  void flush() {
    if (!buf_.empty()) out_.write(reinterpret_cast<const char*>(buf_.data()), buf_.size() * sizeof(T));
    buf_.clear();
  }
  void close() {
    flush();
    out_.close();
    if (!out_) fail(path_, "write failed (disk full?)");
  }
  uint64_t size() const { return count_; }

 private:
  std::string path_;
  std::ofstream out_;
  std::vector<T> buf_;
  uint64_t count_ = 0;
};

// One send or receive of a point-to-point message, in reading order: a location's events
// are read in time order, so a stable sort by key lists each key's sends (or receives) in
// the order they happened. Flat records per sender, not a map of vectors per key: a trace
// whose tags never repeat has one key per message (8 M at 1,024 ranks), and the map's
// nodes and vectors took half of the dump's time to build and to free.
struct P2pRec {
  int32_t from, to;  // sender and receiver location
  uint32_t comm, tag;
  int64_t time;
  uint64_t bytes;
  bool same_key(const P2pRec& o) const { return from == o.from && to == o.to && comm == o.comm && tag == o.tag; }
  bool key_less(const P2pRec& o) const { return std::tie(from, to, comm, tag) < std::tie(o.from, o.to, o.comm, o.tag); }
};

// Ticks -> ns as trunc((t - offset) * 1e9 / resolution), with the fraction reduced once
// (1e9 / resolution is num / den): 64-bit arithmetic when it cannot overflow, and no
// division at all for a nanosecond clock; 128-bit otherwise. The same integers either way.
struct TickScale {
  uint64_t offset = 0, resolution = 1;
  int64_t num = 1, den = 1, max_abs = 0;  // |t - offset| <= max_abs: (t - offset) * num fits
  void set(uint64_t off, uint64_t res) {
    offset = off;
    resolution = res;  // not 0: dump() refuses such a trace
    uint64_t a = 1000000000, b = resolution;
    while (b) a %= b, std::swap(a, b);  // a = gcd(1e9, resolution)
    num = int64_t(1000000000 / a);
    den = int64_t(resolution / a);
    max_abs = offset < (uint64_t(1) << 62) ? INT64_MAX / num : 0;
  }
  int64_t operator()(uint64_t t) const {
    if (t < (uint64_t(1) << 62)) {
      int64_t d = int64_t(t) - int64_t(offset);
      if (d <= max_abs && d >= -max_abs) return den == 1 ? d * num : d * num / den;
    }
    __int128 d = static_cast<__int128>(t) - static_cast<__int128>(offset);
    return static_cast<int64_t>(d * 1000000000 / static_cast<__int128>(resolution));
  }
};

struct State {
  const gs::Defs* defs = nullptr;
  TickScale ticks;
  std::string anchor;
  std::vector<int32_t> world_to_loc;                  // MPI COMM_WORLD rank -> location index
  gs::CallTree tree;                                  // call paths of all locations
  // per-location replay state
  int32_t cur_loc = 0;
  uint32_t cur_rank = gs::kNoRank;
  std::vector<int32_t> stack;
  int64_t last_time = 0, seg_start = 0, mpi_cum = 0;
  int32_t seg_cp = -1;
  bool seg_open = false;
  Column<int64_t> seg_time, seg_mpicum;
  Column<int32_t> seg_cp_col;
  std::vector<uint64_t> seg_offsets;
  // messages
  // per sender location, in reading order: no sort or copy to bring a sender's together
  std::vector<std::vector<P2pRec>> sends, recvs;
  uint64_t p2p_events = 0, unknown_partner = 0;
  // events
  bool want_events = false;
  bool want_progress = false;  // "progress DONE TOTAL" on stdout after each location
  Column<int32_t> ev_loc, ev_region, ev_partner, ev_comm, ev_tag;
  Column<int64_t> ev_time;
  Column<uint8_t> ev_kind;
  Column<uint64_t> ev_bytes_sent, ev_bytes_recv, ev_request;
  uint64_t events_total = 0;
  gs::RepairLog repairs;
  int64_t min_time = INT64_MAX, max_time = INT64_MIN;
};

int64_t to_ns(const State& s, OTF2_TimeStamp t) { return s.ticks(t); }

// Rank `rank` of communicator `comm` as a location index (-1 when unknown).
int32_t partner_location(const State& s, OTF2_CommRef comm, uint32_t rank) {
  const gs::Defs& d = *s.defs;
  if (comm < d.comms.size() && d.comms[comm].is_self) return s.cur_loc;
  uint32_t world = d.world_rank(comm, rank, s.cur_rank);
  if (world >= s.world_to_loc.size()) return -1;
  return s.world_to_loc[world];
}

// ---------------------------------------------------------------- events
void emit_segment(State& s, int64_t t, int32_t cp) {
  if (s.seg_open) {
    if (t == s.seg_start) {  // zero-length: the new state replaces it
      s.seg_cp = cp;
      return;
    }
    s.seg_time.push(s.seg_start);
    s.seg_cp_col.push(s.seg_cp);
    s.seg_mpicum.push(s.mpi_cum);
    if (s.seg_cp >= 0 && s.defs->regions[s.tree.nodes[s.seg_cp].region].is_mpi) s.mpi_cum += t - s.seg_start;
  }
  s.seg_open = true;
  s.seg_start = t;
  s.seg_cp = cp;
}

void note_time(State& s, int64_t t) {
  s.last_time = t;
  s.min_time = std::min(s.min_time, t);
  s.max_time = std::max(s.max_time, t);
  ++s.events_total;
}

void record(State& s, int64_t t, EventKind kind, int32_t region, int32_t partner, int32_t comm,
            int32_t tag, uint64_t sent, uint64_t recv, uint64_t request) {
  if (!s.want_events) return;
  s.ev_loc.push(s.cur_loc);
  s.ev_time.push(t);
  s.ev_kind.push(kind);
  s.ev_region.push(region);
  s.ev_partner.push(partner);
  s.ev_comm.push(comm);
  s.ev_tag.push(tag);
  s.ev_bytes_sent.push(sent);
  s.ev_bytes_recv.push(recv);
  s.ev_request.push(request);
}

// The handler of one location's balanced events (trace/include/gridscope/trace/events.hpp).
class Dumper {
 public:
  explicit Dumper(State& s) : s_(s) {}
  const std::string& error() const { return error_; }

  OTF2_CallbackCode enter(uint64_t time, uint32_t region) {
    int64_t t = to_ns(s_, time);
    note_time(s_, t);
    int32_t cp = static_cast<int32_t>(s_.tree.child(s_.stack.empty() ? gs::kNone : uint32_t(s_.stack.back()), region));
    s_.stack.push_back(cp);
    emit_segment(s_, t, cp);
    record(s_, t, kEnter, static_cast<int32_t>(region), -1, -1, -1, 0, 0, 0);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode leave(uint64_t time, uint32_t region) {
    int64_t t = to_ns(s_, time);
    note_time(s_, t);
    s_.stack.pop_back();
    emit_segment(s_, t, s_.stack.empty() ? -1 : s_.stack.back());
    record(s_, t, kLeave, static_cast<int32_t>(region), -1, -1, -1, 0, 0, 0);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode send(uint64_t t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
    return p2p(t, true, peer, comm, tag, len, kMpiSend, 0);
  }
  OTF2_CallbackCode isend(uint64_t t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req) {
    return p2p(t, true, peer, comm, tag, len, kMpiIsend, req);
  }
  OTF2_CallbackCode recv(uint64_t t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
    return p2p(t, false, peer, comm, tag, len, kMpiRecv, 0);
  }
  OTF2_CallbackCode irecv(uint64_t t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req) {
    return p2p(t, false, peer, comm, tag, len, kMpiIrecv, req);
  }
  OTF2_CallbackCode isend_complete(uint64_t time, uint64_t req) { return marker(time, kMpiIsendComplete, req); }
  OTF2_CallbackCode irecv_request(uint64_t time, uint64_t req) { return marker(time, kMpiIrecvRequest, req); }
  OTF2_CallbackCode coll_begin(uint64_t time) { return marker(time, kMpiCollectiveBegin, 0); }
  OTF2_CallbackCode coll_end(uint64_t time, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                             uint64_t received) {
    int64_t t = to_ns(s_, time);
    note_time(s_, t);
    int32_t root_loc = root == OTF2_UNDEFINED_UINT32 ? -1 : partner_location(s_, comm, root);
    // the collective operation goes in the tag column (an OTF2_CollectiveOp value)
    record(s_, t, kMpiCollectiveEnd, -1, root_loc, static_cast<int32_t>(comm), op, sent, received, 0);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode nbc_request(uint64_t time, uint64_t req) { return marker(time, kNbcRequest, req); }
  OTF2_CallbackCode nbc_complete(uint64_t time, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                 uint64_t received, uint64_t req) {
    int64_t t = to_ns(s_, time);
    note_time(s_, t);
    int32_t root_loc = root == OTF2_UNDEFINED_UINT32 ? -1 : partner_location(s_, comm, root);
    // as a collective end, plus the request that the initiating MPI_I* call made
    record(s_, t, kNbcComplete, -1, root_loc, static_cast<int32_t>(comm), op, sent, received, req);
    return OTF2_CALLBACK_SUCCESS;
  }

 private:
  OTF2_CallbackCode marker(uint64_t time, EventKind kind, uint64_t req) {
    int64_t t = to_ns(s_, time);
    note_time(s_, t);
    record(s_, t, kind, -1, -1, -1, -1, 0, 0, req);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode p2p(uint64_t time, bool is_send, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                        EventKind kind, uint64_t request) {
    int64_t t = to_ns(s_, time);
    note_time(s_, t);
    ++s_.p2p_events;
    int32_t other = partner_location(s_, comm, peer);
    if (other < 0) {
      ++s_.unknown_partner;
    } else if (is_send) {
      s_.sends[s_.cur_loc].push_back({s_.cur_loc, other, comm, tag, t, bytes});
    } else {
      s_.recvs[other].push_back({other, s_.cur_loc, comm, tag, t, bytes});
    }
    record(s_, t, kind, -1, other, static_cast<int32_t>(comm), static_cast<int32_t>(tag), is_send ? bytes : 0,
           is_send ? 0 : bytes, request);
    return OTF2_CALLBACK_SUCCESS;
  }
  State& s_;
  std::string error_;
};

// ---------------------------------------------------------------- output
void write_defs_json(const State& s, const std::string& path, uint64_t matched,
                     uint64_t unmatched_sends, uint64_t unmatched_recvs) {
  std::ofstream o(path);
  if (!o) fail(path, "cannot create file");
  const gs::Defs& d = *s.defs;
  auto parent = [](uint32_t p) {
    return p == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? std::string("null") : std::to_string(p);
  };
  o << "{\"format\": 1, \"anchor\": " << json_string(s.anchor)
    << ", \"clock\": {\"resolution\": " << d.resolution << ", \"offset\": " << d.global_offset
    << ", \"length\": " << d.trace_length << "}"
    << ", \"time_range_ns\": [" << (s.events_total ? s.min_time : 0) << ", "
    << (s.events_total ? s.max_time : 0) << "]"
    << ", \"events\": " << s.events_total << ", \"repaired_regions\": {";
  for (int k = 0; k < gs::kRepairKinds; ++k)
    o << (k ? ", " : "") << json_string(gs::kRepairNames[k]) << ": " << s.repairs.count[k];
  o << "}, \"messages\": {\"matched\": " << matched << ", \"unmatched_sends\": " << unmatched_sends
    << ", \"unmatched_receives\": " << unmatched_recvs << ", \"unknown_partner\": "
    << s.unknown_partner << "}";
  std::vector<gs::SystemTreeNodeDef> nodes = d.system_tree;
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  o << ", \"system_tree\": [";
  for (size_t i = 0; i < nodes.size(); ++i)
    o << (i ? ", " : "") << "{\"id\": " << nodes[i].id << ", \"name\": " << json_string(nodes[i].name)
      << ", \"class\": " << json_string(nodes[i].cls) << ", \"parent\": " << parent(nodes[i].parent) << "}";
  std::vector<gs::LocationGroupDef> groups = d.location_groups;
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  o << "], \"location_groups\": [";
  for (size_t i = 0; i < groups.size(); ++i)
    o << (i ? ", " : "") << "{\"id\": " << groups[i].id << ", \"name\": " << json_string(groups[i].name)
      << ", \"type\": " << int(groups[i].type) << ", \"parent\": " << parent(groups[i].parent) << "}";
  o << "], \"locations\": [";
  for (size_t i = 0; i < d.locations.size(); ++i) {
    const gs::LocationDef& l = d.locations[i];
    o << (i ? ", " : "") << "{\"id\": " << l.id << ", \"name\": " << json_string(l.name)
      << ", \"type\": " << int(l.type) << ", \"group\": " << l.group
      << ", \"world_rank\": " << (l.rank == gs::kNoRank ? -1 : int64_t(l.rank)) << ", \"events\": " << l.events << "}";
  }
  o << "], \"regions\": [";
  bool first = true;
  for (size_t id = 0; id < d.regions.size(); ++id) {
    const gs::RegionDef& r = d.regions[id];
    if (!r.defined) continue;
    o << (first ? "" : ", ") << "{\"id\": " << id << ", \"name\": " << json_string(r.name)
      << ", \"canonical\": " << json_string(r.canonical) << ", \"file\": " << json_string(r.file)
      << ", \"role\": " << int(r.role) << ", \"paradigm\": " << int(r.paradigm)
      << ", \"mpi\": " << (r.is_mpi ? "true" : "false") << "}";
    first = false;
  }
  o << "], \"comms\": [";
  first = true;
  for (size_t id = 0; id < d.comms.size(); ++id) {
    if (!d.comms[id].exists) continue;
    o << (first ? "" : ", ") << "{\"id\": " << id << ", \"name\": " << json_string(d.comms[id].name) << "}";
    first = false;
  }
  o << "], \"callpaths\": {\"parent\": [";
  const auto& cps = s.tree.nodes;
  for (size_t i = 0; i < cps.size(); ++i) o << (i ? ", " : "") << (cps[i].parent == gs::kNone ? -1 : int64_t(cps[i].parent));
  o << "], \"region\": [";
  for (size_t i = 0; i < cps.size(); ++i) o << (i ? ", " : "") << cps[i].region;
  o << "]}, \"seg_offsets\": [";
  for (size_t i = 0; i < s.seg_offsets.size(); ++i) o << (i ? ", " : "") << s.seg_offsets[i];
  o << "], \"columns\": {";
  auto col = [&](const char* name, const char* dtype, uint64_t n, bool last = false) {
    o << json_string(name) << ": [" << json_string(dtype) << ", " << n << "]" << (last ? "" : ", ");
  };
  col("seg_time", "<i8", s.seg_time.size());
  col("seg_cp", "<i4", s.seg_cp_col.size());
  col("seg_mpicum", "<i8", s.seg_mpicum.size());
  col("msg_send_loc", "<i4", matched);
  col("msg_recv_loc", "<i4", matched);
  col("msg_send_time", "<i8", matched);
  col("msg_recv_time", "<i8", matched);
  col("msg_bytes", "<u8", matched);
  col("msg_tag", "<u4", matched);
  col("msg_comm", "<u4", matched, !s.want_events);
  if (s.want_events) {
    uint64_t n = s.ev_time.size();
    col("ev_loc", "<i4", n);
    col("ev_time", "<i8", n);
    col("ev_kind", "|u1", n);
    col("ev_region", "<i4", n);
    col("ev_partner", "<i4", n);
    col("ev_comm", "<i4", n);
    col("ev_tag", "<i4", n);
    col("ev_bytes_sent", "<u8", n);
    col("ev_bytes_recv", "<u8", n);
    col("ev_request", "<u8", n, true);
  }
  o << "}}\n";
  if (!o) fail(path, "write failed");
}

struct Message { int32_t from, to; int64_t ts, tr; uint64_t bytes; uint32_t tag, comm; };

bool message_less(const Message& a, const Message& b) {
  return std::tie(a.ts, a.from, a.to, a.tr, a.tag, a.comm) < std::tie(b.ts, b.from, b.to, b.tr, b.tag, b.comm);
}

// The matched messages, one run per sender (runs[k] .. runs[k + 1]), each run in output order.
struct MatchedRuns {
  std::vector<Message> messages;
  std::vector<size_t> runs;
};

// Pair the i-th send with the i-th receive of each (sender, receiver, comm, tag): MPI's
// non-overtaking rule makes that the real matching. Sender by sender: only a sender's few
// thousand sends and receives are sorted by the rest of the key, stable, so each key keeps
// its time order.
MatchedRuns match_messages(State& s, uint64_t& unmatched_sends, uint64_t& unmatched_recvs) {
  unmatched_sends = unmatched_recvs = 0;
  auto order = [](const P2pRec& a, const P2pRec& b) { return a.key_less(b); };
  size_t total_sends = 0, total_recvs = 0;
  for (size_t k = 0; k < s.sends.size(); ++k) total_sends += s.sends[k].size(), total_recvs += s.recvs[k].size();
  MatchedRuns out;
  out.messages.reserve(std::min(total_sends, total_recvs));
  out.runs.push_back(0);
  for (size_t k = 0; k < s.sends.size(); ++k) {
    std::vector<P2pRec>& sends = s.sends[k];
    std::vector<P2pRec>& recvs = s.recvs[k];
    std::stable_sort(sends.begin(), sends.end(), order);
    std::stable_sort(recvs.begin(), recvs.end(), order);
    size_t i = 0, j = 0;
    const size_t ns = sends.size(), nr = recvs.size();
    while (i < ns || j < nr) {
      if (j == nr || (i < ns && sends[i].key_less(recvs[j]))) {
        ++unmatched_sends, ++i;
      } else if (i == ns || !sends[i].same_key(recvs[j])) {
        ++unmatched_recvs, ++j;
      } else {  // the next send and receive of one key
        const P2pRec& a = sends[i++];
        const P2pRec& r = recvs[j++];
        out.messages.push_back({a.from, a.to, a.time, r.time, a.bytes, a.tag, a.comm});
      }
    }
    std::vector<P2pRec>().swap(sends);
    std::vector<P2pRec>().swap(recvs);
    std::sort(out.messages.begin() + out.runs.back(), out.messages.end(), message_less);
    out.runs.push_back(out.messages.size());
  }
  return out;
}

// Every message in (send time, sender, receiver, receive time, tag, comm) order: the
// senders' sorted runs (run k holds sender k's messages) merged through a tree of losers:
// one comparison per level for each message. (send time, sender) orders the runs' heads
// completely, and the tree compares only those. Calls EMIT(message) in that order.
template <class Emit>
void merge_runs(const MatchedRuns& m, Emit emit) {
  const size_t runs = m.runs.size() - 1;
  if (runs == 0) return;
  size_t leaves = 1;
  while (leaves < runs) leaves *= 2;
  std::vector<size_t> at(leaves), end(leaves);
  std::vector<int64_t> head(leaves);
  for (size_t k = 0; k < leaves; ++k) {
    at[k] = k < runs ? m.runs[k] : 0;
    end[k] = k < runs ? m.runs[k + 1] : 0;
    if (at[k] < end[k]) head[k] = m.messages[at[k]].ts;
  }
  // run a's head comes before run b's (an empty run after every other)
  auto before = [&](size_t a, size_t b) {
    if (at[a] == end[a]) return false;
    if (at[b] == end[b]) return true;
    return head[a] < head[b] || (head[a] == head[b] && a < b);
  };
  std::vector<size_t> loser(leaves);  // loser[node] for the inner nodes 1 .. leaves - 1
  std::function<size_t(size_t)> play = [&](size_t node) -> size_t {  // winner below node
    if (node >= leaves) return node - leaves;
    size_t a = play(2 * node), b = play(2 * node + 1);
    if (before(b, a)) std::swap(a, b);
    loser[node] = b;
    return a;
  };
  size_t winner = play(1);
  while (at[winner] < end[winner]) {
    emit(m.messages[at[winner]]);
    if (++at[winner] < end[winner]) head[winner] = m.messages[at[winner]].ts;
    for (size_t node = (winner + leaves) / 2; node >= 1; node /= 2)
      if (before(loser[node], winner)) std::swap(loser[node], winner);
  }
}

void dump(gs::Archive& archive, State& s, const std::string& outdir) {
  const gs::Defs& d = archive.defs();
  s.defs = &d;
  if (d.resolution == 0) fail(s.anchor, "the clock resolution (ClockProperties) is 0");
  s.ticks.set(d.global_offset, d.resolution);
  if (d.locations.empty()) fail(s.anchor, "the trace defines no locations");
  std::vector<uint64_t> locations;
  std::unordered_map<uint64_t, int32_t> loc_index;  // OTF2 location id -> dense index
  for (size_t i = 0; i < d.locations.size(); ++i) {
    locations.push_back(d.locations[i].id);
    loc_index[d.locations[i].id] = static_cast<int32_t>(i);
  }
  s.sends.assign(d.locations.size(), {});
  s.recvs.assign(d.locations.size(), {});
  s.world_to_loc.assign(d.ranks(), -1);
  for (uint32_t r = 0; r < d.ranks(); ++r) {
    auto it = loc_index.find(d.rank_location[r]);
    if (it != loc_index.end()) s.world_to_loc[r] = it->second;
  }

  s.seg_time.open(outdir + "/seg_time.bin");
  s.seg_cp_col.open(outdir + "/seg_cp.bin");
  s.seg_mpicum.open(outdir + "/seg_mpicum.bin");
  if (s.want_events) {
    s.ev_loc.open(outdir + "/ev_loc.bin");
    s.ev_time.open(outdir + "/ev_time.bin");
    s.ev_kind.open(outdir + "/ev_kind.bin");
    s.ev_region.open(outdir + "/ev_region.bin");
    s.ev_partner.open(outdir + "/ev_partner.bin");
    s.ev_comm.open(outdir + "/ev_comm.bin");
    s.ev_tag.open(outdir + "/ev_tag.bin");
    s.ev_bytes_sent.open(outdir + "/ev_bytes_sent.bin");
    s.ev_bytes_recv.open(outdir + "/ev_bytes_recv.bin");
    s.ev_request.open(outdir + "/ev_request.bin");
  }

  Dumper dumper(s);
  gs::read_balanced<Dumper>(
      archive, locations, s.repairs,
      [&](size_t i) -> Dumper& {
        s.cur_loc = static_cast<int32_t>(i);
        s.cur_rank = d.locations[i].rank;
        s.stack.clear();
        s.seg_open = false;
        s.mpi_cum = 0;
        s.seg_offsets.push_back(s.seg_time.size());
        return dumper;
      },
      [&](size_t i, uint64_t, const gs::Archive::LocationInfo&) {
        // close the location's time line: a final state "no region" at its last event
        if (s.seg_open) {
          if (s.seg_cp >= 0) emit_segment(s, s.last_time, -1);
          s.seg_time.push(s.seg_start);
          s.seg_cp_col.push(-1);
          s.seg_mpicum.push(s.mpi_cum);
        }
        if (s.want_progress) std::printf("progress %zu %zu\n", i + 1, locations.size()), std::fflush(stdout);
      });
  s.seg_offsets.push_back(s.seg_time.size());

  s.seg_time.close();
  s.seg_cp_col.close();
  s.seg_mpicum.close();
  if (s.want_events) {
    s.ev_loc.close(); s.ev_time.close(); s.ev_kind.close(); s.ev_region.close();
    s.ev_partner.close(); s.ev_comm.close(); s.ev_tag.close(); s.ev_bytes_sent.close();
    s.ev_bytes_recv.close(); s.ev_request.close();
  }

  uint64_t us = 0, ur = 0;
  MatchedRuns msgs = match_messages(s, us, ur);
  {
    Column<int32_t> from, to;
    Column<int64_t> ts, tr;
    Column<uint64_t> bytes;
    Column<uint32_t> tag, comm;
    from.open(outdir + "/msg_send_loc.bin");
    to.open(outdir + "/msg_recv_loc.bin");
    ts.open(outdir + "/msg_send_time.bin");
    tr.open(outdir + "/msg_recv_time.bin");
    bytes.open(outdir + "/msg_bytes.bin");
    tag.open(outdir + "/msg_tag.bin");
    comm.open(outdir + "/msg_comm.bin");
    merge_runs(msgs, [&](const Message& m) {
      from.push(m.from); to.push(m.to); ts.push(m.ts); tr.push(m.tr);
      bytes.push(m.bytes); tag.push(m.tag); comm.push(m.comm);
    });
    from.close(); to.close(); ts.close(); tr.close(); bytes.close(); tag.close(); comm.close();
  }
  write_defs_json(s, outdir + "/defs.json", msgs.messages.size(), us, ur);
}

}  // namespace

int run_dump(int argc, char** argv) {
  if (argc < 2) fail("dump", "usage: dump ANCHOR OUTDIR [--events] [--progress]");
  static State s;  // large; lives for the whole run
  s.anchor = argv[0];
  std::string outdir = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--events")) s.want_events = true;
    else if (!std::strcmp(argv[i], "--progress")) s.want_progress = true;
    else fail(argv[i], "unknown option (want --events or --progress)");
  }
  try {
    gs::Archive archive(s.anchor, /*require_mpi=*/false);
    dump(archive, s, outdir);
  } catch (const gs::Error& e) {
    fail(e.where, e.what());
  }
  return 0;
}

}  // namespace gs
