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
#include <otf2/otf2.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "common.hpp"

namespace gs {
namespace {

enum EventKind : uint8_t {
  kEnter = 1, kLeave, kMpiSend, kMpiIsend, kMpiIsendComplete, kMpiIrecvRequest,
  kMpiRecv, kMpiIrecv, kMpiCollectiveBegin, kMpiCollectiveEnd,
};

struct SystemNode { std::string name, cls; uint64_t parent; };
struct LocGroup { std::string name; uint8_t type; uint64_t parent; };
struct Location { uint64_t id; std::string name; uint8_t type; uint64_t events; uint64_t group; };
struct Region { std::string name, canonical, file; uint8_t role; uint8_t paradigm; };
struct Group { std::string name; uint8_t type; uint8_t paradigm; uint32_t flags; std::vector<uint64_t> members; };
struct Comm { std::string name; uint64_t group; uint64_t parent; };

struct Defs {
  std::unordered_map<uint64_t, std::string> strings;
  std::map<uint64_t, SystemNode> nodes;
  std::map<uint64_t, LocGroup> groups_loc;
  std::vector<Location> locations;
  std::map<uint64_t, Region> regions;
  std::map<uint64_t, Group> groups;
  std::map<uint64_t, Comm> comms;
  uint64_t resolution = 1, offset = 0, length = 0;
  bool have_clock = false;
  std::string str(uint64_t ref) const {
    auto it = strings.find(ref);
    return it == strings.end() ? std::string() : it->second;
  }
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

struct PendingMsg { int64_t time; uint64_t bytes; };
using MsgKey = std::tuple<int32_t, int32_t, uint32_t, uint32_t>;  // sender, receiver, comm, tag
struct MsgKeyHash {
  size_t operator()(const MsgKey& k) const {
    uint64_t h = static_cast<uint32_t>(std::get<0>(k));
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<uint32_t>(std::get<1>(k));
    h = h * 0x9E3779B97F4A7C15ull ^ std::get<2>(k);
    h = h * 0x9E3779B97F4A7C15ull ^ std::get<3>(k);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

struct State {
  Defs defs;
  std::string anchor;
  std::unordered_map<uint64_t, int32_t> loc_index;   // OTF2 location id -> dense index
  std::vector<int32_t> world_to_loc;                  // MPI COMM_WORLD rank -> location index
  // call path tree: (parent, region) -> id
  std::unordered_map<uint64_t, int32_t> cp_ids;       // (parent + 1) << 32 | region -> id
  std::vector<int32_t> cp_parent;
  std::vector<uint64_t> cp_region;
  std::vector<char> cp_mpi;                           // per call path: its region is MPI
  // per-location replay state
  int32_t cur_loc = 0;
  std::vector<int32_t> stack;
  int64_t last_time = 0, seg_start = 0, mpi_cum = 0;
  int32_t seg_cp = -1;
  bool seg_open = false;
  Column<int64_t> seg_time, seg_mpicum;
  Column<int32_t> seg_cp_col;
  std::vector<uint64_t> seg_offsets;
  // messages
  std::unordered_map<MsgKey, std::vector<PendingMsg>, MsgKeyHash> sends, recvs;
  uint64_t p2p_events = 0, unknown_partner = 0;
  // events
  bool want_events = false;
  Column<int32_t> ev_loc, ev_region, ev_partner, ev_comm, ev_tag;
  Column<int64_t> ev_time;
  Column<uint8_t> ev_kind;
  Column<uint64_t> ev_bytes_sent, ev_bytes_recv, ev_request;
  uint64_t events_total = 0, unbalanced = 0;
  int64_t min_time = INT64_MAX, max_time = INT64_MIN;
};

int64_t to_ns(const State& s, OTF2_TimeStamp t) {
  __int128 d = static_cast<__int128>(t) - static_cast<__int128>(s.defs.offset);
  return static_cast<int64_t>(d * 1000000000 / static_cast<__int128>(s.defs.resolution));
}

// ---------------------------------------------------------------- definitions
OTF2_CallbackCode def_string(void* u, OTF2_StringRef self, const char* str) {
  static_cast<State*>(u)->defs.strings[self] = str ? str : "";
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_clock(void* u, uint64_t res, uint64_t off, uint64_t len, uint64_t) {
  auto& d = static_cast<State*>(u)->defs;
  d.resolution = res ? res : 1;
  d.offset = off;
  d.length = len;
  d.have_clock = true;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_node(void* u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                           OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent) {
  auto& d = static_cast<State*>(u)->defs;
  d.nodes[self] = {d.str(name), d.str(cls), parent};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_lgroup(void* u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                             OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                             OTF2_LocationGroupRef) {
  auto& d = static_cast<State*>(u)->defs;
  d.groups_loc[self] = {d.str(name), type, parent};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location(void* u, OTF2_LocationRef self, OTF2_StringRef name,
                               OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group) {
  auto& d = static_cast<State*>(u)->defs;
  d.locations.push_back({self, d.str(name), type, events, group});
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_region(void* u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                             OTF2_StringRef, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                             OTF2_RegionFlag, OTF2_StringRef file, uint32_t, uint32_t) {
  auto& d = static_cast<State*>(u)->defs;
  d.regions[self] = {d.str(name), d.str(canon), d.str(file), role, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_group(void* u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                            OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n,
                            const uint64_t* members) {
  auto& d = static_cast<State*>(u)->defs;
  d.groups[self] = {d.str(name), type, paradigm, flags, std::vector<uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_comm(void* u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                           OTF2_CommRef parent, OTF2_CommFlag) {
  auto& d = static_cast<State*>(u)->defs;
  d.comms[self] = {d.str(name), group, parent};
  return OTF2_CALLBACK_SUCCESS;
}

bool is_mpi_region(const Region& r) {
  return r.paradigm == OTF2_PARADIGM_MPI || r.name.rfind("MPI_", 0) == 0;
}

// Rank `rank` of communicator `comm` as a location index (-1 when unknown).
int32_t partner_location(const State& s, OTF2_CommRef comm, uint32_t rank) {
  auto c = s.defs.comms.find(comm);
  if (c == s.defs.comms.end()) return -1;
  auto g = s.defs.groups.find(c->second.group);
  if (g == s.defs.groups.end()) return -1;
  if (g->second.type == OTF2_GROUP_TYPE_COMM_SELF) return s.cur_loc;
  uint64_t world;
  if (g->second.flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) {
    world = rank;
  } else {
    if (rank >= g->second.members.size()) return -1;
    world = g->second.members[rank];
  }
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
    if (s.seg_cp >= 0 && s.cp_mpi[s.seg_cp]) s.mpi_cum += t - s.seg_start;
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

OTF2_CallbackCode ev_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
  auto& s = *static_cast<State*>(u);
  int64_t t = to_ns(s, time);
  note_time(s, t);
  int32_t parent = s.stack.empty() ? -1 : s.stack.back();
  uint64_t key = (static_cast<uint64_t>(parent + 1) << 32) | region;
  auto it = s.cp_ids.find(key);
  int32_t cp;
  if (it == s.cp_ids.end()) {
    cp = static_cast<int32_t>(s.cp_parent.size());
    s.cp_ids.emplace(key, cp);
    s.cp_parent.push_back(parent);
    s.cp_region.push_back(region);
    auto r = s.defs.regions.find(region);
    s.cp_mpi.push_back(r != s.defs.regions.end() && is_mpi_region(r->second));
  } else {
    cp = it->second;
  }
  s.stack.push_back(cp);
  emit_segment(s, t, cp);
  record(s, t, kEnter, static_cast<int32_t>(region), -1, -1, -1, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode ev_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
  auto& s = *static_cast<State*>(u);
  int64_t t = to_ns(s, time);
  note_time(s, t);
  if (s.stack.empty() || s.cp_region[s.stack.back()] != region) {
    ++s.unbalanced;  // a Leave that does not match the innermost Enter
  }
  if (!s.stack.empty()) s.stack.pop_back();
  emit_segment(s, t, s.stack.empty() ? -1 : s.stack.back());
  record(s, t, kLeave, static_cast<int32_t>(region), -1, -1, -1, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

void p2p(State& s, int64_t t, bool is_send, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
         uint64_t bytes, EventKind kind, uint64_t request) {
  note_time(s, t);
  ++s.p2p_events;
  int32_t other = partner_location(s, comm, peer);
  if (other < 0) {
    ++s.unknown_partner;
  } else if (is_send) {
    s.sends[MsgKey(s.cur_loc, other, comm, tag)].push_back({t, bytes});
  } else {
    s.recvs[MsgKey(other, s.cur_loc, comm, tag)].push_back({t, bytes});
  }
  record(s, t, kind, -1, other, static_cast<int32_t>(comm), static_cast<int32_t>(tag),
         is_send ? bytes : 0, is_send ? 0 : bytes, request);
}

OTF2_CallbackCode ev_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                          OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm,
                          uint32_t tag, uint64_t len) {
  auto& s = *static_cast<State*>(u);
  p2p(s, to_ns(s, time), true, receiver, comm, tag, len, kMpiSend, 0);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                           OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm,
                           uint32_t tag, uint64_t len, uint64_t req) {
  auto& s = *static_cast<State*>(u);
  p2p(s, to_ns(s, time), true, receiver, comm, tag, len, kMpiIsend, req);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                          OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm,
                          uint32_t tag, uint64_t len) {
  auto& s = *static_cast<State*>(u);
  p2p(s, to_ns(s, time), false, sender, comm, tag, len, kMpiRecv, 0);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                           OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm,
                           uint32_t tag, uint64_t len, uint64_t req) {
  auto& s = *static_cast<State*>(u);
  p2p(s, to_ns(s, time), false, sender, comm, tag, len, kMpiIrecv, req);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_isend_complete(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                                    OTF2_AttributeList*, uint64_t req) {
  auto& s = *static_cast<State*>(u);
  int64_t t = to_ns(s, time);
  note_time(s, t);
  record(s, t, kMpiIsendComplete, -1, -1, -1, -1, 0, 0, req);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                                   OTF2_AttributeList*, uint64_t req) {
  auto& s = *static_cast<State*>(u);
  int64_t t = to_ns(s, time);
  note_time(s, t);
  record(s, t, kMpiIrecvRequest, -1, -1, -1, -1, 0, 0, req);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                                OTF2_AttributeList*) {
  auto& s = *static_cast<State*>(u);
  int64_t t = to_ns(s, time);
  note_time(s, t);
  record(s, t, kMpiCollectiveBegin, -1, -1, -1, -1, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode ev_coll_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* u,
                              OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm,
                              uint32_t root, uint64_t sent, uint64_t received) {
  auto& s = *static_cast<State*>(u);
  int64_t t = to_ns(s, time);
  note_time(s, t);
  int32_t root_loc = root == OTF2_UNDEFINED_UINT32 ? -1 : partner_location(s, comm, root);
  // the collective operation goes in the tag column (an OTF2_CollectiveOp value)
  record(s, t, kMpiCollectiveEnd, -1, root_loc, static_cast<int32_t>(comm), op, sent, received, 0);
  return OTF2_CALLBACK_SUCCESS;
}

// ---------------------------------------------------------------- output
void write_defs_json(const State& s, const std::string& path, uint64_t matched,
                     uint64_t unmatched_sends, uint64_t unmatched_recvs) {
  std::ofstream o(path);
  if (!o) fail(path, "cannot create file");
  const Defs& d = s.defs;
  o << "{\"format\": 1, \"anchor\": " << json_string(s.anchor)
    << ", \"clock\": {\"resolution\": " << d.resolution << ", \"offset\": " << d.offset
    << ", \"length\": " << d.length << "}"
    << ", \"time_range_ns\": [" << (s.events_total ? s.min_time : 0) << ", "
    << (s.events_total ? s.max_time : 0) << "]"
    << ", \"events\": " << s.events_total << ", \"unbalanced_leaves\": " << s.unbalanced
    << ", \"messages\": {\"matched\": " << matched << ", \"unmatched_sends\": " << unmatched_sends
    << ", \"unmatched_receives\": " << unmatched_recvs << ", \"unknown_partner\": "
    << s.unknown_partner << "}";
  o << ", \"system_tree\": [";
  bool first = true;
  for (const auto& [id, n] : d.nodes) {
    o << (first ? "" : ", ") << "{\"id\": " << id << ", \"name\": " << json_string(n.name)
      << ", \"class\": " << json_string(n.cls) << ", \"parent\": "
      << (n.parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? std::string("null") : std::to_string(n.parent))
      << "}";
    first = false;
  }
  o << "], \"location_groups\": [";
  first = true;
  for (const auto& [id, g] : d.groups_loc) {
    o << (first ? "" : ", ") << "{\"id\": " << id << ", \"name\": " << json_string(g.name)
      << ", \"type\": " << int(g.type) << ", \"parent\": "
      << (g.parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE ? std::string("null") : std::to_string(g.parent))
      << "}";
    first = false;
  }
  std::vector<int32_t> loc_world(d.locations.size(), -1);
  for (size_t w = 0; w < s.world_to_loc.size(); ++w)
    if (s.world_to_loc[w] >= 0) loc_world[s.world_to_loc[w]] = static_cast<int32_t>(w);
  o << "], \"locations\": [";
  for (size_t i = 0; i < d.locations.size(); ++i) {
    const auto& l = d.locations[i];
    int32_t world = i < loc_world.size() ? loc_world[i] : -1;
    o << (i ? ", " : "") << "{\"id\": " << l.id << ", \"name\": " << json_string(l.name)
      << ", \"type\": " << int(l.type) << ", \"group\": " << l.group << ", \"world_rank\": " << world
      << ", \"events\": " << l.events << "}";
  }
  o << "], \"regions\": [";
  first = true;
  for (const auto& [id, r] : d.regions) {
    o << (first ? "" : ", ") << "{\"id\": " << id << ", \"name\": " << json_string(r.name)
      << ", \"canonical\": " << json_string(r.canonical) << ", \"file\": " << json_string(r.file)
      << ", \"role\": " << int(r.role) << ", \"paradigm\": " << int(r.paradigm)
      << ", \"mpi\": " << (is_mpi_region(r) ? "true" : "false") << "}";
    first = false;
  }
  o << "], \"comms\": [";
  first = true;
  for (const auto& [id, c] : d.comms) {
    o << (first ? "" : ", ") << "{\"id\": " << id << ", \"name\": " << json_string(c.name) << "}";
    first = false;
  }
  o << "], \"callpaths\": {\"parent\": [";
  for (size_t i = 0; i < s.cp_parent.size(); ++i) o << (i ? ", " : "") << s.cp_parent[i];
  o << "], \"region\": [";
  for (size_t i = 0; i < s.cp_region.size(); ++i) o << (i ? ", " : "") << s.cp_region[i];
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

// Pair the i-th send with the i-th receive of each (sender, receiver, comm, tag): MPI's
// non-overtaking rule makes that the real matching.
std::vector<Message> match_messages(const State& s, uint64_t& unmatched_sends, uint64_t& unmatched_recvs) {
  std::vector<Message> out;
  unmatched_sends = unmatched_recvs = 0;
  for (const auto& [key, sv] : s.sends) {
    auto rit = s.recvs.find(key);
    size_t nr = rit == s.recvs.end() ? 0 : rit->second.size();
    size_t n = std::min(sv.size(), nr);
    for (size_t i = 0; i < n; ++i) {
      const auto& r = rit->second[i];
      out.push_back({std::get<0>(key), std::get<1>(key), sv[i].time, r.time, sv[i].bytes,
                     std::get<3>(key), std::get<2>(key)});
    }
    unmatched_sends += sv.size() - n;
    unmatched_recvs += nr - n;
  }
  for (const auto& [key, rv] : s.recvs)
    if (!s.sends.count(key)) unmatched_recvs += rv.size();
  std::sort(out.begin(), out.end(), [](const Message& a, const Message& b) {
    return std::tie(a.ts, a.from, a.to, a.tr, a.tag, a.comm) < std::tie(b.ts, b.from, b.to, b.tr, b.tag, b.comm);
  });
  return out;
}

void check(OTF2_ErrorCode rc, const std::string& where, const char* what) {
  if (rc != OTF2_SUCCESS)
    fail(where, std::string(what) + ": " + OTF2_Error_GetName(rc) + " (" +
                    OTF2_Error_GetDescription(rc) + ")");
}

}  // namespace

int run_dump(int argc, char** argv) {
  if (argc < 2) fail("dump", "usage: dump ANCHOR OUTDIR [--events]");
  static State s;  // large; lives for the whole run
  s.anchor = argv[0];
  std::string outdir = argv[1];
  s.want_events = argc > 2 && !std::strcmp(argv[2], "--events");

  OTF2_Reader* reader = OTF2_Reader_Open(s.anchor.c_str());
  if (!reader) fail(s.anchor, "cannot open OTF2 archive");
  check(OTF2_Reader_SetSerialCollectiveCallbacks(reader), s.anchor, "serial mode");

  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(reader);
  if (!gdr) fail(s.anchor, "cannot read global definitions");
  OTF2_GlobalDefReaderCallbacks* gcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gcb, def_node);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, def_lgroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
  check(OTF2_Reader_RegisterGlobalDefCallbacks(reader, gdr, gcb, &s), s.anchor, "definitions");
  OTF2_GlobalDefReaderCallbacks_Delete(gcb);
  uint64_t ndefs = 0;
  check(OTF2_Reader_ReadAllGlobalDefinitions(reader, gdr, &ndefs), s.anchor, "reading global definitions");
  if (!s.defs.have_clock) fail(s.anchor, "no ClockProperties definition");
  if (s.defs.locations.empty()) fail(s.anchor, "the trace defines no locations");

  for (size_t i = 0; i < s.defs.locations.size(); ++i)
    s.loc_index[s.defs.locations[i].id] = static_cast<int32_t>(i);
  for (const auto& [id, g] : s.defs.groups) {
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == OTF2_PARADIGM_MPI) {
      s.world_to_loc.assign(g.members.size(), -1);
      for (size_t r = 0; r < g.members.size(); ++r) {
        auto it = s.loc_index.find(g.members[r]);
        if (it != s.loc_index.end()) s.world_to_loc[r] = it->second;
      }
    }
  }

  for (const auto& l : s.defs.locations) OTF2_Reader_SelectLocation(reader, l.id);
  bool def_files = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
  check(OTF2_Reader_OpenEvtFiles(reader), s.anchor, "opening event files");
  for (const auto& l : s.defs.locations) {
    if (def_files) {
      OTF2_DefReader* dr = OTF2_Reader_GetDefReader(reader, l.id);
      if (dr) {
        uint64_t n = 0;
        check(OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n), s.anchor, "reading local definitions");
        OTF2_Reader_CloseDefReader(reader, dr);
      }
    }
    OTF2_Reader_GetEvtReader(reader, l.id);
  }
  if (def_files) OTF2_Reader_CloseDefFiles(reader);

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

  OTF2_EvtReaderCallbacks* ecb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, ev_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, ev_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);

  for (size_t i = 0; i < s.defs.locations.size(); ++i) {
    const auto& l = s.defs.locations[i];
    s.cur_loc = static_cast<int32_t>(i);
    s.stack.clear();
    s.seg_open = false;
    s.mpi_cum = 0;
    s.seg_offsets.push_back(s.seg_time.size());
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(reader, l.id);
    if (!er) fail(s.anchor, "no event reader for location " + std::to_string(l.id));
    check(OTF2_Reader_RegisterEvtCallbacks(reader, er, ecb, &s), s.anchor, "event callbacks");
    uint64_t n = 0;
    check(OTF2_Reader_ReadAllLocalEvents(reader, er, &n), s.anchor,
          ("reading events of location " + std::to_string(l.id)).c_str());
    // close the location's time line: a final state "no region" at its last event
    if (s.seg_open) {
      if (s.seg_cp >= 0) emit_segment(s, s.last_time, -1);
      s.seg_time.push(s.seg_start);
      s.seg_cp_col.push(-1);
      s.seg_mpicum.push(s.mpi_cum);
    }
    OTF2_Reader_CloseEvtReader(reader, er);
  }
  s.seg_offsets.push_back(s.seg_time.size());
  OTF2_EvtReaderCallbacks_Delete(ecb);
  OTF2_Reader_CloseEvtFiles(reader);
  OTF2_Reader_Close(reader);

  s.seg_time.close();
  s.seg_cp_col.close();
  s.seg_mpicum.close();
  if (s.want_events) {
    s.ev_loc.close(); s.ev_time.close(); s.ev_kind.close(); s.ev_region.close();
    s.ev_partner.close(); s.ev_comm.close(); s.ev_tag.close(); s.ev_bytes_sent.close();
    s.ev_bytes_recv.close(); s.ev_request.close();
  }

  uint64_t us = 0, ur = 0;
  std::vector<Message> msgs = match_messages(s, us, ur);
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
    for (const auto& m : msgs) {
      from.push(m.from); to.push(m.to); ts.push(m.ts); tr.push(m.tr);
      bytes.push(m.bytes); tag.push(m.tag); comm.push(m.comm);
    }
    from.close(); to.close(); ts.close(); tr.close(); bytes.close(); tag.close(); comm.close();
  }
  write_defs_json(s, outdir + "/defs.json", msgs.size(), us, ur);
  return 0;
}

}  // namespace gs
