// TraceWriter (writer.hpp): events go straight to libotf2's per-location writers; the
// definitions wait in memory until finish(), because the Location definitions carry the
// event counts and the ClockProperties the time range.
#include "gridscope/trace/writer.hpp"

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/mpi_names.hpp"

namespace gs {
namespace {

// Flush every full chunk to disk (never keep the whole trace in memory); no flush timestamps.
OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks kFlush = {pre_flush, post_flush};

bool is_mpi(const std::string& region) { return region.rfind("MPI_", 0) == 0; }

// Global string ids in first-use order.
class Strings {
 public:
  uint32_t operator()(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    list.push_back(s);
    return ids_[s] = list.size() - 1;
  }
  std::vector<std::string> list;

 private:
  std::map<std::string, uint32_t> ids_;
};

}  // namespace

TraceWriter::TraceWriter(const std::string& dir, const WriterOptions& options) : dir_(dir), opt_(options) {
  archive_ = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, opt_.event_chunk_bytes,
                               4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive_) throw Error(dir, "cannot create an OTF2 archive here");
  check(OTF2_Archive_SetFlushCallbacks(archive_, &kFlush, nullptr), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive_), "collective callbacks");
  check(OTF2_Archive_SetCreator(archive_, opt_.creator.c_str()), "creator");
  check(OTF2_Archive_OpenEvtFiles(archive_), "cannot open the event files");
}

TraceWriter::~TraceWriter() {
  if (archive_ && !finished_) OTF2_Archive_Close(archive_);
}

void TraceWriter::check(OTF2_ErrorCode rc, const char* what) const {
  if (rc != OTF2_SUCCESS) throw Error(dir_, std::string(what) + ": " + OTF2_Error_GetDescription(rc));
}

void TraceWriter::undeclared(uint32_t rank) const {
  throw Error(dir_, "event of rank " + std::to_string(rank) + ", which was not declared");
}

uint32_t TraceWriter::tree_node(const std::string& name, const std::string& cls, uint32_t parent) {
  if (parent != kNoNode && parent >= tree_.size()) throw Error(dir_, "system tree node " + name + ": no such parent");
  tree_.push_back({name, cls, parent});
  return tree_.size() - 1;
}

uint32_t TraceWriter::add_rank(uint32_t node) {
  if (node >= tree_.size()) throw Error(dir_, "rank " + std::to_string(ranks_.size()) + ": no such system tree node");
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive_, ranks_.size());
  if (!w) throw Error(dir_, "cannot create the event writer of rank " + std::to_string(ranks_.size()));
  ranks_.push_back({node, w});
  return ranks_.size() - 1;
}

uint32_t TraceWriter::add_thread(uint32_t rank, uint32_t k) {
  if (rank >= ranks_.size()) undeclared(rank);
  if (k == 0 || k >= 256) throw Error(dir_, "thread " + std::to_string(k) + " of rank " + std::to_string(rank) + ": threads are 1 to 255");
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive_, uint64_t(k) << 32 | rank);
  if (!w) throw Error(dir_, "cannot create the event writer of thread " + std::to_string(k) + " of rank " + std::to_string(rank));
  threads_.push_back({rank, k, w});
  return kFirstThread + uint32_t(threads_.size() - 1);
}

uint32_t TraceWriter::add_rank(const std::string& metahost, const std::string& node) {
  auto find_or_add = [&](const std::string& name, const std::string& cls, uint32_t parent) {
    std::string key = std::to_string(parent) + "/" + name;
    auto it = tree_index_.find(key);
    return it != tree_index_.end() ? it->second : (tree_index_[key] = tree_node(name, cls, parent));
  };
  if (layout_root_ == kNoNode)
    layout_root_ = opt_.scorep_layout ? tree_node("Linux", "machine") : tree_node("metacomputer", "metacomputer");
  uint32_t machine = opt_.scorep_layout ? layout_root_ : find_or_add(metahost, "machine", layout_root_);
  return add_rank(find_or_add(node, "node", machine));
}

uint32_t TraceWriter::region(const std::string& name, const std::string& source_file) {
  auto it = region_ids_.find(name);
  if (it != region_ids_.end()) return it->second;
  region_names_.push_back(name);
  region_files_.push_back(is_mpi(name) ? "MPI" : source_file);
  return region_ids_[name] = region_names_.size() - 1;
}

uint32_t TraceWriter::add_comm(const std::string& name, const std::vector<uint64_t>& world_ranks) {
  comms_.push_back({name, world_ranks});
  return 1 + comms_.size();
}

uint32_t TraceWriter::comm(const std::string& name) const {
  if (name == "MPI_COMM_WORLD") return kWorldComm;
  if (name == "MPI_COMM_SELF") return kSelfComm;
  for (size_t i = comms_.size(); i-- > 0;)  // the latest of that name
    if (comms_[i].name == name) return 2 + i;
  throw Error(dir_, "unknown communicator " + name);
}

void TraceWriter::clock_offset(uint32_t rank, uint64_t time, int64_t offset, double stddev) {
  offsets_[rank].push_back({time, offset, stddev});
}

void TraceWriter::enter(uint32_t rank, uint64_t t, uint32_t region) {
  check(OTF2_EvtWriter_Enter(events(rank, t), nullptr, t, region), "enter");
}
void TraceWriter::leave(uint32_t rank, uint64_t t, uint32_t region) {
  check(OTF2_EvtWriter_Leave(events(rank, t), nullptr, t, region), "leave");
}
void TraceWriter::send(uint32_t rank, uint64_t t, uint32_t dst, uint32_t comm, uint32_t tag, uint64_t bytes) {
  check(OTF2_EvtWriter_MpiSend(events(rank, t), nullptr, t, dst, comm, tag, bytes), "send");
}
void TraceWriter::isend(uint32_t rank, uint64_t t, uint32_t dst, uint32_t comm, uint32_t tag, uint64_t bytes,
                        uint64_t request) {
  check(OTF2_EvtWriter_MpiIsend(events(rank, t), nullptr, t, dst, comm, tag, bytes, request), "isend");
}
void TraceWriter::isend_complete(uint32_t rank, uint64_t t, uint64_t request) {
  check(OTF2_EvtWriter_MpiIsendComplete(events(rank, t), nullptr, t, request), "isend complete");
}
void TraceWriter::recv(uint32_t rank, uint64_t t, uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes) {
  check(OTF2_EvtWriter_MpiRecv(events(rank, t), nullptr, t, src, comm, tag, bytes), "recv");
}
void TraceWriter::irecv_request(uint32_t rank, uint64_t t, uint64_t request) {
  check(OTF2_EvtWriter_MpiIrecvRequest(events(rank, t), nullptr, t, request), "irecv request");
}
void TraceWriter::irecv(uint32_t rank, uint64_t t, uint32_t src, uint32_t comm, uint32_t tag, uint64_t bytes,
                        uint64_t request) {
  check(OTF2_EvtWriter_MpiIrecv(events(rank, t), nullptr, t, src, comm, tag, bytes, request), "irecv");
}
void TraceWriter::collective_begin(uint32_t rank, uint64_t t) {
  check(OTF2_EvtWriter_MpiCollectiveBegin(events(rank, t), nullptr, t), "collective begin");
}
void TraceWriter::collective_end(uint32_t rank, uint64_t t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                                 uint64_t sent, uint64_t received) {
  check(OTF2_EvtWriter_MpiCollectiveEnd(events(rank, t), nullptr, t, op, comm,
                                        root == kNoRoot ? OTF2_UNDEFINED_UINT32 : root, sent, received),
        "collective end");
}

void TraceWriter::nbc_request(uint32_t rank, uint64_t t, uint64_t request) {
  check(OTF2_EvtWriter_NonBlockingCollectiveRequest(events(rank, t), nullptr, t, request), "non-blocking collective request");
}
void TraceWriter::nbc_complete(uint32_t rank, uint64_t t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                               uint64_t sent, uint64_t received, uint64_t request) {
  check(OTF2_EvtWriter_NonBlockingCollectiveComplete(events(rank, t), nullptr, t, op, comm,
                                                     root == kNoRoot ? OTF2_UNDEFINED_UINT32 : root, sent, received,
                                                     request),
        "non-blocking collective complete");
}

uint64_t TraceWriter::finish() {
  std::vector<uint64_t> counts(ranks_.size());
  uint64_t total = 0;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    check(OTF2_EvtWriter_GetNumberOfEvents(ranks_[r].events, &counts[r]), "event count");
    total += counts[r];
    check(OTF2_Archive_CloseEvtWriter(archive_, ranks_[r].events), "cannot close an event file");
  }
  for (Thread& th : threads_) {
    thread_events_.push_back(0);
    check(OTF2_EvtWriter_GetNumberOfEvents(th.events, &thread_events_.back()), "event count");
    total += thread_events_.back();
    check(OTF2_Archive_CloseEvtWriter(archive_, th.events), "cannot close an event file");
  }
  check(OTF2_Archive_CloseEvtFiles(archive_), "cannot close the event files");
  check(OTF2_Archive_OpenDefFiles(archive_), "cannot open the definition files");
  for (size_t r = 0; r < ranks_.size(); ++r) {
    OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(archive_, r);
    if (!dw) throw Error(dir_, "cannot create a definition writer");
    auto it = offsets_.find(r);
    if (it != offsets_.end())
      for (const Offset& o : it->second)
        check(OTF2_DefWriter_WriteClockOffset(dw, o.time, o.offset, o.stddev), "clock offset");
    check(OTF2_Archive_CloseDefWriter(archive_, dw), "cannot close a definition file");
  }
  for (const Thread& th : threads_) {
    OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(archive_, uint64_t(th.k) << 32 | th.rank);
    if (!dw) throw Error(dir_, "cannot create a definition writer");
    check(OTF2_Archive_CloseDefWriter(archive_, dw), "cannot close a definition file");
  }
  check(OTF2_Archive_CloseDefFiles(archive_), "cannot close the definition files");
  location_events_ = std::move(counts);
  write_global();
  finished_ = true;
  check(OTF2_Archive_Close(archive_), "cannot close the archive");
  return total;
}

void TraceWriter::write_global() {
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive_);
  if (!g) throw Error(dir_, "cannot create the global definition writer");
  // Every string gets its id first: OTF2 wants strings defined before their use.
  Strings str;
  std::vector<std::pair<uint32_t, uint32_t>> tree_strings;
  for (const TreeNode& n : tree_) {
    uint32_t name = str(n.name);
    tree_strings.push_back({name, str(n.cls)});
  }
  std::vector<uint32_t> rank_name;
  for (size_t i = 0; i < ranks_.size(); ++i) rank_name.push_back(str("MPI Rank " + std::to_string(i)));
  uint32_t master = str("Master thread"), mpi = str("MPI"), empty = str(""), world = str("MPI_COMM_WORLD"),
           self = str("MPI_COMM_SELF");
  std::vector<uint32_t> thread_name;
  for (const Thread& th : threads_) thread_name.push_back(str("Pthread thread " + std::to_string(th.k)));
  std::vector<uint32_t> region_name, region_file;
  for (const std::string& n : region_names_) region_name.push_back(str(n));
  std::vector<uint32_t> comm_name;
  for (const Comm& c : comms_) comm_name.push_back(str(c.name));
  for (const std::string& f : region_files_) region_file.push_back(f.empty() ? OTF2_UNDEFINED_STRING : str(f));

  for (size_t i = 0; i < str.list.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteString(g, i, str.list[i].c_str()), "string");
  uint64_t begin = opt_.fixed_global_offset ? opt_.global_offset : (tmin_ == UINT64_MAX ? 0 : tmin_);
  uint64_t length = tmax_ >= begin && tmin_ != UINT64_MAX ? tmax_ - begin : 0;
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, opt_.resolution, begin, length, OTF2_UNDEFINED_TIMESTAMP),
        "clock properties");
  check(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS), "paradigm");
  for (size_t i = 0; i < tree_.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(
              g, i, tree_strings[i].first, tree_strings[i].second,
              tree_[i].parent == kNoNode ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : tree_[i].parent),
          "system tree node");
  for (size_t i = 0; i < ranks_.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, i, rank_name[i], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  ranks_[i].node, OTF2_UNDEFINED_LOCATION_GROUP),
          "location group");
  for (size_t i = 0; i < ranks_.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteLocation(g, i, master, OTF2_LOCATION_TYPE_CPU_THREAD, location_events_[i], i),
          "location");
  for (size_t i = 0; i < threads_.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteLocation(g, uint64_t(threads_[i].k) << 32 | threads_[i].rank, thread_name[i],
                                             OTF2_LOCATION_TYPE_CPU_THREAD, thread_events_[i], threads_[i].rank),
          "location");
  for (size_t i = 0; i < region_names_.size(); ++i) {
    const std::string& n = region_names_[i];
    check(OTF2_GlobalDefWriter_WriteRegion(g, i, region_name[i], region_name[i], empty, region_role(n),
                                           is_mpi(n) ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                           OTF2_REGION_FLAG_NONE, region_file[i], 0, 0),
          "region");
  }
  // Score-P's communicator layout: group 0 maps MPI ranks to locations, group 1 is the
  // world's COMM_GROUP over it, group 2 COMM_SELF; extra communicators index group 0.
  std::vector<uint64_t> locs(ranks_.size());
  for (size_t i = 0; i < locs.size(); ++i) locs[i] = i;
  check(OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, locs.size(), locs.data()), "group");
  check(OTF2_GlobalDefWriter_WriteGroup(g, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, locs.size(), locs.data()), "group");
  check(OTF2_GlobalDefWriter_WriteGroup(g, 2, empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 0, nullptr), "group");
  for (size_t i = 0; i < comms_.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteGroup(g, 3 + i, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, comms_[i].members.size(), comms_[i].members.data()),
          "group");
  check(OTF2_GlobalDefWriter_WriteComm(g, kWorldComm, world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
  check(OTF2_GlobalDefWriter_WriteComm(g, kSelfComm, self, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
  for (size_t i = 0; i < comms_.size(); ++i)
    check(OTF2_GlobalDefWriter_WriteComm(g, 2 + i, comm_name[i], 3 + i, kWorldComm, OTF2_COMM_FLAG_NONE), "comm");
}

}  // namespace gs
