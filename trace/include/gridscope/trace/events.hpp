// The events of one location, handed to a tool's handler with balanced regions.
//
// Real traces are not always well nested: hand-placed user regions are left while inner
// ones are still open, or never closed. Those are repaired the way a call tree tolerates:
// a Leave closes the user regions still open inside it (at its own time), a Leave of a
// user region that is not open is dropped, and user regions open at the location's end
// are closed at its last event. Each repair is counted (RepairLog). MPI regions are never
// repaired: a Leave that does not match an open MPI region, or a stream that ends inside
// one, is an error naming the region, the rank and the time.
//
// A handler H provides (all return OTF2_CallbackCode; OTF2_CALLBACK_INTERRUPT stops the
// pass, the handler keeps its own message):
//   enter(t, region)  leave(t, region)
//   send(t, receiver, comm, tag, bytes)  isend(..., request)  isend_complete(t, request)
//   irecv_request(t, request)  recv(t, sender, comm, tag, bytes)  irecv(..., request)
//   coll_begin(t)  coll_end(t, op, comm, root, sent, received)
//   nbc_request(t, request)  nbc_complete(t, op, comm, root, sent, received, request)
//     (a non-blocking collective: NonBlockingCollectiveRequest in the initiating MPI_I* call,
//     NonBlockingCollectiveComplete in the Wait*/Test* that completes it; OTF2 3.0)
// and `const std::string& error() const` (empty unless it interrupted the pass).
// Opt-in: `void recv_attributes(OTF2_AttributeList*)` is called just before each recv and
// irecv with the event's attribute list (the predictor reads the collector's mark of
// MPI_ANY_SOURCE receives there).
//
// MPI-IO and one-sided transfers (opt-in: a handler with `static constexpr bool kTransfers
// = true`), as Score-P records them:
//   io_begin(t, handle, mode, matching id)  io_complete(t, handle, bytes, matching id)
//     (IoOperationBegin / IoOperationComplete: the mode is the begin's, the bytes the
//     completion's: what was transferred)
//   rma_put(t, bytes)  rma_get(t, bytes)  rma_atomic(t, bytes sent, bytes received)
//     (RmaPut / RmaGet / RmaAtomic at the issuing call)
//
// The program's root (opt-in: a handler with `static constexpr bool kProgramRoot = true`
// and `uint32_t program_region(name, nargs, args)` / `uint32_t program_fallback_region()`):
// ProgramBegin and ProgramEnd become the Enter and Leave of the program region, as
// Scalasca's PEARL reads Score-P traces (the region Score-P defines for the program, role
// ARTIFICIAL, paradigm MEASUREMENT_SYSTEM), so every region nests inside it; without a
// ProgramEnd it is closed at the location's last event. A location whose first event is not
// a ProgramBegin has no such span: each stretch between a top-level Leave and the next
// top-level Enter (or the last event) becomes one visit of the fallback program region, a
// sibling of the top-level regions, so the time outside any region still counts.
#pragma once
#include <otf2/otf2.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/error.hpp"

namespace gs {

// Truncated: a location whose events end inside an MPI call (a process killed outright
// keeps the events up to its last buffer flush), its open regions closed at its last
// event; Lost: a location without event file (killed before its first flush), read as
// empty. Both are counted once per location (docs/analyzer.md, "Partial traces").
enum class Repair : uint8_t { Misnested = 0, Unclosed = 1, StrayLeave = 2, Truncated = 3, Lost = 4 };
constexpr int kRepairKinds = 5;
// "misnested", "unclosed", "stray_leave", "truncated", "lost"
extern const char* const kRepairNames[kRepairKinds];

// Repairs of user regions, with the first instance of each kind (lowest rank, then
// earliest in that rank's stream): what a warning line names.
struct RepairLog {
  struct Example { uint32_t region = UINT32_MAX, rank = UINT32_MAX; uint64_t location = 0, time = 0; };
  uint64_t count[kRepairKinds] = {};
  Example first[kRepairKinds];
  void add(Repair kind, const Example& where);
  void merge(const RepairLog& other);  // keeps the example of the lower rank
  uint64_t total() const {
    uint64_t n = 0;
    for (uint64_t c : count) n += c;
    return n;
  }
};

// One warning line per kind of repair, e.g. "2 mis-nested user regions closed at the Leave
// of an enclosing region (first: 'inner' on rank 0 at 0.001250 s)".
std::vector<std::string> repair_warnings(const RepairLog& log, const Defs& defs);

// The times an event may have: the trace's span [global offset, + trace length] with a
// margin of one trace length (at least 1 s) on either side, since a measurement may set
// its clock properties from clocks that are synchronised slightly differently; outside it
// a timestamp is damaged (a flipped byte, a wrong ClockOffset), not skewed.
struct TimeSpan {
  explicit TimeSpan(const Defs& defs);
  uint64_t lo, hi;
  const Defs& defs;
  // The error line for an event at `t` after one at `last` (`seen`: there was one).
  std::string problem(uint64_t t, uint64_t last, bool seen, const class RegionBalance& where) const;
};

// The open regions of one location and the repairs above (not a template: the tools share it).
class RegionBalance {
 public:
  RegionBalance(const Defs& defs, uint64_t location, uint32_t rank, RepairLog& log)
      : defs_(defs), location_(location), rank_(rank), log_(log) {}
  void enter(uint32_t region) { open_.push_back(region); }
  // How many open regions a Leave of `region` closes, innermost first: 1 when it matches
  // the innermost one; more when user regions were left open inside it; 0 when it is a
  // dropped stray user-region Leave, or an error (then error() is set).
  size_t leave(uint32_t region, uint64_t t) {
    return !open_.empty() && open_.back() == region ? 1 : leave_repairing(region, t);
  }
  uint32_t innermost() const { return open_.back(); }
  size_t depth() const { return open_.size(); }
  void pop() { open_.pop_back(); }
  // At the location's end: how many (user) regions to close at `last`, or 0 with error()
  // set when an MPI region is still open.
  size_t finish(uint64_t last);
  const std::string& error() const { return error_; }
  std::string where(uint64_t t) const;  // "on rank R at T s" (or "on location L ...")
  // sets error() when `region` is not defined (inline: it runs on every Enter)
  bool undefined(uint32_t region) {
    return (region >= defs_.regions.size() || !defs_.regions[region].defined) && report_undefined(region);
  }

 private:
  size_t leave_repairing(uint32_t region, uint64_t t);
  bool report_undefined(uint32_t region);
  const Defs& defs_;
  uint64_t location_;
  uint32_t rank_;
  RepairLog& log_;
  std::vector<uint32_t> open_;
  std::string error_;
};

// Whether handler H asks for MPI-IO and RMA transfers (see the top of this file).
template <class H, class = void>
struct WantsTransfers : std::false_type {};
template <class H>
struct WantsTransfers<H, std::void_t<decltype(H::kTransfers)>> : std::bool_constant<H::kTransfers> {};

// Whether handler H asks for the program's root (see the top of this file).
template <class H, class = void>
struct WantsProgramRoot : std::false_type {};
template <class H>
struct WantsProgramRoot<H, std::void_t<decltype(H::kProgramRoot)>> : std::bool_constant<H::kProgramRoot> {};

template <class H>
class EventStream {
 public:
  EventStream(const Defs& defs, uint64_t location, uint32_t rank, H& handler, RepairLog& log)
      : defs_(defs), h_(handler), balance_(defs, location, rank, log) {}

  // The callbacks of this handler type (delete with OTF2_EvtReaderCallbacks_Delete); the
  // user data of each location's pass is its EventStream.
  static OTF2_EvtReaderCallbacks* callbacks();

  // After the pass: closes the regions still open at the last event (an MPI one means the
  // stream was cut: Repair::Truncated). False, with error() set, when the pass stopped on
  // a problem.
  bool finish() {
    if (!error_.empty()) return false;
    if (!close_all(last_)) return false;
    if constexpr (kRoot) {
      if (root_open_) {
        root_open_ = false;
        h_.leave(last_, root_);
      } else if (gap_from_ != kNoGap && last_ > gap_from_) {
        gap(last_);
      }
    }
    return error_.empty();
  }
  // The stream's own problem (bad nesting, undefined region); the handler keeps its own.
  const std::string& error() const { return error_; }

 private:
  using Self = EventStream<H>;
  static Self& self(void* u) { return *static_cast<Self*>(u); }
  static constexpr bool kRoot = WantsProgramRoot<H>::value;
  static constexpr uint64_t kNoGap = UINT64_MAX;

  // Closes the regions still open (user regions repaired; MPI ones: the stream was cut).
  bool close_all(uint64_t t) {
    for (size_t n = balance_.finish(t); n > 0; --n) {
      h_.leave(t, balance_.innermost());
      balance_.pop();
    }
    if (!balance_.error().empty()) error_ = balance_.error();
    return error_.empty();
  }
  // One visit of the fallback root for the time outside any region up to `t`.
  void gap(uint64_t t) {
    if (root_ == kNoRegion) root_ = h_.program_fallback_region();
    h_.enter(gap_from_, root_);
    h_.leave(t, root_);
    gap_from_ = kNoGap;
  }

  OTF2_CallbackCode enter(uint64_t t, uint32_t region) {
    if constexpr (kRoot) {
      if (first_) first_ = false;  // not a ProgramBegin: top-level gaps are the root's time
      else if (gap_from_ != kNoGap && t > gap_from_ && balance_.depth() == 0) gap(t);
      gap_from_ = kNoGap;
    }
    if (!advance(t)) return OTF2_CALLBACK_INTERRUPT;
    if (balance_.undefined(region)) return stop();
    balance_.enter(region);
    return h_.enter(t, region);
  }
  OTF2_CallbackCode leave(uint64_t t, uint32_t region) {
    if (!advance(t)) return OTF2_CALLBACK_INTERRUPT;
    size_t n = balance_.leave(region, t);
    if (n == 0 && !balance_.error().empty()) return stop();
    for (; n > 0; --n) {
      OTF2_CallbackCode rc = h_.leave(t, balance_.innermost());
      balance_.pop();
      if (rc != OTF2_CALLBACK_SUCCESS) return rc;
    }
    if constexpr (kRoot)
      if (balance_.depth() == 0 && !root_open_ && !program_seen_) gap_from_ = t;
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode program_begin(uint64_t t, OTF2_StringRef name, uint32_t nargs, const OTF2_StringRef* args) {
    if (!advance(t)) return OTF2_CALLBACK_INTERRUPT;
    if (!first_ || program_seen_) return OTF2_CALLBACK_SUCCESS;  // only as the location's first event
    first_ = false;
    program_seen_ = root_open_ = true;
    root_ = h_.program_region(name, nargs, args);
    return h_.enter(t, root_);
  }
  OTF2_CallbackCode program_end(uint64_t t) {
    if (!advance(t)) return OTF2_CALLBACK_INTERRUPT;
    if (!root_open_) return OTF2_CALLBACK_SUCCESS;
    if (!close_all(t)) return OTF2_CALLBACK_INTERRUPT;
    root_open_ = false;
    return h_.leave(t, root_);
  }
  OTF2_CallbackCode stop() {
    error_ = balance_.error();
    return OTF2_CALLBACK_INTERRUPT;
  }
  // Every event's time (after OTF2's ClockOffsets): never before the location's previous
  // event and within the trace's span (TimeCheck); false, with error() set, otherwise.
  bool advance(uint64_t t) {
    if (t >= last_ && t <= span_.hi && (seen_ || t >= span_.lo)) [[likely]] {
      last_ = t;
      seen_ = true;
      return true;
    }
    error_ = span_.problem(t, last_, seen_, balance_);
    return false;
  }

#define GS_EVT_ARGS OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u, OTF2_AttributeList*
  static OTF2_CallbackCode on_enter(GS_EVT_ARGS, OTF2_RegionRef r) { return self(u).enter(t, r); }
  static OTF2_CallbackCode on_leave(GS_EVT_ARGS, OTF2_RegionRef r) { return self(u).leave(t, r); }
  static OTF2_CallbackCode on_program_begin(GS_EVT_ARGS, OTF2_StringRef name, uint32_t nargs,
                                            const OTF2_StringRef* args) {
    return self(u).program_begin(t, name, nargs, args);
  }
  static OTF2_CallbackCode on_program_end(GS_EVT_ARGS, int64_t) { return self(u).program_end(t); }
  static OTF2_CallbackCode on_send(GS_EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.send(t, peer, c, tag, n);
  }
  static OTF2_CallbackCode on_isend(GS_EVT_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n,
                                    uint64_t req) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.isend(t, peer, c, tag, n, req);
  }
  static OTF2_CallbackCode on_isend_complete(GS_EVT_ARGS, uint64_t req) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.isend_complete(t, req);
  }
  static OTF2_CallbackCode on_irecv_request(GS_EVT_ARGS, uint64_t req) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.irecv_request(t, req);
  }
  // A handler with recv_attributes(list) sees a receive's attribute list just before it
  // (the predictor reads the collector's MPI_ANY_SOURCE mark there); the others never do.
  template <class K, class = void>
  struct WantsAttributes : std::false_type {};
  template <class K>
  struct WantsAttributes<K, std::void_t<decltype(std::declval<K&>().recv_attributes(
                                (OTF2_AttributeList*)nullptr))>> : std::true_type {};
  static OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u, OTF2_AttributeList* a,
                                   uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    if constexpr (WantsAttributes<H>::value) self(u).h_.recv_attributes(a);
    return self(u).h_.recv(t, peer, c, tag, n);
  }
  static OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* u, OTF2_AttributeList* a,
                                    uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t req) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    if constexpr (WantsAttributes<H>::value) self(u).h_.recv_attributes(a);
    return self(u).h_.irecv(t, peer, c, tag, n, req);
  }
  static OTF2_CallbackCode on_coll_begin(GS_EVT_ARGS) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.coll_begin(t);
  }
  static OTF2_CallbackCode on_coll_end(GS_EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
                                       uint64_t sent, uint64_t received) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.coll_end(t, op, c, root, sent, received);
  }
  static OTF2_CallbackCode on_nbc_request(GS_EVT_ARGS, uint64_t req) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.nbc_request(t, req);
  }
  static OTF2_CallbackCode on_nbc_complete(GS_EVT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
                                           uint64_t sent, uint64_t received, uint64_t req) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.nbc_complete(t, op, c, root, sent, received, req);
  }
  static OTF2_CallbackCode on_io_begin(GS_EVT_ARGS, OTF2_IoHandleRef handle, OTF2_IoOperationMode mode,
                                       OTF2_IoOperationFlag, uint64_t, uint64_t id) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.io_begin(t, handle, mode, id);
  }
  static OTF2_CallbackCode on_io_complete(GS_EVT_ARGS, OTF2_IoHandleRef handle, uint64_t bytes, uint64_t id) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.io_complete(t, handle, bytes, id);
  }
  static OTF2_CallbackCode on_rma_put(GS_EVT_ARGS, OTF2_RmaWinRef, uint32_t, uint64_t bytes, uint64_t) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.rma_put(t, bytes);
  }
  static OTF2_CallbackCode on_rma_get(GS_EVT_ARGS, OTF2_RmaWinRef, uint32_t, uint64_t bytes, uint64_t) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.rma_get(t, bytes);
  }
  static OTF2_CallbackCode on_rma_atomic(GS_EVT_ARGS, OTF2_RmaWinRef, uint32_t, OTF2_RmaAtomicType, uint64_t sent,
                                         uint64_t received, uint64_t) {
    if (!self(u).advance(t)) return OTF2_CALLBACK_INTERRUPT;
    return self(u).h_.rma_atomic(t, sent, received);
  }
#undef GS_EVT_ARGS

  const Defs& defs_;
  H& h_;
  RegionBalance balance_;
  uint64_t last_ = 0;
  bool seen_ = false;  // an event was read (last_ is its time)
  TimeSpan span_{defs_};
  std::string error_;
  // the program's root (kRoot handlers only)
  static constexpr uint32_t kNoRegion = UINT32_MAX;
  uint32_t root_ = kNoRegion;
  bool first_ = true, program_seen_ = false, root_open_ = false;
  uint64_t gap_from_ = kNoGap;  // a top-level Leave's time while outside any region
};

template <class H>
OTF2_EvtReaderCallbacks* EventStream<H>::callbacks() {
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
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_nbc_request);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, on_nbc_complete);
  if constexpr (WantsTransfers<H>::value) {
    OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback(cb, on_io_begin);
    OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback(cb, on_io_complete);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_rma_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_rma_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, on_rma_atomic);
  }
  if constexpr (kRoot) {
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
  }
  return cb;
}

// Reads `locations` of `archive` with balanced regions: `handler_for(i)` gives the handler of
// the i-th location, `done(i, events, info)` runs after it was read and balanced. Any problem
// (the stream's or the handler's) is a gs::Error naming the location's event file.
template <class H>
void read_balanced(Archive& archive, const std::vector<uint64_t>& locations, RepairLog& log,
                   const std::function<H&(size_t)>& handler_for,
                   const std::function<void(size_t, uint64_t, const Archive::LocationInfo&)>& done) {
  const Defs& defs = archive.defs();
  OTF2_EvtReaderCallbacks* cb = EventStream<H>::callbacks();
  struct Free { OTF2_EvtReaderCallbacks* cb; ~Free() { OTF2_EvtReaderCallbacks_Delete(cb); } } free_cb{cb};
  std::optional<EventStream<H>> stream;
  H* handler = nullptr;
  archive.read_events(
      locations, cb,
      [&](size_t i) -> void* {
        handler = &handler_for(i);
        auto rank = defs.location_rank.find(locations[i]);
        stream.emplace(defs, locations[i], rank == defs.location_rank.end() ? kNoRank : rank->second, *handler, log);
        return &*stream;
      },
      [&](size_t i, uint64_t events, const Archive::LocationInfo& info) {
        if (info.missing) {
          auto rank = defs.location_rank.find(locations[i]);
          log.add(Repair::Lost, {UINT32_MAX, rank == defs.location_rank.end() ? kNoRank : rank->second,
                                 locations[i], 0});
        }
        const std::string& problem = !stream->error().empty() ? stream->error() : handler->error();
        if (!problem.empty() || !stream->finish())
          throw Error(archive.event_file(locations[i]), problem.empty() ? stream->error() : problem);
        done(i, events, info);
      });
}

}  // namespace gs
