/* Allgather in the manner of the LG alltoall (seed 003): every rank sends its own block
 * straight to one partner in every other metahost (a_i -> b_(i mod nB)), so the WAN carries
 * each block once per remote metahost, in parallel flows and a single latency; meanwhile
 * each metahost allgathers its own blocks; then each metahost allgathers the remote blocks
 * its members received. Local steps are direct exchanges between the members (every member
 * sends its part to every other at once: each link carries what it must, as a ring would).
 * (PMPI_Allgather(v) on the cached metahost communicator was tried: SimGrid 3.32 aborts in
 * it on the test platform, "Actor pid=-1 is gone".) */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

int gsc_allgather_lg(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    int me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    MPI_Aint lb, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    int A = t->group[0][me], my = t->meta_index[me];
    int nA = t->meta_start[A + 1] - t->meta_start[A];
    const int *MA = t->meta_ranks + t->meta_start[A];

    size_t b = 0;
    char *own = sendbuf == MPI_IN_PLACE
                    ? gsc_pack((char *)recvbuf + (MPI_Aint)me * recvcount * rext, recvcount,
                              recvtype, &b)
                    : gsc_pack(sendbuf, sendcount, sendtype, &b);
    /* remote blocks I receive: sources s = b_i of every other metahost with i mod nA == my */
    int nin = 0;
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = t->meta_start[B + 1] - t->meta_start[B];
        for (int i = 0; i < nB; i++) nin += i % nA == my;
    }
    char *in = malloc((size_t)(nin ? nin : 1) * bsz);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(nin + nm + 1));
    int nreq = 0, k = 0;
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = t->meta_start[B + 1] - t->meta_start[B];
        for (int i = 0; i < nB; i++)
            if (i % nA == my)
                MPI_Irecv(in + (size_t)k++ * bsz, (int)bsz, MPI_BYTE,
                          t->meta_ranks[t->meta_start[B] + i], GS_TAG_ALLGATHER_X, comm,
                          &req[nreq++]);
        MPI_Isend(own, (int)bsz, MPI_BYTE, t->meta_ranks[t->meta_start[B] + my % nB],
                  GS_TAG_ALLGATHER_X, comm, &req[nreq++]);
    }
    /* my metahost's blocks, while the WAN transfers run */
    char *loc = malloc((size_t)nA * bsz);
    MPI_Request *lreq = malloc(sizeof(MPI_Request) * (size_t)(2 * nA + 1));
    int nl = 0;
    for (int j = 0; j < nA; j++) {
        if (j == my) continue;
        MPI_Irecv(loc + (size_t)j * bsz, (int)bsz, MPI_BYTE, MA[j], GS_TAG_ALLGATHER_DOWN, comm,
                  &lreq[nl++]);
        MPI_Isend(own, (int)bsz, MPI_BYTE, MA[j], GS_TAG_ALLGATHER_DOWN, comm, &lreq[nl++]);
    }
    memcpy(loc + (size_t)my * bsz, own, bsz);
    if (nl) MPI_Waitall(nl, lreq, MPI_STATUSES_IGNORE);
    for (int j = 0; j < nA; j++)
        gsc_unpack(loc + (size_t)j * bsz, bsz, (char *)recvbuf + (MPI_Aint)MA[j] * recvcount * rext,
                  recvcount, recvtype);
    if (nreq) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

    /* the remote blocks each member holds, gathered inside the metahost */
    int *counts = malloc(sizeof(int) * (size_t)nA), *displs = malloc(sizeof(int) * (size_t)nA);
    int total = 0;
    for (int j = 0; j < nA; j++) {
        int c = 0;
        for (int B = 0; B < nm; B++) {
            if (B == A) continue;
            int nB = t->meta_start[B + 1] - t->meta_start[B];
            for (int i = 0; i < nB; i++) c += i % nA == j;
        }
        counts[j] = (int)((size_t)c * bsz);
        displs[j] = total;
        total += counts[j];
    }
    char *all = malloc(total ? (size_t)total : 1);
    nl = 0;
    for (int j = 0; j < nA; j++) {
        if (j == my) continue;
        if (counts[j])
            MPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[j], GS_TAG_GATHER, comm, &lreq[nl++]);
        if (counts[my])
            MPI_Isend(in, counts[my], MPI_BYTE, MA[j], GS_TAG_GATHER, comm, &lreq[nl++]);
    }
    if (counts[my]) memcpy(all + displs[my], in, (size_t)counts[my]);
    if (nl) rc = MPI_Waitall(nl, lreq, MPI_STATUSES_IGNORE);
    free(lreq);
    for (int j = 0; j < nA; j++) {
        size_t o = (size_t)displs[j];
        for (int B = 0; B < nm; B++) {
            if (B == A) continue;
            int nB = t->meta_start[B + 1] - t->meta_start[B];
            for (int i = 0; i < nB; i++)
                if (i % nA == j) {
                    int src = t->meta_ranks[t->meta_start[B] + i];
                    gsc_unpack(all + o, bsz, (char *)recvbuf + (MPI_Aint)src * recvcount * rext,
                              recvcount, recvtype);
                    o += bsz;
                }
        }
    }
    free(all);
    free(counts);
    free(displs);
    free(loc);
    free(in);
    free(req);
    free(own);
    return rc;
}
