/* Allgather in the manner of the LG alltoall (seed 003): every rank sends its own block
 * straight to one partner in every other metahost (a_i -> b_(i mod nB)), so the WAN carries
 * each block once per remote metahost, in parallel flows and a single latency; meanwhile
 * each metahost allgathers its own blocks; then each metahost allgathers the remote blocks
 * its members received. (Doing the local steps as one after the WAN step was measured
 * slower on grid5000-2: 1338 vs 1309 ms at 1 MiB, although the concurrent local step takes
 * node-link bandwidth from the WAN flows.) Local steps are direct exchanges between the members (every member
 * sends its part to every other at once: each link carries what it must, as a ring would).
 * (PMPI_Allgather(v) on the cached metahost communicator was tried: SimGrid 3.32 aborts in
 * it on the test platform, "Actor pid=-1 is gone".) */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"


/* Allgatherv inside a metahost (members MA[0..nA), counts/displs in bytes), node-aware:
 * each member sends its part to its node mates and to the leader (lowest member) of every
 * other node, and leaders pass what they receive on to their node mates, so every byte
 * crosses each node's network link once. */
static int local_allgatherv(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                            char *all, const int *counts, const int *displs, int tag_a,
                            int tag_b, MPI_Comm comm)
{
    int *node = malloc(sizeof(int) * (size_t)nA), *lead = malloc(sizeof(int) * (size_t)nA);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)(4 * nA + 2));
    int nr = 0, rc = MPI_SUCCESS;
    for (int j = 0; j < nA; j++) {
        node[j] = t->nlevels > 1 ? t->group[1][MA[j]] : MA[j];
        lead[j] = j;
        for (int k = 0; k < j; k++)
            if (node[k] == node[j]) {
                lead[j] = k;
                break;
            }
    }
    int i_lead = lead[my] == my;
    if (counts[my]) memcpy(all + displs[my], mine, (size_t)counts[my]);
    /* receives: mates directly; other nodes directly (leader) or via my leader */
    int *fwd = malloc(sizeof(int) * (size_t)nA), nf = 0;
    MPI_Request *fq = malloc(sizeof(MPI_Request) * (size_t)(nA + 1));
    for (int j = 0; j < nA; j++) {
        if (j == my || !counts[j]) continue;
        if (node[j] == node[my])
            MPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[j], tag_a, comm, &rq[nr++]);
        else if (i_lead) {
            MPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[j], tag_a, comm, &fq[nf]);
            fwd[nf++] = j;
        } else
            MPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[lead[my]], tag_b, comm, &rq[nr++]);
    }
    if (counts[my])
        for (int j = 0; j < nA; j++) {
            if (j == my) continue;
            if (node[j] == node[my] || lead[j] == j)
                MPI_Isend(mine, counts[my], MPI_BYTE, MA[j], tag_a, comm, &rq[nr++]);
        }
    for (int f = 0; f < nf; f++) { /* leader: pass other nodes' parts to my mates */
        MPI_Wait(&fq[f], MPI_STATUS_IGNORE);
        int j = fwd[f];
        for (int k = 0; k < nA; k++)
            if (k != my && node[k] == node[my])
                MPI_Isend(all + displs[j], counts[j], MPI_BYTE, MA[k], tag_b, comm, &rq[nr++]);
    }
    if (nr) rc = MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    free(node);
    free(lead);
    free(rq);
    free(fwd);
    free(fq);
    return rc;
}

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
    int *bc = calloc((size_t)nA, sizeof(int)), *bd = calloc((size_t)nA, sizeof(int));
    for (int j = 0; j < nA; j++) {
        bc[j] = (int)bsz;
        bd[j] = (int)((size_t)j * bsz);
    }
    local_allgatherv(t, MA, nA, my, own, loc, bc, bd, GS_TAG_ALLGATHER_DOWN, GS_TAG_BCAST, comm);
    free(bc);
    free(bd);
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
    rc = local_allgatherv(t, MA, nA, my, in, all, counts, displs, GS_TAG_GATHER, GS_TAG_BCAST_B,
                          comm);
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
