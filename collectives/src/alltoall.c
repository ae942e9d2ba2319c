/* LG ("Local Group") alltoall (seed 003: Jeannot & Steffenel, Algorithm 1), generalised to
 * any number of metahosts. For an ordered pair of metahosts S -> D (sizes nS, nD), the block
 * from s_i to d_j is first handed, inside S, to the relay s_r with
 *     r = j mod nS                          when nS <= nD,
 *     r = floor(i/nD)*nD + j (minus nD if r >= nS)   when nS > nD,
 * and the relay sends everything it holds for d_j in one WAN message. So S sends max(nS, nD)
 * WAN messages to D instead of nS*nD. Phase 1 (local) exchanges, inside each metahost, the
 * local blocks together with the blocks to relay; phase 2 sends all WAN messages at once
 * (the paper runs them in ceil(n2/n1) steps; a shared WAN link carries them the same). */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

int gsc_lg_relay(int nS, int nD, int i, int j)
{
    if (nS <= nD) return j % nS;
    int r = (i / nD) * nD + j;
    return r >= nS ? r - nD : r;
}

/* Blocks a_i hands to relay a_r (besides its own block for a_r), in (metahost, j) order. */
static int relayed_count(const gsc_topo_t *t, int A, int i, int r)
{
    int nA = t->meta_start[A + 1] - t->meta_start[A], k = 0;
    for (int B = 0; B < t->nmeta; B++) {
        if (B == A) continue;
        int nB = t->meta_start[B + 1] - t->meta_start[B];
        for (int j = 0; j < nB; j++) k += gsc_lg_relay(nA, nB, i, j) == r;
    }
    return k;
}

int gsc_alltoall_lg(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    int n = t->size, me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    const char *src = sendbuf;
    int scount = sendcount;
    MPI_Datatype stype = sendtype;
    if (sendbuf == MPI_IN_PLACE) {
        src = recvbuf;
        scount = recvcount;
        stype = recvtype;
    }
    PMPI_Type_get_extent(stype, &lb, &sext);
    /* P: my blocks, packed, in destination rank order */
    char *P = malloc((size_t)n * bsz);
    for (int d = 0; d < n; d++) {
        size_t b = 0;
        char *pk = gsc_pack(src + (MPI_Aint)d * scount * sext, scount, stype, &b);
        memcpy(P + (size_t)d * bsz, pk, bsz);
        free(pk);
    }
    int A = t->group[0][me], my = t->meta_index[me];
    int nA = t->meta_start[A + 1] - t->meta_start[A];
    const int *MA = t->meta_ranks + t->meta_start[A];

    /* requests: local recv/send nA each, WAN recv/send <= 2n */
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * nA + 4 * n + 2));
    int nreq = 0;
    char **lin = calloc((size_t)nA, sizeof(char *)), **lout = calloc((size_t)nA, sizeof(char *));
    /* phase 1 receives: from a_i, its block for me + the blocks I relay for it */
    for (int i = 0; i < nA; i++) {
        if (i == my) continue;
        size_t len = (size_t)(1 + relayed_count(t, A, i, my)) * bsz;
        lin[i] = malloc(len);
        PMPI_Irecv(lin[i], (int)len, MPI_BYTE, MA[i], GS_TAG_ALLTOALL_LOCAL, comm, &req[nreq++]);
    }
    /* phase 2 receives, posted early: from each remote relay b_r, blocks of its sources */
    int nwan_r = 0;
    char **win = calloc((size_t)n, sizeof(char *));
    int *win_meta = malloc(sizeof(int) * (size_t)n), *win_r = malloc(sizeof(int) * (size_t)n);
    MPI_Request *wreq = malloc(sizeof(MPI_Request) * (size_t)(n + 1));
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = t->meta_start[B + 1] - t->meta_start[B];
        for (int r = 0; r < nB; r++) {
            int k = 0;
            for (int i = 0; i < nB; i++) k += gsc_lg_relay(nB, nA, i, my) == r;
            if (!k) continue;
            win[nwan_r] = malloc((size_t)k * bsz);
            win_meta[nwan_r] = B;
            win_r[nwan_r] = r;
            PMPI_Irecv(win[nwan_r], (int)((size_t)k * bsz), MPI_BYTE,
                      t->meta_ranks[t->meta_start[B] + r], GS_TAG_ALLTOALL_WAN, comm,
                      &wreq[nwan_r]);
            nwan_r++;
        }
    }
    /* phase 1 sends */
    for (int r = 0; r < nA; r++) {
        if (r == my) continue;
        size_t len = (size_t)(1 + relayed_count(t, A, my, r)) * bsz, o = 0;
        char *buf = lout[r] = malloc(len);
        memcpy(buf, P + (size_t)MA[r] * bsz, bsz);
        o = bsz;
        for (int B = 0; B < nm; B++) {
            if (B == A) continue;
            int nB = t->meta_start[B + 1] - t->meta_start[B];
            for (int j = 0; j < nB; j++)
                if (gsc_lg_relay(nA, nB, my, j) == r) {
                    memcpy(buf + o, P + (size_t)t->meta_ranks[t->meta_start[B] + j] * bsz, bsz);
                    o += bsz;
                }
        }
        PMPI_Isend(buf, (int)len, MPI_BYTE, MA[r], GS_TAG_ALLTOALL_LOCAL, comm, &req[nreq++]);
    }
    gsc_unpack(P + (size_t)me * bsz, bsz, (char *)recvbuf + (MPI_Aint)me * recvcount * rext,
              recvcount, recvtype);
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    nreq = 0;
    for (int i = 0; i < nA; i++)
        if (i != my)
            gsc_unpack(lin[i], bsz, (char *)recvbuf + (MPI_Aint)MA[i] * recvcount * rext, recvcount,
                      recvtype);

    /* phase 2 sends: for every remote d_j I relay to, the blocks of my sources in order */
    char **wout = calloc((size_t)n, sizeof(char *));
    int nw = 0;
    int *cursor = calloc((size_t)nA, sizeof(int)); /* next relayed block in lin[i] */
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = t->meta_start[B + 1] - t->meta_start[B];
        for (int j = 0; j < nB; j++) {
            int k = 0;
            for (int i = 0; i < nA; i++) k += gsc_lg_relay(nA, nB, i, j) == my;
            if (!k) continue;
            char *buf = wout[nw++] = malloc((size_t)k * bsz);
            size_t o = 0;
            int dst = t->meta_ranks[t->meta_start[B] + j];
            for (int i = 0; i < nA; i++) {
                if (gsc_lg_relay(nA, nB, i, j) != my) continue;
                const char *blk = i == my ? P + (size_t)dst * bsz
                                          : lin[i] + (size_t)(1 + cursor[i]++) * bsz;
                memcpy(buf + o, blk, bsz);
                o += bsz;
            }
            PMPI_Isend(buf, (int)((size_t)k * bsz), MPI_BYTE, dst, GS_TAG_ALLTOALL_WAN, comm,
                      &req[nreq++]);
        }
    }
    if (nwan_r) PMPI_Waitall(nwan_r, wreq, MPI_STATUSES_IGNORE);
    for (int w = 0; w < nwan_r; w++) {
        int B = win_meta[w], r = win_r[w];
        int nB = t->meta_start[B + 1] - t->meta_start[B];
        size_t o = 0;
        for (int i = 0; i < nB; i++) {
            if (gsc_lg_relay(nB, nA, i, my) != r) continue;
            int s = t->meta_ranks[t->meta_start[B] + i];
            gsc_unpack(win[w] + o, bsz, (char *)recvbuf + (MPI_Aint)s * recvcount * rext, recvcount,
                      recvtype);
            o += bsz;
        }
        free(win[w]);
    }
    if (nreq) rc = PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int w = 0; w < nw; w++) free(wout[w]);
    for (int i = 0; i < nA; i++) {
        free(lin[i]);
        free(lout[i]);
    }
    free(wout);
    free(cursor);
    free(lin);
    free(lout);
    free(win);
    free(win_meta);
    free(win_r);
    free(wreq);
    free(req);
    free(P);
    return rc;
}
