// Writes a Score-P-layout OTF2 archive (GUIDE.md §3): one location per MPI rank
// ("MPI Rank N" / "Master thread"), regions with Score-P's roles, MPI paradigm,
// MPI_COMM_WORLD / MPI_COMM_SELF plus any extra communicators, ClockOffsets as local
// definitions. Events are written as they come; definitions are collected and written by
// finish(). Any OTF2 failure or an undeclared rank/communicator throws gs::Error. The caller
// keeps each rank's events in time order and its enters and leaves nested.
//
//   gs::TraceWriter w("out", {});              // out/traces.otf2
//   uint32_t r = w.add_rank("siteA", "node0");  // metahost, node (gridscope layout)
//   uint32_t f = w.region("compute"), s = w.region("MPI_Send");
//   w.enter(r, 10, f); w.leave(r, 20, f); ...
//   w.finish();
#pragma once
#include <otf2/otf2.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gs {

constexpr uint32_t kNoNode = UINT32_MAX;  // system tree root: no parent
constexpr uint32_t kNoRoot = UINT32_MAX;  // collective without a root
constexpr uint32_t kWorldComm = 0, kSelfComm = 1;

struct WriterOptions {
  uint64_t resolution = 1000000;     // timer ticks per second
  // System tree built by add_rank(metahost, node): false = metacomputer -> machine per
  // metahost -> node (gridscope's multi-cluster convention); true = Score-P's single
  // machine "Linux" -> node (the metahost is not recorded).
  bool scorep_layout = false;
  // ClockProperties global offset; by default the earliest event time (length: latest - it).
  bool fixed_global_offset = false;
  uint64_t global_offset = 0;
  std::string creator = "gridscope";
  uint64_t event_chunk_bytes = 1024 * 1024;
};

class TraceWriter {
 public:
  // Creates DIR/traces.otf2 (DIR must not hold an archive already).
  TraceWriter(const std::string& dir, const WriterOptions& options);
  ~TraceWriter();  // without finish() the archive is left incomplete
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // --- definitions (any time before finish) ---
  // A system tree node; the class should be "metacomputer", "machine" or "node".
  uint32_t tree_node(const std::string& name, const std::string& cls, uint32_t parent = kNoNode);
  // The next MPI rank (0, 1, ...) on a "node" of the system tree.
  uint32_t add_rank(uint32_t node);
  // The next MPI rank on NODE of METAHOST, tree nodes made as the layout says.
  uint32_t add_rank(const std::string& metahost, const std::string& node);
  uint32_t ranks() const { return ranks_.size(); }
  // Thread K (1, 2, ...) of RANK: one more location in the rank's group (Score-P's id
  // K << 32 | RANK, a CPU thread named "Pthread thread K"). Returns the id that the event
  // calls take in place of a rank to write on that location.
  uint32_t add_thread(uint32_t rank, uint32_t k);
  static constexpr uint32_t kFirstThread = 1u << 24;  // ids of threads start here
  // Region id by name, defined on first use. Names MPI_* are MPI regions (paradigm MPI,
  // source file "MPI", Score-P's role); others are user functions in `source_file`.
  uint32_t region(const std::string& name, const std::string& source_file = "");
  // A communicator over world ranks (member i = comm rank i); ids 0 and 1 are world, self.
  uint32_t add_comm(const std::string& name, const std::vector<uint64_t>& world_ranks);
  uint32_t comm(const std::string& name) const;  // id by name (MPI_COMM_WORLD, ...)
  // A ClockOffset (local definition of RANK): at local TIME the clock is OFFSET ahead.
  void clock_offset(uint32_t rank, uint64_t time, int64_t offset, double stddev = 0.0);

  // --- events of one rank, in time order; ranks/comms are world ranks or comm ranks ---
  void enter(uint32_t rank, uint64_t t, uint32_t region);
  void leave(uint32_t rank, uint64_t t, uint32_t region);
  void send(uint32_t rank, uint64_t t, uint32_t dst, uint32_t comm, uint32_t tag, uint64_t bytes);
  void isend(uint32_t rank, uint64_t t, uint32_t dst, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t request);
  void isend_complete(uint32_t rank, uint64_t t, uint64_t request);
  void recv(uint32_t rank, uint64_t t, uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes);
  void irecv_request(uint32_t rank, uint64_t t, uint64_t request);
  void irecv(uint32_t rank, uint64_t t, uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t request);
  void collective_begin(uint32_t rank, uint64_t t);
  void collective_end(uint32_t rank, uint64_t t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                      uint64_t sent, uint64_t received);
  // A non-blocking collective as Score-P records it: the request inside the MPI_I* call,
  // the completion (operation, communicator, root, bytes) inside the Wait*/Test* that completes it.
  void nbc_request(uint32_t rank, uint64_t t, uint64_t request);
  void nbc_complete(uint32_t rank, uint64_t t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root, uint64_t sent,
                    uint64_t received, uint64_t request);

  // Writes the definitions and closes the archive. Returns the number of events written.
  uint64_t finish();

 private:
  struct Rank { uint32_t node; OTF2_EvtWriter* events; };
  struct TreeNode { std::string name, cls; uint32_t parent; };
  struct Comm { std::string name; std::vector<uint64_t> members; };
  struct Offset { uint64_t time; int64_t offset; double stddev; };

  struct Thread { uint32_t rank, k; OTF2_EvtWriter* events; };
  OTF2_EvtWriter* events(uint32_t rank, uint64_t t) {
    if (t < tmin_) tmin_ = t;
    if (t > tmax_) tmax_ = t;
    if (rank >= kFirstThread && rank - kFirstThread < threads_.size()) return threads_[rank - kFirstThread].events;
    if (rank >= ranks_.size()) undeclared(rank);
    return ranks_[rank].events;
  }
  [[noreturn]] void undeclared(uint32_t rank) const;
  void check(OTF2_ErrorCode rc, const char* what) const;
  void write_global();

  std::string dir_;
  WriterOptions opt_;
  OTF2_Archive* archive_ = nullptr;
  bool finished_ = false;
  std::vector<Rank> ranks_;
  std::vector<Thread> threads_;
  std::vector<uint64_t> thread_events_;  // per thread, known at finish()
  std::vector<TreeNode> tree_;
  std::map<std::string, uint32_t> tree_index_;  // "parent/name" -> node
  uint32_t layout_root_ = kNoNode;
  std::vector<std::string> region_names_, region_files_;
  std::map<std::string, uint32_t> region_ids_;
  std::vector<Comm> comms_;  // extra communicators (ids 2, 3, ...)
  std::map<uint32_t, std::vector<Offset>> offsets_;
  std::vector<uint64_t> location_events_;  // per rank, known at finish()
  uint64_t tmin_ = UINT64_MAX, tmax_ = 0;
};

}  // namespace gs
