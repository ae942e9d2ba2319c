// The per-process buffer size of a collective from the bytes a trace records for it.
// The collector and Score-P count bytes by Score-P's conventions (collector/src/collbytes.c,
// Score-P scorep_mpi_coll_counts): e.g. an Allreduce of b bytes counts n*b sent and
// received, a Bcast's root n*b sent. This inverts them; MPI_IN_PLACE (not recorded) is
// guessed from divisibility, and the v-variants get an even split (both stated in docs/predict.md).
#pragma once
#include <otf2/otf2.h>

#include <cstdint>

namespace gs::predict {

// n: communicator size, me: caller's position, root: root's position (or n when none).
inline uint64_t coll_block(OTF2_CollectiveOp op, uint64_t n, uint64_t me, uint64_t root, uint64_t sent,
                           uint64_t received) {
  if (n == 0) return 0;
  auto per = [&](uint64_t total) {  // n blocks, or n-1 when the own block stayed in place
    if (total % n == 0) return total / n;
    return n > 1 ? total / (n - 1) : total;
  };
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return 0;
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV:
      // receivers receive one block; the root receives its own block (0 in place: then sent/(n-1))
      if (me != root) return received;
      return received > 0 ? received : per(sent);
    case OTF2_COLLECTIVE_OP_REDUCE: case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV:
      if (me != root) return sent;
      return sent > 0 ? sent : per(received);
    case OTF2_COLLECTIVE_OP_ALLREDUCE: case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return per(received);
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: return per(received);
    case OTF2_COLLECTIVE_OP_SCAN: return me + 1 > 0 ? received / (me + 1) : 0;
    case OTF2_COLLECTIVE_OP_EXSCAN: return me > 0 ? received / me : sent / (n - me - 1 > 0 ? n - me - 1 : 1);
    default: return received > sent ? received : sent;
  }
}

// The name the replayer knows an operation by.
inline const char* coll_name(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return "barrier";
    case OTF2_COLLECTIVE_OP_BCAST: return "bcast";
    case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV: return "scatter";
    case OTF2_COLLECTIVE_OP_REDUCE: return "reduce";
    case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV: return "gather";
    case OTF2_COLLECTIVE_OP_ALLREDUCE: return "allreduce";
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV: return "allgather";
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV: return "alltoall";
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return "reduce_scatter_block";
    case OTF2_COLLECTIVE_OP_SCAN: return "scan";
    case OTF2_COLLECTIVE_OP_EXSCAN: return "exscan";
    default: return nullptr;
  }
}

// v-variants replayed with even blocks (an approximation the output states)
inline bool coll_is_v(OTF2_CollectiveOp op) {
  return op == OTF2_COLLECTIVE_OP_SCATTERV || op == OTF2_COLLECTIVE_OP_GATHERV ||
         op == OTF2_COLLECTIVE_OP_ALLGATHERV || op == OTF2_COLLECTIVE_OP_ALLTOALLV ||
         op == OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
}

}  // namespace gs::predict
