#include "gridscope/trace/reader.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "gridscope/trace/error.hpp"
#include "reader_impl.hpp"

namespace gs {
namespace {

using namespace reader_detail;

// `sync`: the frame's synchronisation call once it holds a communication event (timeline);
// `seg_mark`: the timeline's segment entries when an MPI call was entered.
// `world`: kInit or kFinalize for MPI_Init(_thread) and MPI_Finalize (else 0), found at the
// Enter, so the Leave need not look up the region again.
struct Frame { uint32_t cp; uint32_t instance; int64_t enter; uint32_t pend; uint8_t world; int64_t coll_begin; uint32_t sync, seg_mark; };

struct Posted { int64_t enter; uint32_t seq, call; };  // an MPI_Irecv's region enter, posting rank and call (timeline)
// A non-blocking collective's initiating call: its enter, class (from its name) and
// initiation ordinal on this location.
struct NbcPosted { int64_t enter; uint32_t ordinal, call; uint8_t cls; };  // call: its timeline call (kNone)

// The handler of one location's balanced events (events.hpp): Enter/Leave feed a call
// stack and per-call-path accumulators, communication events become compact records.
class RecordBuilder {
 public:
  RecordBuilder(const Defs& d, LocalData& out, Prefaults& prefault, ProgramRegions& programs, uint32_t rank,
                Thread thread)
      : d_(d), out_(out), prefault_(prefault), programs_(programs), rank_(rank), thread_(thread) {}
  const std::string& error() const { return error_; }

  static constexpr bool kProgramRoot = true;
  uint32_t program_region(OTF2_StringRef name, uint32_t nargs, const OTF2_StringRef* args) {
    return programs_.of(name, nargs, args);
  }
  uint32_t program_fallback_region() { return programs_.fallback(); }

  OTF2_CallbackCode enter(uint64_t t, uint32_t region) {
    int64_t now = ts(t);
    if (now < out_.first_ts) out_.first_ts = now;
    uint32_t parent = kNone;
    if (!stack_.empty()) {
      parent = stack_.back().cp;
      time_[parent] += now - last_;
      if (tl_.enabled) segment_add(parent, now - last_);
    } else if (tl_.enabled && !started_) {
      tl_.rank_start.push_back(now);
      started_ = true;
    }
    uint32_t cp = out_.tree.child(parent, region);
    grow(cp);
    visits_[cp]++;
    const bool mpi = d_.regions[region].is_mpi;
    out_.mpi_events += mpi;  // MPI calls count, even without messages
    const uint8_t world = mpi ? init_or_finalize(region) : 0;
    uint32_t mark = 0;  // (a communication event outside an MPI call: its segment ends here)
    if (tl_.enabled) mark = mpi ? segment_flush() : uint32_t(tl_.seg.size());
    stack_.push_back({cp, ++instances_, now, uint32_t(pend_.size()), world, INT64_MIN, kNone, mark});
    last_ = now;
    if (tl_.enabled && world) {  // MPI_Init and MPI_Finalize synchronise every rank (as in Scalasca)
      const uint32_t call = sync_call();
      tl_.barriers.push_back({call, kAllRanks});
      (world == kInit ? tl_.rank_init : tl_.rank_finalize).back() = call;
    }
    return OTF2_CALLBACK_SUCCESS;
  }

  OTF2_CallbackCode leave(uint64_t t, uint32_t) {  // balanced: the innermost frame's region
    Frame f = stack_.back();
    int64_t now = ts(t);
    if (now > out_.last_ts) out_.last_ts = now;
    time_[f.cp] += now - last_;
    if (tl_.enabled) {
      if (f.sync != kNone) {  // the call's own time is the call's, not the next segment's
        tl_.calls.set_leave(f.sync, now);
        segment_discard();
        seg_start_ = uint32_t(tl_.seg.size());
      } else {
        segment_add(f.cp, now - last_);
      }
    }
    last_ = now;
    if (f.world && !thread_)  // MPI_Init(_thread), MPI_Finalize: instances of every rank (patterns)
      out_.world_calls.push_back({rank_, f.cp, f.world == kInit ? kWorldInit : kWorldFinalize, {}, f.enter, now});
    for (size_t i = f.pend; i < pend_.size(); ++i) {
      auto [kind, idx] = pend_[i];
      if (kind == PEND_SEND) out_.sends.set_last(idx, now);  // c_leave
      else if (kind == PEND_RECV) out_.recvs.set_last(idx, now);  // leave
      else out_.nbcs[idx].leave = now;
    }
    pend_.resize(f.pend);
    stack_.pop_back();
    return OTF2_CALLBACK_SUCCESS;
  }

  OTF2_CallbackCode send(uint64_t t, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
    return add_send(t, receiver, comm, tag, len, true, 0);
  }
  OTF2_CallbackCode isend(uint64_t t, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                          uint64_t req) {
    return add_send(t, receiver, comm, tag, len, false, req);
  }
  OTF2_CallbackCode isend_complete(uint64_t t, uint64_t req) {
    uint32_t idx;
    if (stack_.empty() || !isend_req_.take(req, &idx)) return OTF2_CALLBACK_SUCCESS;  // unknown request: ignore
    SendRec r = out_.sends[idx];
    const Frame& f = stack_.back();
    r.complete = 1; r.c_enter = f.enter; r.c_leave = ts(t); r.cp_complete = f.cp;
    out_.sends.set(idx, r);
    pend_.emplace_back(PEND_SEND, idx);
    if (tl_.enabled) tl_.send_done_call[idx] = sync_call();
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode irecv_request(uint64_t, uint64_t req) {
    if (!stack_.empty()) irecv_req_.put(req, {stack_.back().enter, posts_++, tl_.enabled ? sync_call() : kNone});
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode recv(uint64_t t, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
    return add_recv(t, sender, comm, tag, len, false, 0);
  }
  OTF2_CallbackCode irecv(uint64_t t, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                          uint64_t req) {
    return add_recv(t, sender, comm, tag, len, true, req);
  }
  OTF2_CallbackCode coll_begin(uint64_t t) {
    if (!stack_.empty()) stack_.back().coll_begin = ts(t);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode coll_end(uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                             uint64_t received);
  OTF2_CallbackCode nbc_request(uint64_t, uint64_t req) {
    out_.mpi_events++;
    if (stack_.empty()) return OTF2_CALLBACK_SUCCESS;  // outside any call: no join time, completion finds no request
    const Frame& f = stack_.back();
    uint32_t region = out_.tree.nodes[f.cp].region;
    const uint32_t call = tl_.enabled ? sync_call() : kNone;
    nbc_req_.put(req, {f.enter, uint32_t(nbc_done_.size()), call, uint8_t(nonblocking_class(region))});
    nbc_done_.push_back(0);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode nbc_complete(uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                 uint64_t received, uint64_t req);

  // MPI-IO and one-sided bytes (events.hpp): charged to the innermost call, as Score-P's
  // profile charges them (io_bytes_read/written by the operation's mode, bytes_put/get).
  static constexpr bool kTransfers = true;
  OTF2_CallbackCode io_begin(uint64_t, OTF2_IoHandleRef handle, OTF2_IoOperationMode mode, uint64_t id) {
    io_open_.push_back({handle, mode, id});
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode io_complete(uint64_t, OTF2_IoHandleRef handle, uint64_t bytes, uint64_t id) {
    for (size_t i = io_open_.size(); i-- > 0;)  // blocking operations: the newest one
      if (io_open_[i].handle == handle && io_open_[i].id == id) {
        const bool read = io_open_[i].mode == OTF2_IO_OPERATION_MODE_READ;
        io_open_.erase(io_open_.begin() + i);
        if (!stack_.empty()) (read ? io_read_ : io_written_)[stack_.back().cp] += bytes;
        break;
      }
    return OTF2_CALLBACK_SUCCESS;  // (a completion without its begin: mode unknown, not counted)
  }
  OTF2_CallbackCode rma_put(uint64_t, uint64_t bytes) { return rma_atomic(0, bytes, 0); }
  OTF2_CallbackCode rma_get(uint64_t, uint64_t bytes) { return rma_atomic(0, 0, bytes); }
  OTF2_CallbackCode rma_atomic(uint64_t, uint64_t put, uint64_t get) {
    if (!stack_.empty()) {
      bput_[stack_.back().cp] += put;
      bget_[stack_.back().cp] += get;
    }
    return OTF2_CALLBACK_SUCCESS;
  }

  // After the location: receives in posting order where that differs, sequence numbers of
  // the non-blocking collectives, call-path statistics.
  void finish_location(size_t first_recv, size_t first_nbc);

 private:
  int64_t ts(uint64_t t) const { return int64_t(t - d_.global_offset); }
  void grow(uint32_t cp) {
    if (cp >= time_.size()) {
      size_t n = std::max<size_t>(cp + 1, time_.size() * 2);
      time_.resize(n); visits_.resize(n); bsent_.resize(n); brecv_.resize(n);
      bput_.resize(n); bget_.resize(n); io_read_.resize(n); io_written_.resize(n);
    }
  }
  OTF2_CallbackCode fail(const std::string& msg) {
    if (error_.empty()) error_ = msg;
    return OTF2_CALLBACK_INTERRUPT;
  }
  OTF2_CallbackCode add_send(uint64_t t, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                             bool blocking, uint64_t req);
  OTF2_CallbackCode add_recv(uint64_t t, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len,
                             bool has_req, uint64_t req);
  CollClass nonblocking_class(uint32_t region) {
    if (region >= nbc_class_.size()) nbc_class_.resize(region + 1, kUnclassified);
    if (nbc_class_[region] == kUnclassified) nbc_class_[region] = uint8_t(nonblocking_collective_class(d_.regions[region].name));
    return CollClass(nbc_class_[region]);
  }
  void sequence_nbcs(size_t first_nbc);
  // The part of a blocking or non-blocking collective's event both share: its bytes at the
  // innermost call, the communicator checks, and this rank's position in it (kNone: a
  // communicator of one, nothing to analyse).
  OTF2_CallbackCode collective_event(OTF2_CommRef comm, uint64_t sent, uint64_t received, uint32_t* pos);

  static constexpr uint8_t kInit = 1, kFinalize = 2;
  uint8_t init_or_finalize(uint32_t region) {
    if (region >= init_fin_.size()) init_fin_.resize(region + 1, kUnclassified);
    if (init_fin_[region] == kUnclassified) {
      const std::string& n = d_.regions[region].name;
      init_fin_[region] = n == "MPI_Init" || n == "MPI_Init_thread" ? kInit : n == "MPI_Finalize" ? kFinalize : 0;
    }
    return init_fin_[region];
  }

  // Timeline (root causes): time since the last flush per call path, emitted as segment
  // entries when an MPI call is entered (and discarded when a synchronisation call ends).
  void segment_add(uint32_t cp, int64_t dt) {
    if (dt == 0) return;
    if (cp >= seg_acc_.size()) seg_acc_.resize(std::max<size_t>(cp + 1, seg_acc_.size() * 2), 0);
    if (seg_acc_[cp] == 0) touched_.push_back(cp);  // (listed twice if it went back to 0: flushed once)
    seg_acc_[cp] += dt;
  }
  uint32_t segment_flush() {
    for (uint32_t cp : touched_) {
      const int64_t v = seg_acc_[cp];
      if (v) {
        tl_.seg.push_back({cp, v});
        prefault_.seg.after_push(tl_.seg.packed());
      }
      seg_acc_[cp] = 0;
    }
    touched_.clear();
    return uint32_t(tl_.seg.size());
  }
  void segment_discard() {
    for (uint32_t cp : touched_) seg_acc_[cp] = 0;
    touched_.clear();
  }
  // The innermost frame as a synchronisation call (made one on its first communication event).
  uint32_t sync_call() {
    Frame& f = stack_.back();
    if (f.sync == kNone) {
      f.sync = add_call(f.enter, f.cp, f.seg_mark);
      prefault_.calls.after_push(tl_.calls.packed());
    }
    return f.sync;
  }
  // A timeline call whose segment is seg[seg_start_, seg_end); the previous call's end is
  // listed (Timeline::seg_ends) where it is not this one's begin.
  uint32_t add_call(int64_t at, uint32_t cp, uint32_t seg_end) {
    if (seg_start_ & kSegListed) throw std::length_error("timeline: more than 2^31 segment entries");
    if (prev_call_ != kNone && prev_end_ != seg_start_) list_seg_end(prev_call_, prev_end_);
    prev_call_ = tl_.calls.add(at, cp, seg_start_);
    prev_end_ = seg_end;
    return prev_call_;
  }
  void list_seg_end(uint32_t call, uint32_t end) {
    tl_.calls.set_listed(call);
    tl_.seg_ends.push_back({call, end});
  }

  const Defs& d_;
  LocalData& out_;
  Prefaults& prefault_;
  ProgramRegions& programs_;
  uint32_t rank_;
  Thread thread_;
  std::vector<Frame> stack_;
  int64_t last_ = 0;
  std::vector<int64_t> time_;
  std::vector<uint64_t> visits_, bsent_, brecv_;
  std::vector<uint64_t> bput_, bget_, io_read_, io_written_;  // one-sided and MPI-IO bytes
  struct IoOpen { OTF2_IoHandleRef handle; OTF2_IoOperationMode mode; uint64_t id; };
  std::vector<IoOpen> io_open_;  // I/O operations begun, not completed
  std::vector<std::pair<uint8_t, uint32_t>> pend_;
  RequestTable<Posted> irecv_req_;
  // Posting sequence of this location's receives (MpiIrecvRequest, or the blocking
  // receive itself), kept only until the location is read.
  std::vector<uint32_t> recv_seq_;
  uint32_t posts_ = 0;
  RequestTable<uint32_t> isend_req_;
  std::unordered_map<uint32_t, uint32_t> coll_seq_;
  uint32_t instances_ = 0;  // wraps (NbcRec keeps 24 bits); only equality of neighbours matters
  // The channel of the latest send to / receive from a peer (a direct-mapped cache by peer
  // rank): a rank's messages with one peer mostly keep their communicator and tag, and the
  // channel table's lookup is skipped. (Per-rank arrays cost each location a pass over all
  // ranks.)
  struct PeerChannel { uint32_t peer = kNone, comm = 0, tag = 0, id = kNone; };
  using PeerCache = std::array<PeerChannel, 64>;
  PeerCache send_peer_{}, recv_peer_{};
  uint32_t channel(PeerCache& peers, uint32_t peer, const ChanKey& key) {
    PeerChannel& c = peers[peer % peers.size()];
    if (c.peer != peer || c.comm != key.comm || c.tag != key.tag) c = {peer, key.comm, key.tag, out_.channels->id(key)};
    return c.id;
  }
  uint32_t last_recv_instance_ = 0;  // the region instance of this location's latest receive
  bool had_recv_ = false;
  // non-blocking collectives: pending requests, per initiation ordinal whether it completed,
  // the ordinal of each record, communicators with a completion of an unknown request
  RequestTable<NbcPosted> nbc_req_;
  std::vector<uint8_t> nbc_done_;
  std::vector<uint32_t> nbc_ordinal_;
  std::vector<uint32_t> nbc_unknown_comms_;
  static constexpr uint8_t kUnclassified = 0xff;
  std::vector<uint8_t> nbc_class_;  // CollClass by initiating region (kUnclassified: not looked up yet)
  std::vector<uint8_t> init_fin_;   // kInit, kFinalize or 0 by region (kUnclassified: not looked up yet)
  std::string error_;
  Timeline& tl_ = out_.timeline;
  std::vector<int64_t> seg_acc_;
  std::vector<uint32_t> touched_;
  uint32_t seg_start_ = uint32_t(out_.timeline.seg.size());
  uint32_t prev_call_ = kNone, prev_end_ = 0;  // this rank's latest timeline call and its segment's end
  bool started_ = false;
};

OTF2_CallbackCode RecordBuilder::add_send(uint64_t t, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                          uint64_t len, bool blocking, uint64_t req) {
  if (stack_.empty()) return fail("MPI send outside any region (corrupt event stream)");
  uint32_t dst = d_.world_rank(comm, receiver, rank_);
  if (dst == UINT32_MAX) return fail("send to unknown rank " + std::to_string(receiver) + " of communicator " + std::to_string(comm));
  const Frame& f = stack_.back();
  const uint32_t idx = out_.sends.size();
  if (blocking) pend_.emplace_back(PEND_SEND, idx);
  else isend_req_.put(req, idx);
  if (tl_.enabled) {
    uint32_t call = sync_call();
    tl_.send_call.push_back(call);
    tl_.send_done_call.push_back(blocking ? call : kNone);
  }
  // (the record made last, after the calls: built in registers, not on the stack)
  const uint32_t chan = channel(send_peer_, dst, {rank_, dst, comm, tag});
  SendRec r{};
  r.src = rank_; r.dst = dst; r.comm = comm; r.tag = tag;
  r.enter = f.enter; r.evt = ts(t); r.lr_ok = d_.regions[out_.tree.nodes[f.cp].region].lr_send; r.thread = thread_;
  r.c_enter = f.enter; r.c_leave = r.evt; r.cp_complete = f.cp; r.bytes = len; r.complete = blocking;
  out_.sends.push_back(r, chan);
  prefault_.sends.after_push(out_.sends.packed());
  bsent_[f.cp] += len;
  out_.mpi_events++;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode RecordBuilder::add_recv(uint64_t t, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                          uint64_t len, bool has_req, uint64_t req) {
  if (stack_.empty()) return fail("MPI receive outside any region (corrupt event stream)");
  uint32_t src = d_.world_rank(comm, sender, rank_);
  if (src == UINT32_MAX) return fail("receive from unknown rank " + std::to_string(sender) + " of communicator " + std::to_string(comm));
  const Frame& f = stack_.back();
  int64_t req_enter = f.enter;
  Posted posted;
  uint32_t seq;
  uint32_t call = tl_.enabled ? sync_call() : kNone, post_call = call;
  if (has_req && irecv_req_.take(req, &posted)) {
    req_enter = posted.enter;
    seq = posted.seq;
    if (posted.call != kNone) post_call = posted.call;
  } else {
    seq = posts_++;  // a blocking receive (or an unknown request) is posted where it completes
  }
  if (tl_.enabled) {
    tl_.recv_call.push_back(call);
    tl_.recv_post_call.push_back(post_call);
  }
  recv_seq_.push_back(seq);
  pend_.emplace_back(PEND_RECV, uint32_t(out_.recvs.size()));
  const uint32_t chan = channel(recv_peer_, src, {src, rank_, comm, tag});
  RecvRec r{};  // (made last, as in add_send)
  r.src = src; r.dst = rank_; r.comm = comm; r.tag = tag;
  r.cp = f.cp; r.enter = f.enter; r.leave = ts(t); r.evt = r.leave; r.req_enter = req_enter;
  r.bytes = len; r.same_call = had_recv_ && f.instance == last_recv_instance_; r.thread = thread_;
  r.is_test = d_.regions[out_.tree.nodes[f.cp].region].is_test;
  out_.recvs.push_back(r, chan);
  prefault_.recvs.after_push(out_.recvs.packed());
  last_recv_instance_ = f.instance;
  had_recv_ = true;
  brecv_[f.cp] += len;
  out_.mpi_events++;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode RecordBuilder::collective_event(OTF2_CommRef comm, uint64_t sent, uint64_t received,
                                                  uint32_t* pos) {
  if (stack_.empty()) return fail("collective outside any region (corrupt event stream)");
  const Frame& f = stack_.back();
  bsent_[f.cp] += sent;  // bytes where the operation completes, as Score-P's profile has them
  brecv_[f.cp] += received;
  out_.mpi_events++;
  if (comm >= d_.comms.size() || !d_.comms[comm].defined)
    return fail("collective on undefined communicator " + std::to_string(comm));
  const CommDef& c = d_.comms[comm];
  *pos = kNone;
  if (c.is_self || c.members.size() < 2) return OTF2_CALLBACK_SUCCESS;
  auto it = c.position.find(rank_);
  if (it == c.position.end()) return fail("collective on communicator " + std::to_string(comm) + " that does not contain this rank");
  *pos = it->second;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode RecordBuilder::coll_end(uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                          uint64_t sent, uint64_t received) {
  uint32_t pos;
  if (OTF2_CallbackCode rc = collective_event(comm, sent, received, &pos); rc != OTF2_CALLBACK_SUCCESS) return rc;
  if (pos == kNone) return OTF2_CALLBACK_SUCCESS;  // a communicator of one: nothing to wait for
  const Frame& f = stack_.back();
  uint32_t seq = coll_seq_[comm]++;
  const RegionDef& reg = d_.regions[out_.tree.nodes[f.cp].region];
  CollClass cls = reg.coll != CollClass::None ? reg.coll : collective_class(op);
  if (cls == CollClass::None || cls == CollClass::Skipped) return OTF2_CALLBACK_SUCCESS;
  CollRec r{};
  r.comm = comm; r.seq = seq; r.rank = rank_; r.pos = pos; r.cp = f.cp; r.thread = thread_;
  r.root = root == OTF2_UNDEFINED_UINT32 ? kNone : d_.world_rank(comm, root, rank_);
  r.cls = uint8_t(cls); r.sent = sent; r.received = received;
  r.begin = f.coll_begin != INT64_MIN ? f.coll_begin : f.enter;
  r.end = ts(t);
  out_.colls.push_back(r);
  prefault_.colls.after_push(out_.colls);
  if (tl_.enabled) {
    uint32_t call = sync_call();
    if (cls == CollClass::Barrier) tl_.barriers.push_back({call, comm});
    tl_.coll_call.push_back(call);
  }
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode RecordBuilder::nbc_complete(uint64_t t, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                              uint64_t sent, uint64_t received, uint64_t req) {
  uint32_t pos;
  if (OTF2_CallbackCode rc = collective_event(comm, sent, received, &pos); rc != OTF2_CALLBACK_SUCCESS) return rc;
  if (pos == kNone) return OTF2_CALLBACK_SUCCESS;  // a communicator of one: nothing to wait for
  const Frame& f = stack_.back();
  const uint32_t done_call = tl_.enabled ? sync_call() : kNone;
  NbcPosted posted;
  if (!nbc_req_.take(req, &posted)) {  // initiated where we cannot see it: its place in the order is unknown
    nbc_unknown_comms_.push_back(comm);
    return OTF2_CALLBACK_SUCCESS;
  }
  nbc_done_[posted.ordinal] = 1;
  NbcRec r{};
  r.comm = comm; r.rank = rank_; r.pos = pos;
  r.root = root == OTF2_UNDEFINED_UINT32 ? kNone : d_.world_rank(comm, root, rank_);
  r.cp = f.cp; r.call = (f.instance & kInstanceMask) | uint32_t(thread_) << 24;  // (unique among the rank's threads)
  r.after_colls = uint32_t(out_.colls.size()); r.thread = thread_;
  CollClass cls = CollClass(posted.cls) != CollClass::None ? CollClass(posted.cls) : collective_class(op);
  r.cls = uint8_t(cls);
  r.is_test = d_.regions[out_.tree.nodes[f.cp].region].is_test;
  r.sent = sent; r.received = received;
  r.join = posted.enter; r.enter = f.enter; r.leave = ts(t);  // leave: set at the call's Leave
  r.req_call = posted.call; r.done_call = done_call;
  pend_.emplace_back(PEND_NBC, uint32_t(out_.nbcs.size()));
  out_.nbcs.push_back(r);
  nbc_ordinal_.push_back(posted.ordinal);
  return OTF2_CALLBACK_SUCCESS;
}

// Instance numbers: the k-th non-blocking collective this location initiated on a
// communicator is its k-th instance there (MPI orders collectives by call, per
// communicator; non-blocking ones never match blocking ones). Records whose number cannot
// be known are dropped, so their instances count as incomplete instead of being matched
// wrongly: all after a request that never completed (its communicator is unknown), and all
// on a communicator where an unknown request completed. Unanalysed classes are dropped
// after numbering (they still take their place in the order).
void RecordBuilder::sequence_nbcs(size_t first_nbc) {
  const uint32_t lost_from = uint32_t(std::find(nbc_done_.begin(), nbc_done_.end(), 0) - nbc_done_.begin());
  std::vector<uint32_t> by_ordinal(out_.nbcs.size() - first_nbc);
  for (size_t i = 0; i < by_ordinal.size(); ++i) by_ordinal[i] = uint32_t(i);
  std::sort(by_ordinal.begin(), by_ordinal.end(), [&](uint32_t a, uint32_t b) { return nbc_ordinal_[a] < nbc_ordinal_[b]; });
  std::unordered_map<uint32_t, uint32_t> next;
  for (uint32_t i : by_ordinal) {
    NbcRec& r = out_.nbcs[first_nbc + i];
    r.seq = next[r.comm]++;
  }
  size_t kept = first_nbc;
  for (size_t i = first_nbc; i < out_.nbcs.size(); ++i) {
    const NbcRec& r = out_.nbcs[i];
    CollClass cls = CollClass(r.cls);
    bool unknown_comm = std::find(nbc_unknown_comms_.begin(), nbc_unknown_comms_.end(), r.comm) != nbc_unknown_comms_.end();
    if (cls == CollClass::None || cls == CollClass::Skipped || nbc_ordinal_[i - first_nbc] > lost_from || unknown_comm)
      continue;
    out_.nbcs[kept++] = r;
  }
  out_.nbcs.resize(kept);
}

void RecordBuilder::finish_location(size_t first_recv, size_t first_nbc) {
  sequence_nbcs(first_nbc);
  const bool out_of_order = !std::is_sorted(recv_seq_.begin(), recv_seq_.end());
  if (out_of_order || !out_.recv_order.empty()) {
    Order& order = out_.recv_order;
    for (size_t i = order.size(); i < out_.recvs.size(); ++i) order.push_back(uint32_t(i));
    if (out_of_order)
      std::sort(order.begin() + first_recv, order.end(), [&](uint32_t a, uint32_t b) {
        return recv_seq_[a - first_recv] < recv_seq_[b - first_recv];
      });
  }
  if (tl_.enabled) {  // the tail: a pseudo-call at the last event
    if (!started_) tl_.rank_start.push_back(last_);
    const uint32_t end = segment_flush();
    list_seg_end(add_call(last_, kNone, end), end);  // a rank's last call: its end always listed
  }
  for (uint32_t cp = 0; cp < visits_.size(); ++cp)
    if (visits_[cp])
      out_.cp_stats.push_back({cp, rank_, thread_, time_[cp], visits_[cp], bsent_[cp], brecv_[cp], bput_[cp], bget_[cp],
                               io_read_[cp], io_written_[cp]});
}

}  // namespace

void read_locations(Archive& archive, const std::vector<uint32_t>& ranks, LocalData& out) {
  const Defs& defs = archive.defs();
  ProgramRegions programs(archive.defs());
  uint64_t announced = 0;
  // each owned rank's master location, then its threads
  std::vector<uint64_t> locations;
  std::vector<std::pair<uint32_t, Thread>> whose;
  for (uint32_t r : ranks) {
    locations.push_back(defs.rank_location[r]);
    whose.push_back({r, 0});
    announced += defs.rank_events[r];
    for (size_t k = 0; k < defs.rank_threads[r].size(); ++k) {
      locations.push_back(defs.rank_threads[r][k]);
      whose.push_back({r, Thread(k + 1)});
    }
  }
  // Reserving address space (not memory: pages are touched only when written) saves the
  // copies of repeated growth; a message costs at least 3 events (Enter, MpiSend, Leave).
  out.sends.reserve(announced / 6);
  out.recvs.reserve(announced / 6);
  out.colls.reserve(announced / 4);  // Enter, CollectiveBegin, CollectiveEnd, Leave
  if (out.timeline.enabled) {  // a synchronisation call takes at least 3 events, a segment entry 2
    out.timeline.calls.reserve(announced / 3 + ranks.size());
    out.timeline.seg.reserve(announced / 2);
    // (the per-record call lists as their records: grown by doubling they left their old
    // copies behind in the heap)
    for (auto* v : {&out.timeline.send_call, &out.timeline.send_done_call, &out.timeline.recv_call,
                    &out.timeline.recv_post_call})
      v->reserve(announced / 6);
    out.timeline.coll_call.reserve(announced / 4);
  }
  Prefaults prefault, part_prefault;
  std::optional<RecordBuilder> builder;
  std::optional<LocalData> part;  // the thread being read
  RankParts parts;
  size_t first_recv = 0, first_nbc = 0;
  read_balanced<RecordBuilder>(
      archive, locations, out.repairs,
      [&](size_t i) -> RecordBuilder& {
        const auto [rank, thread] = whose[i];
        if (thread) {
          part.emplace();
          return builder.emplace(defs, *part, part_prefault, programs, rank, thread);
        }
        first_recv = out.recvs.size();
        first_nbc = out.nbcs.size();
        parts.start(out);
        if (out.timeline.enabled) {
          out.timeline.rank_first.push_back(uint32_t(out.timeline.calls.size()));
          out.timeline.rank_init.push_back(kNone);
          out.timeline.rank_finalize.push_back(kNone);
        }
        return builder.emplace(defs, out, prefault, programs, rank, 0);
      },
      [&](size_t i, uint64_t events, const Archive::LocationInfo& info) {
        if (!whose[i].second) {
          builder->finish_location(first_recv, first_nbc);
          if (!defs.rank_threads[whose[i].first].empty())
            parts.add_posting(out.recv_order, first_recv, out.recvs.size() - first_recv);
        } else {
          builder->finish_location(0, 0);
          if (part->mpi_events == 0) return;  // a thread without MPI: not analysed
          graft(*part, out, parts);
          out.thread_locations++;
          out.thread_events += events;
        }
        out.events += events;
        out.clock_offsets_applied += info.clock_offsets_applied;
        if ((i + 1 == locations.size() || !whose[i + 1].second) && parts.threads()) merge_rank(out, parts);
      });
}

}  // namespace gs
