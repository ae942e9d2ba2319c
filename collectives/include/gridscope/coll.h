/* gridscope topology-aware collectives (docs/collectives.md).
 *
 * GSColl_<Op> has exactly the signature of MPI_<Op>. Which algorithm runs is chosen at
 * run time:
 *   GRIDSCOPE_COLL=vanilla|topo|auto   (unset: vanilla)
 *   GRIDSCOPE_COLL_<OP>=<algorithm>    (OP upper case, e.g. GRIDSCOPE_COLL_BCAST=multilane)
 *   GRIDSCOPE_COLL_RULES=<file>        (rule table used by auto, measured on the platform)
 *   GRIDSCOPE_COLL_SEGSIZE=<bytes>     (pipelining segment size; default by message size)
 * and more tuning settings: all are declared in collectives/settings.toml (listed by
 * `gridscope collectives --settings`); a bad value warns once and takes its fallback.
 * vanilla calls PMPI_<Op>. A communicator inside one metahost always runs vanilla.
 */
#ifndef GRIDSCOPE_COLL_H
#define GRIDSCOPE_COLL_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the library is built with hidden symbols; only this API is exported */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* GSColl_<Op> for each MPI operation the collector forwards to the library (hook=True in
 * collector/wrapgen/mpi_api.py; generated) */
#include "gridscope/coll_hooks.h"

/* Collective identifiers (lower-case names: "bcast", "reduce", ...). */
typedef enum {
    GSCOLL_BCAST,
    GSCOLL_REDUCE,
    GSCOLL_ALLREDUCE,
    GSCOLL_GATHER,
    GSCOLL_ALLGATHER,
    GSCOLL_BARRIER,
    GSCOLL_ALLTOALL,
    GSCOLL_NOPS
} GSColl_op;

/* Algorithm names of a collective, NULL-terminated ("vanilla" and "default" included). */
const char *const *GSColl_Algorithms(GSColl_op op);
const char *GSColl_Op_name(GSColl_op op);
/* Force an algorithm for this process (tests, benchmarks); NULL restores the environment's
 * choice. Every rank of a communicator must make the same choice. Returns 0, or -1 when the
 * name is unknown. */
int GSColl_Force(GSColl_op op, const char *algorithm);
/* Number of metahosts comm spans (collective on first use: builds the cached topology);
 * -1 on an intercommunicator. */
int GSColl_Metahosts(MPI_Comm comm);
/* The algorithm the last call of op on this process ran ("vanilla", "hier", ...). */
const char *GSColl_Last_algorithm(GSColl_op op);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
