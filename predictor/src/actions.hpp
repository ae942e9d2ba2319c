// A trace's ranks as action streams for the SMPI replayer (predictor/replay/gs_replay_actions.c).
//
// One text file per rank, one action a line (peers are ranks of the action's communicator,
// communicators are the trace's ids, listed in comms.txt):
//   c SECONDS                      computation (the recorded time between MPI calls)
//   b REGION / e REGION            enter / leave a user region (ids of regions.txt)
//   k                              build every communicator of comms.txt (see below)
//   s|ss PEER TAG COMM BYTES       MPI_Send / MPI_Ssend
//   is|iss PEER TAG COMM BYTES SLOT  MPI_Isend / MPI_Issend into request slot SLOT
//   r PEER TAG COMM BYTES          MPI_Recv (the source the trace recorded, never ANY_SOURCE)
//   ir PEER TAG COMM BYTES SLOT    MPI_Irecv
//   sr PEER TAG COMM BYTES PEER TAG BYTES   MPI_Sendrecv (send part, then receive part)
//   w N SLOT...                    MPI_Waitall on the requests the call completed
//   x OP COMM ROOT BYTES           a collective (ROOT -1 when none; BYTES per process)
//   ix OP COMM ROOT BYTES SLOT     its non-blocking form (MPI_Ibarrier, MPI_Iallreduce, ...)
//   f                              MPI_Finalize
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gridscope/trace/archive.hpp"

namespace gs::predict {

struct RankActions {
  std::vector<std::string> lines;
  uint64_t max_bytes = 0;   // the largest buffer an action needs
  size_t slots = 0;         // request slots used at once (at most)
  // placeholders for `k` (communicators built once): after MPI_Init, or at the rank's
  // first communicator constructor (its text when `k` goes elsewhere: its computation)
  size_t init_k = SIZE_MAX, create_k = SIZE_MAX;
  std::string create_alternative;
  std::vector<size_t> vcoll_lines;  // lines of v-collectives, whose blocks are evened per instance
};

struct ActionSet {
  std::vector<RankActions> ranks;
  std::map<std::string, uint64_t> unsupported;   // MPI function -> calls
  std::map<std::string, uint64_t> approximated;  // what was replayed approximately -> count
  std::vector<std::string> regions;              // user region names by id
};

// Reads every rank of the archive; throws gs::Error for unreadable traces.
ActionSet build_actions(Archive& archive);

// Writes DIR/rank-N.act, DIR/comms.txt, DIR/regions.txt and DIR/meta.json.
void write_actions(const Archive& archive, ActionSet& set, const std::string& dir);

}  // namespace gs::predict
