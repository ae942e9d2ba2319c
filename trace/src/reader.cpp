#include "gridscope/trace/reader.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>

#include "gridscope/trace/error.hpp"

namespace gs {
namespace {

// Outstanding requests of one location: usually a handful, so a flat list searched from
// the newest end beats a hash map; a map takes over when many are pending.
template <class V>
class RequestTable {
 public:
  void put(uint64_t req, V v) {
    if (!map_.empty() || flat_.size() >= kFlat) { map_[req] = v; return; }
    flat_.push_back({req, v});
  }
  bool take(uint64_t req, V* v) {
    for (size_t i = flat_.size(); i-- > 0;)
      if (flat_[i].first == req) {
        *v = flat_[i].second;
        flat_[i] = flat_.back();
        flat_.pop_back();
        return true;
      }
    auto it = map_.find(req);
    if (it == map_.end()) return false;
    *v = it->second;
    map_.erase(it);
    return true;
  }

 private:
  static constexpr size_t kFlat = 32;
  std::vector<std::pair<uint64_t, V>> flat_;
  std::unordered_map<uint64_t, V> map_;
};

// Faults in the record arrays' pages ahead of use, 2 MiB per system call: one fault per
// 4 KiB page taken while reading costs more than the kernel filling them in bulk.
class Prefault {
 public:
  template <class T>
  void after_push(const std::vector<T>& v) {
    uintptr_t end = reinterpret_cast<uintptr_t>(v.data() + v.size());
    if (end > begin_ && end <= done_) return;  // inside the populated window
    if (end <= begin_ || end > done_ + kStep) begin_ = done_ = end & ~uintptr_t(4095);  // first use, or moved
    uintptr_t next = std::min(reinterpret_cast<uintptr_t>(v.data() + v.capacity()), done_ + kStep);
    if (next > done_) madvise(reinterpret_cast<void*>(done_), next - done_, kPopulateWrite);
    done_ = next;
  }

 private:
  static constexpr uintptr_t kStep = uintptr_t(2) << 20;
  static constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE (Linux 5.14); older kernels refuse it, harmlessly
  uintptr_t begin_ = 0, done_ = 0;
};

struct Prefaults { Prefault sends, recvs; };

enum : uint8_t { PEND_SEND = 0, PEND_RECV = 1 };

struct Frame { uint32_t cp; uint32_t instance; int64_t enter; uint32_t pend; int64_t coll_begin; };

struct Posted { int64_t enter; uint32_t seq; };  // an MPI_Irecv's region enter and posting rank

struct LocState {
  const Defs* d;
  LocalData* out;
  Prefaults* prefault;
  uint32_t rank;
  std::vector<Frame> stack;
  int64_t last = 0;
  std::vector<int64_t> time;
  std::vector<uint64_t> visits, bsent, brecv;
  std::vector<std::pair<uint8_t, uint32_t>> pend;
  RequestTable<Posted> irecv_req;
  // Posting sequence of this location's receives (MpiIrecvRequest, or the blocking
  // receive itself), kept only until the location is read.
  std::vector<uint32_t> recv_seq;
  uint32_t posts = 0;
  RequestTable<uint32_t> isend_req;
  std::unordered_map<uint32_t, uint32_t> coll_seq;
  uint32_t instances = 0;  // wraps (RecvRec keeps 31 bits); only equality of neighbours matters
  std::string error;

  int64_t ts(OTF2_TimeStamp t) const { return int64_t(t - d->global_offset); }
  void grow(uint32_t cp) {
    if (cp >= time.size()) {
      size_t n = std::max<size_t>(cp + 1, time.size() * 2);
      time.resize(n); visits.resize(n); bsent.resize(n); brecv.resize(n);
    }
  }
  OTF2_CallbackCode fail(const std::string& msg) {
    if (error.empty()) error = msg;
    return OTF2_CALLBACK_INTERRUPT;
  }
  bool need_frame() { return !stack.empty(); }
};

#define STATE auto* s = static_cast<LocState*>(u)
#define EVT_ARGS OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u, OTF2_AttributeList*

OTF2_CallbackCode on_enter(EVT_ARGS, OTF2_RegionRef region) {
  STATE;
  if (region >= s->d->regions.size()) return s->fail("Enter of undefined region " + std::to_string(region));
  int64_t now = s->ts(t);
  uint32_t parent = kNone;
  if (!s->stack.empty()) {
    parent = s->stack.back().cp;
    s->time[parent] += now - s->last;
  }
  uint32_t cp = s->out->tree.child(parent, region);
  s->grow(cp);
  s->visits[cp]++;
  s->out->mpi_events += s->d->regions[region].is_mpi;  // MPI calls count, even without messages
  s->stack.push_back({cp, ++s->instances, now, uint32_t(s->pend.size()), INT64_MIN});
  s->last = now;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_leave(EVT_ARGS, OTF2_RegionRef region) {
  STATE;
  if (s->stack.empty()) return s->fail("Leave without Enter (corrupt event stream)");
  Frame f = s->stack.back();
  if (s->out->tree.nodes[f.cp].region != region)
    return s->fail("Leave of region " + std::to_string(region) + " does not match its Enter (corrupt event stream)");
  int64_t now = s->ts(t);
  s->time[f.cp] += now - s->last;
  s->last = now;
  for (size_t i = f.pend; i < s->pend.size(); ++i) {
    auto [kind, idx] = s->pend[i];
    if (kind == PEND_SEND) s->out->sends[idx].c_leave = now;
    else s->out->recvs[idx].leave = now;
  }
  s->pend.resize(f.pend);
  s->stack.pop_back();
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode add_send(LocState* s, OTF2_TimeStamp t, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                           uint64_t len, bool blocking, uint64_t req) {
  if (s->stack.empty()) return s->fail("MPI send outside any region (corrupt event stream)");
  uint32_t dst = s->d->world_rank(comm, receiver, s->rank);
  if (dst == UINT32_MAX) return s->fail("send to unknown rank " + std::to_string(receiver) + " of communicator " + std::to_string(comm));
  const Frame& f = s->stack.back();
  const RegionDef& reg = s->d->regions[s->out->tree.nodes[f.cp].region];
  SendRec r{};
  r.src = s->rank; r.dst = dst; r.comm = comm; r.tag = tag;
  r.enter = f.enter; r.evt = s->ts(t); r.lr_ok = reg.lr_send;
  r.c_enter = f.enter; r.c_leave = r.evt; r.cp_complete = f.cp;
  uint32_t idx = s->out->sends.size();
  if (blocking) {
    r.complete = 1;
    s->pend.push_back({PEND_SEND, idx});
  } else {
    r.complete = 0;
    s->isend_req.put(req, idx);
  }
  s->out->sends.push_back(r);
  s->prefault->sends.after_push(s->out->sends);
  s->bsent[f.cp] += len;
  s->out->mpi_events++;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_send(EVT_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
  return add_send(static_cast<LocState*>(u), t, receiver, comm, tag, len, true, 0);
}
OTF2_CallbackCode on_isend(EVT_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req) {
  return add_send(static_cast<LocState*>(u), t, receiver, comm, tag, len, false, req);
}
OTF2_CallbackCode on_isend_complete(EVT_ARGS, uint64_t req) {
  STATE;
  uint32_t idx;
  if (s->stack.empty() || !s->isend_req.take(req, &idx)) return OTF2_CALLBACK_SUCCESS;  // unknown request: ignore
  SendRec& r = s->out->sends[idx];
  const Frame& f = s->stack.back();
  r.complete = 1; r.c_enter = f.enter; r.c_leave = s->ts(t); r.cp_complete = f.cp;
  s->pend.push_back({PEND_SEND, idx});
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_irecv_request(EVT_ARGS, uint64_t req) {
  STATE;
  if (!s->stack.empty()) s->irecv_req.put(req, {s->stack.back().enter, s->posts++});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode add_recv(LocState* s, OTF2_TimeStamp t, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                           uint64_t len, bool has_req, uint64_t req) {
  if (s->stack.empty()) return s->fail("MPI receive outside any region (corrupt event stream)");
  uint32_t src = s->d->world_rank(comm, sender, s->rank);
  if (src == UINT32_MAX) return s->fail("receive from unknown rank " + std::to_string(sender) + " of communicator " + std::to_string(comm));
  const Frame& f = s->stack.back();
  RecvRec r{};
  r.src = src; r.dst = s->rank; r.comm = comm; r.tag = tag;
  r.cp = f.cp; r.enter = f.enter; r.leave = s->ts(t); r.evt = r.leave; r.req_enter = f.enter;
  r.bytes = len; r.instance = f.instance & 0x7fffffffu;
  r.is_test = s->d->regions[s->out->tree.nodes[f.cp].region].is_test;
  Posted posted;
  uint32_t seq;
  if (has_req && s->irecv_req.take(req, &posted)) {
    r.req_enter = posted.enter;
    seq = posted.seq;
  } else {
    seq = s->posts++;  // a blocking receive (or an unknown request) is posted where it completes
  }
  s->recv_seq.push_back(seq);
  s->pend.push_back({PEND_RECV, uint32_t(s->out->recvs.size())});
  s->out->recvs.push_back(r);
  s->prefault->recvs.after_push(s->out->recvs);
  s->brecv[f.cp] += len;
  s->out->mpi_events++;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_recv(EVT_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
  return add_recv(static_cast<LocState*>(u), t, sender, comm, tag, len, false, 0);
}
OTF2_CallbackCode on_irecv(EVT_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req) {
  return add_recv(static_cast<LocState*>(u), t, sender, comm, tag, len, true, req);
}

OTF2_CallbackCode on_coll_begin(EVT_ARGS) {
  STATE;
  if (!s->stack.empty()) s->stack.back().coll_begin = s->ts(t);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_coll_end(EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                              uint64_t received) {
  STATE;
  if (s->stack.empty()) return s->fail("collective outside any region (corrupt event stream)");
  const Frame& f = s->stack.back();
  s->bsent[f.cp] += sent;
  s->brecv[f.cp] += received;
  s->out->mpi_events++;
  if (comm >= s->d->comms.size() || !s->d->comms[comm].defined)
    return s->fail("collective on undefined communicator " + std::to_string(comm));
  const CommDef& c = s->d->comms[comm];
  if (c.is_self || c.members.size() < 2) return OTF2_CALLBACK_SUCCESS;  // size-1: nothing to wait for
  auto pos = c.position.find(s->rank);
  if (pos == c.position.end()) return s->fail("collective on communicator " + std::to_string(comm) + " that does not contain this rank");
  uint32_t seq = s->coll_seq[comm]++;
  const RegionDef& reg = s->d->regions[s->out->tree.nodes[f.cp].region];
  CollClass cls = reg.coll != CollClass::None ? reg.coll : collective_class(op);
  if (cls == CollClass::None || cls == CollClass::Skipped) return OTF2_CALLBACK_SUCCESS;
  CollRec r{};
  r.comm = comm; r.seq = seq; r.rank = s->rank; r.pos = pos->second; r.cp = f.cp;
  r.root = root == OTF2_UNDEFINED_UINT32 ? kNone : s->d->world_rank(comm, root, s->rank);
  r.cls = uint8_t(cls); r.sent = sent; r.received = received;
  r.begin = f.coll_begin != INT64_MIN ? f.coll_begin : f.enter;
  r.end = s->ts(t);
  s->out->colls.push_back(r);
  return OTF2_CALLBACK_SUCCESS;
}

// What a location's local definitions hold that libotf2 would apply to every event.
struct LocalDefCounts { uint64_t clock_offsets = 0, mapping_tables = 0; };

OTF2_CallbackCode on_clock_offset(void* u, OTF2_TimeStamp, int64_t, double) {
  static_cast<LocalDefCounts*>(u)->clock_offsets++;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_mapping_table(void* u, OTF2_MappingType, const OTF2_IdMap*) {
  static_cast<LocalDefCounts*>(u)->mapping_tables++;
  return OTF2_CALLBACK_SUCCESS;
}

bool file_exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

std::string archive_dir(const std::string& anchor) {
  std::string dir = anchor.substr(0, anchor.size() >= 5 ? anchor.size() - 5 : 0);  // strip ".otf2"
  return dir;
}

}  // namespace

void read_locations(OTF2_Reader* reader, const Defs& defs, const std::vector<uint32_t>& ranks, LocalData& out) {
  uint64_t announced = 0;
  for (uint32_t r : ranks) {
    OTF2_Reader_SelectLocation(reader, defs.rank_location[r]);
    announced += defs.rank_events[r];
  }
  // Reserving address space (not memory: pages are touched only when written) saves the
  // copies of repeated growth; a message costs at least 3 events (Enter, MpiSend, Leave).
  out.sends.reserve(announced / 6);
  out.recvs.reserve(announced / 6);
  bool have_defs = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
  if (OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS) throw Error(defs.anchor, "cannot open the event files");

  Prefaults prefault;
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
  OTF2_DefReaderCallbacks* dcb = OTF2_DefReaderCallbacks_New();
  OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, on_clock_offset);
  OTF2_DefReaderCallbacks_SetMappingTableCallback(dcb, on_mapping_table);
  const std::string dir = archive_dir(defs.anchor);

  for (uint32_t rank : ranks) {
    uint64_t loc = defs.rank_location[rank];
    std::string evt_file = dir + "/" + std::to_string(loc) + ".evt";
    if (!file_exists(evt_file)) throw Error(evt_file, "event file of rank " + std::to_string(rank) + " is missing");
    // The event reader must exist before the local definitions are read: OTF2 attaches
    // their ClockOffsets (and mapping tables) to it.
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(reader, loc);
    if (!er) throw Error(evt_file, "cannot open the event stream");
    // Local definitions first: they carry the ClockOffsets OTF2 applies to the events.
    LocalDefCounts counts;
    if (have_defs && file_exists(dir + "/" + std::to_string(loc) + ".def")) {
      OTF2_DefReader* dr = OTF2_Reader_GetDefReader(reader, loc);
      if (dr) {
        uint64_t n = 0;
        OTF2_Reader_RegisterDefCallbacks(reader, dr, dcb, &counts);
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &n);
        if (rc != OTF2_SUCCESS)
          throw Error(dir + "/" + std::to_string(loc) + ".def",
                      std::string("corrupt local definitions: ") + OTF2_Error_GetDescription(rc));
        if (counts.clock_offsets >= 2) out.clock_offsets_applied++;
        OTF2_Reader_CloseDefReader(reader, dr);
      }
    }
    // Without them libotf2 would still look both up for every event (≈ 6 % of the
    // engine's time on the benchmark trace).
    if (counts.clock_offsets == 0) OTF2_EvtReader_ApplyClockOffsets(er, false);
    if (counts.mapping_tables == 0) OTF2_EvtReader_ApplyMappingTables(er, false);
    LocState s;
    s.d = &defs; s.out = &out; s.prefault = &prefault; s.rank = rank;
    const size_t first_recv = out.recvs.size();
    OTF2_Reader_RegisterEvtCallbacks(reader, er, cb, &s);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(reader, er, &n);
    if (!s.error.empty()) throw Error(evt_file, s.error);
    if (rc != OTF2_SUCCESS)
      throw Error(evt_file, std::string("corrupt or truncated event stream: ") + OTF2_Error_GetDescription(rc));
    if (!s.stack.empty())
      throw Error(evt_file, "event stream ends inside region '" +
                                defs.regions[out.tree.nodes[s.stack.back().cp].region].name + "' (truncated?)");
    out.events += n;
    OTF2_Reader_CloseEvtReader(reader, er);
    const bool out_of_order = !std::is_sorted(s.recv_seq.begin(), s.recv_seq.end());
    if (out_of_order || !out.recv_order.empty()) {
      Order& order = out.recv_order;
      for (size_t i = order.size(); i < out.recvs.size(); ++i) order.push_back(uint32_t(i));
      if (out_of_order)
        std::sort(order.begin() + first_recv, order.end(), [&](uint32_t a, uint32_t b) {
          return s.recv_seq[a - first_recv] < s.recv_seq[b - first_recv];
        });
    }
    for (uint32_t cp = 0; cp < s.visits.size(); ++cp)
      if (s.visits[cp]) out.cp_stats.push_back({cp, rank, s.time[cp], s.visits[cp], s.bsent[cp], s.brecv[cp]});
  }
  OTF2_EvtReaderCallbacks_Delete(cb);
  OTF2_DefReaderCallbacks_Delete(dcb);
  OTF2_Reader_CloseEvtFiles(reader);
  if (have_defs) OTF2_Reader_CloseDefFiles(reader);
}

}  // namespace gs
