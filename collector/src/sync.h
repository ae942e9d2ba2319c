/* Hierarchical clock synchronisation (GUIDE §2): metahost masters against the global
 * master, node masters against their metahost master, result shared on each node. */
#ifndef GS_SYNC_H
#define GS_SYNC_H
#include <mpi.h>
#include "clockmath.h"

typedef struct {
    int size;
    int *metahost;    /* per world rank: metahost index (first-appearance order) */
    int *node;        /* per world rank: node index (distinct (metahost, host) pairs) */
    int nmetahosts, nnodes;
    int *metahost_master; /* per metahost index: lowest world rank */
    int *node_master;     /* per node index: lowest world rank */
    int *host;            /* per world rank: host index (distinct host names) */
    int skewed;           /* a test skews some metahosts' clocks: no two ranks share one */
} gs_topology_t;

/* Most ping-pongs per client (EPIK's counts, GUIDE §2): fewer when the bound is found. */
enum { GS_SYNC_METAHOST_ROUNDS = 15, GS_SYNC_NODE_ROUNDS = 10 };

/* Builds the topology from per-rank metahost and host names (fixed-width rows); `skewed`
 * stays 0 (set it when a test skews clocks). */
void gs_topology_build(gs_topology_t *t, int size, const char *metahosts, const char *hosts,
                       size_t width);
/* Collective over comm (MPI_COMM_WORLD's processes). The metahost masters measure
 * against the global master all at once, the node masters of each metahost against
 * their metahost master all at once, each until gs_sync_enough. Returns this rank's
 * offset to the global master's clock; *at = local time the offset was measured at.
 * A metahost master on the global master's host reads the same clock: offset 0, exactly,
 * without measuring (metahosts mapped onto one machine, as the testbeds and tests do: the
 * ping-pong's error, under load, exceeded a short message's transfer). */
gs_offset_t gs_sync_clocks(MPI_Comm comm, const gs_topology_t *t, int me, int64_t *at);
#endif
