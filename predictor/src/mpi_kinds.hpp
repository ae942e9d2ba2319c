// How the predictor replays each MPI function found in a trace (docs/predict.md).
#pragma once
#include <cctype>
#include <string>

namespace gs::predict {

enum class Kind {
  Init,          // the replayer's own MPI_Init stands for it
  Finalize,      // the replayer calls MPI_Finalize here
  Send,          // blocking sends: MPI_Send (Bsend, Rsend replayed as Send, stated), MPI_Ssend
  Isend,         // non-blocking sends
  Recv,          // MPI_Recv
  Irecv,         // MPI_Irecv
  Sendrecv,      // MPI_Sendrecv, MPI_Sendrecv_replace
  Complete,      // MPI_Wait*, MPI_Test*: the requests they completed
  Collective,    // by the CollectiveEnd's operation
  Icollective,   // non-blocking collectives: by the operation of their NonBlockingCollectiveComplete
  CommCreate,    // communicator constructors (the replayer builds all communicators once)
  Local,         // no communication: its time counts as computation
  Approximated,  // MPI_Probe / MPI_Iprobe: replayed as their recorded time (stated in the output)
  Unsupported,   // anything else: an error naming it
};

inline bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// "MPI_Barrier" -> "MPI_Ibarrier"
inline std::string nonblocking_name(const char* blocking) {
  return std::string("MPI_I") + char(std::tolower(static_cast<unsigned char>(blocking[4]))) + (blocking + 5);
}

inline Kind kind_of(const std::string& name) {
  if (name == "MPI_Init" || name == "MPI_Init_thread") return Kind::Init;
  if (name == "MPI_Finalize") return Kind::Finalize;
  if (name == "MPI_Send" || name == "MPI_Ssend" || name == "MPI_Bsend" || name == "MPI_Rsend") return Kind::Send;
  if (name == "MPI_Isend" || name == "MPI_Issend" || name == "MPI_Ibsend" || name == "MPI_Irsend") return Kind::Isend;
  if (name == "MPI_Recv") return Kind::Recv;
  if (name == "MPI_Irecv") return Kind::Irecv;
  if (name == "MPI_Sendrecv" || name == "MPI_Sendrecv_replace") return Kind::Sendrecv;
  if (name == "MPI_Wait" || name == "MPI_Waitall" || name == "MPI_Waitany" || name == "MPI_Waitsome" ||
      name == "MPI_Test" || name == "MPI_Testall" || name == "MPI_Testany" || name == "MPI_Testsome")
    return Kind::Complete;
  static const char* collectives[] = {
      "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv",
      "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
      "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan"};
  for (const char* c : collectives)
    if (name == c) return Kind::Collective;
  for (const char* c : collectives)  // their non-blocking forms (MPI 3.0): MPI_Ibarrier, MPI_Iallreduce, ...
    if (name == nonblocking_name(c)) return Kind::Icollective;
  static const char* creators[] = {"MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_dup",
                                   "MPI_Comm_dup_with_info", "MPI_Comm_create", "MPI_Comm_create_group",
                                   "MPI_Cart_create", "MPI_Graph_create", "MPI_Cart_sub"};
  for (const char* c : creators)
    if (name == c) return Kind::CommCreate;
  if (name == "MPI_Probe" || name == "MPI_Iprobe") return Kind::Approximated;
  static const char* local[] = {
      "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_group", "MPI_Comm_compare", "MPI_Comm_set_name",
      "MPI_Comm_get_name", "MPI_Comm_free", "MPI_Cart_coords", "MPI_Cart_rank", "MPI_Cart_shift",
      "MPI_Cart_get", "MPI_Cartdim_get", "MPI_Dims_create", "MPI_Wtime", "MPI_Wtick", "MPI_Get_count",
      "MPI_Get_processor_name", "MPI_Initialized", "MPI_Finalized", "MPI_Request_free", "MPI_Cancel",
      "MPI_Test_cancelled", "MPI_Buffer_attach", "MPI_Buffer_detach", "MPI_Abort", "MPI_Get_version",
      "MPI_Error_string", "MPI_Error_class", "MPI_Query_thread", "MPI_Is_thread_main"};
  for (const char* c : local)
    if (name == c) return Kind::Local;
  if (starts(name, "MPI_Group_") || starts(name, "MPI_Type_") || starts(name, "MPI_Op_") ||
      starts(name, "MPI_Errhandler_") || starts(name, "MPI_Comm_set_") || starts(name, "MPI_Comm_get_") ||
      starts(name, "MPI_Attr_") || starts(name, "MPI_Info_") || starts(name, "MPI_Pack") ||
      starts(name, "MPI_Unpack") || starts(name, "MPI_Address") || starts(name, "MPI_Get_address"))
    return Kind::Local;
  return Kind::Unsupported;  // RMA, I/O, persistent requests, intercommunicators, spawn, ...
}

}  // namespace gs::predict
