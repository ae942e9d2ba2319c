// How the predictor replays each MPI function found in a trace (docs/predict.md).
#pragma once
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

// The kinds come from the collector's declaration of every MPI function
// (collector/wrapgen/mpi_api.py, generate_facts.py), so a function the collector records is
// never unknown here.
inline Kind kind_of(const std::string& name) {
  static const struct { const char* n; Kind k; } wrapped[] = {
#define GS_MPI_REPLAY_KIND(n, k) {n, Kind::k},
#include "mpi_replay_kinds.inc"
#undef GS_MPI_REPLAY_KIND
  };
  for (const auto& e : wrapped)
    if (name == e.n) return e.k;
  static const char* local[] = {
#define GS_MPI_LOCAL_NAME(n) n,
#include "mpi_replay_kinds.inc"
#undef GS_MPI_LOCAL_NAME
  };
  for (const char* n : local)
    if (name == n) return Kind::Local;
  static const char* local_prefix[] = {
#define GS_MPI_LOCAL_PREFIX(p) p,
#include "mpi_replay_kinds.inc"
#undef GS_MPI_LOCAL_PREFIX
  };
  for (const char* p : local_prefix)
    if (starts(name, p)) return Kind::Local;
  return Kind::Unsupported;  // RMA, I/O, persistent requests, intercommunicators, spawn, ...
}

}  // namespace gs::predict
