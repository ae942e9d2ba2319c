/* Direct alltoall: every block goes straight to its destination (no relay), the exchanges
 * with other metahosts posted before the local ones so the WAN starts at once. LG's relays
 * save WAN messages, which pays while latency dominates; once the WAN is bandwidth-bound
 * the relay hop only delays the first WAN byte (by the local phase). */
#include <stdlib.h>

#include "gsc_internal.h"
#include "settings.h"

int gsc_alltoall_direct(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    int n = t->size, me = t->rank, A = t->group[0][me];
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    if (sendbuf == MPI_IN_PLACE) { /* keep my blocks before receiving over them */
        size_t b = 0;
        char *copy = gsc_pack(recvbuf, recvcount * n, recvtype, &b);
        int rc = gsc_alltoall_direct(copy, (int)(b / (size_t)n), MPI_BYTE, recvbuf, recvcount,
                                     recvtype, comm, t);
        free(copy);
        return rc;
    }
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * n));
    int nreq = 0;
    /* peers in rotated order (me+1, me+2, ...): remote metahosts first, then mine */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 1; k < n; k++) {
            int p = (me + n - k) % n;
            if ((t->group[0][p] == A) != pass) continue;
            PMPI_Irecv((char *)recvbuf + (MPI_Aint)p * recvcount * rext, recvcount, recvtype, p,
                       GS_TAG_ALLTOALL_WAN, comm, &req[nreq++]);
        }
    for (int pass = 0; pass < 2; pass++)
        for (int k = 1; k < n; k++) {
            int p = (me + k) % n;
            if ((t->group[0][p] == A) != pass) continue;
            PMPI_Isend((const char *)sendbuf + (MPI_Aint)p * sendcount * sext, sendcount, sendtype,
                       p, GS_TAG_ALLTOALL_WAN, comm, &req[nreq++]);
        }
    PMPI_Sendrecv((const char *)sendbuf + (MPI_Aint)me * sendcount * sext,
                  sendcount, sendtype, me, GS_TAG_ALLTOALL_LOCAL,
                  (char *)recvbuf + (MPI_Aint)me * recvcount * rext, recvcount, recvtype, me,
                  GS_TAG_ALLTOALL_LOCAL, comm, MPI_STATUS_IGNORE);
    int rc = nreq ? PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    free(req);
    return rc;
}

/* Bytes a metahost sends over the WAN from which the exchange is bandwidth-bound: about the
 * bandwidth-delay product of the grid5000 presets' WAN (136 Mb/s x 7.8 ms = 133 kB).
 * GRIDSCOPE_COLL_ALLTOALL_DIRECT_MIN overrides. */
static size_t direct_min_bytes(void)
{
    return (size_t)gsc_setting_num(GSC_SET_ALLTOALL_DIRECT_MIN); /* default 128 KiB */
}

/* GRIDSCOPE_COLL=topo's alltoall: LG while the WAN is latency-bound (its relays send
 * max(nS, nD) WAN messages instead of nS * nD), direct once the largest volume a metahost
 * sends out, nA * (n - nA) blocks, reaches the bandwidth-delay product: the data then takes
 * longer than a latency to cross, LG's relays save no time and their local hop only holds the
 * WAN back (measured: grid5000-2, 32 ranks, 2 KiB blocks, 41.46 ms LG, 40.42 ms direct and
 * vanilla; with one site 100 ms late, 42.23 ms LG, 40.22 ms direct; docs/perf-collectives.md).
 * Every rank computes the same volume from the topology, so all take the same branch. */
int gsc_alltoall_topo(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    size_t bsz = gsc_type_bytes(recvcount, recvtype), out = 0;
    /* where the WAN graph routes around the direct links, its routed form (gsc_alltoall_routed) */
    gsc_alltoall_fn routed = bsz ? gsc_alltoall_routed(t, bsz) : NULL;
    if (routed) return routed(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, t);
    for (int m = 0; m < t->nmeta; m++) {
        size_t nm = (size_t)gsc_meta_size(t, m);
        if (nm * ((size_t)t->size - nm) > out) out = nm * ((size_t)t->size - nm);
    }
    if (out * bsz >= direct_min_bytes())
        return gsc_alltoall_direct(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm, t);
    return gsc_alltoall_lg_unrouted(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, t);
}
