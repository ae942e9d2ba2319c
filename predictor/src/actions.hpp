// A trace's ranks as action streams for the SMPI replayer (predictor/replay/gs_replay_actions.c).
//
// One text file per rank, one action a line (peers are ranks of the action's communicator,
// communicators are the trace's ids, listed in comms.txt):
//   c SECONDS                      computation (the recorded time between MPI calls)
//   b REGION / e REGION            enter / leave a user region (ids of regions.txt)
//   ki / kc SECONDS                build every communicator of comms.txt here (see below); ki
//                                  stands after MPI_Init, kc at the rank's first communicator
//                                  constructor: comms.txt's first line says which of the two
//                                  builds (`at create` when every rank has a kc), the other is
//                                  nothing (ki) or SECONDS of computation (kc)
//   s|ss PEER TAG COMM BYTES       MPI_Send / MPI_Ssend
//   is|iss PEER TAG COMM BYTES SLOT  MPI_Isend / MPI_Issend into request slot SLOT
//   r PEER TAG COMM BYTES          MPI_Recv (the source the trace recorded)
//   ra PEER TAG COMM BYTES         MPI_Recv posted with MPI_ANY_SOURCE (the collector's mark,
//                                  wildcard.hpp); PEER is the source it matched in the trace
//   sa|ssa PEER TAG COMM BYTES ID  MPI_Send / MPI_Ssend answering the last `ra` on COMM (to
//                                  the source it matched): line ID of answers.txt's `a` lines,
//                                  "a RANK ME COMM PEER N" (RANK = this rank in the world, ME
//                                  in COMM; the send is its N-th to PEER on COMM, from 0); the
//                                  file's "wild RANK" lines name the ranks with `ra`
//   ir PEER TAG COMM BYTES SLOT    MPI_Irecv
//   sr PEER TAG COMM BYTES PEER TAG BYTES   MPI_Sendrecv (send part, then receive part)
//   w N SLOT...                    MPI_Waitall on the requests the call completed
//   x OP COMM ROOT BYTES           a collective (ROOT -1 when none; BYTES per process)
//   ix OP COMM ROOT BYTES SLOT     its non-blocking form (MPI_Ibarrier, MPI_Iallreduce, ...)
//   xv OP COMM ROOT BYTES K / ixv OP COMM ROOT BYTES SLOT K
//                                  a v-collective (Alltoallv, ...), the K-th on COMM: replayed
//                                  with the block of line "COMM K BLOCK" of vblocks.txt, the
//                                  mean of its ranks' BYTES (equal blocks: no rank sends more
//                                  than its peer receives)
//   f                              MPI_Finalize
// The first line of a stream is "# bytes N slots M": its largest buffer and request slots
// (v-collectives may need more: the replayer grows its buffers for them).
//
// Each rank's stream is written as soon as the rank is read: memory holds one rank's
// actions, never the whole trace's; what needs every rank (where communicators are built,
// the v-collectives' blocks) goes to comms.txt and vblocks.txt at the end.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gridscope/trace/archive.hpp"

namespace gs::predict {

struct ActionSet {  // what the whole trace needs beyond each rank's stream
  std::map<std::string, uint64_t> unsupported;   // MPI function -> calls
  std::map<std::string, uint64_t> approximated;  // what was replayed approximately -> count
  std::vector<std::string> regions;              // user region names by id
  std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, uint64_t>> vblocks;  // (comm, k) -> (sum, ranks)
  bool every_rank_creates = true;  // every rank called a communicator constructor: build there
  uint32_t streams = 0;            // rank streams written
  std::set<uint32_t> wild_ranks;   // ranks with receives posted from MPI_ANY_SOURCE
  std::vector<std::string> answers;  // "RANK ME COMM PEER N" of each answering send (sa), by id
};

// Reads every rank of the archive and writes DIR/rank-N.act as each is read; throws
// gs::Error for unreadable traces.
ActionSet write_rank_actions(Archive& archive, const std::string& dir);

// Writes DIR/comms.txt, DIR/vblocks.txt, DIR/regions.txt and DIR/meta.json.
void write_shared(const Archive& archive, const ActionSet& set, const std::string& dir);

}  // namespace gs::predict
