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
#include "settings.h"

int gsc_lg_relay(int nS, int nD, int i, int j)
{
    if (nS <= nD) return j % nS;
    int r = (i / nD) * nD + j;
    return r >= nS ? r - nD : r;
}

/* Blocks a_i hands to relay a_r (besides its own block for a_r), in (metahost, j) order. */
static int relayed_count(const gsc_topo_t *t, int A, int i, int r)
{
    int nA = gsc_meta_size(t, A), k = 0;
    for (int B = 0; B < t->nmeta; B++) {
        if (B == A) continue;
        int nB = gsc_meta_size(t, B);
        for (int j = 0; j < nB; j++) k += gsc_lg_relay(nA, nB, i, j) == r;
    }
    return k;
}

/* Senders whose blocks for d_j (j-th of a metahost of nD) relay r of a metahost of nS
 * forwards, in the order the ring-ordered phase 1 brings them to r: its own first, then
 * s_(r-1), s_(r-2), ... Both the relay and d_j compute the same list. */
static int relay_list(int nS, int nD, int r, int j, int *out)
{
    int k = 0;
    for (int step = 0; step < nS; step++) {
        int i = ((r - step) % nS + nS) % nS;
        if (gsc_lg_relay(nS, nD, i, j) == r) out[k++] = i;
    }
    return k;
}

/* WAN chunks of a relay's message: about 128 KiB each (GRIDSCOPE_COLL_WAN_CHUNK), at most 8;
 * 1 keeps LG's single message per relay and destination (small blocks: latency-bound). */
static int lg_rounds(size_t relay_bytes)
{
    size_t chunk = gsc_setting_set(GSC_SET_WAN_CHUNK) ? (size_t)gsc_setting_num(GSC_SET_WAN_CHUNK)
                                                      : 131072;
    size_t n = relay_bytes / chunk;
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

/* a relay's message to one destination holds at most this many blocks (nS <= nD: nS) */
static int largest_metahost(const gsc_topo_t *t)
{
    int m = 0;
    for (int B = 0; B < t->nmeta; B++)
        if (gsc_meta_size(t, B) > m) m = gsc_meta_size(t, B);
    return m;
}

typedef struct {
    int dst, k, next; /* destination rank, list length, next chunk to send */
    int *list;        /* senders (indices in my metahost), ring order */
} served_t;

/* Large blocks: phase 1 runs as a ring (a_i sends to a_(i+1), a_(i+2), ... two messages in
 * flight), so a relay gets its sources' blocks one sender after the other, and it sends each
 * destination's blocks in R chunks as soon as a chunk's senders are in: the WAN works while
 * phase 1 is still running. Run one after the other, the phases added their times: on
 * lg-30-30 with 64 KiB blocks, 34 ms of node-link time in phase 1, then 55 ms of WAN. */
static int alltoall_lg_rounds(const char *P, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Aint rext, size_t bsz, MPI_Comm comm,
                              gsc_topo_t *t, int R)
{
    int n = t->size, me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    int A = t->group[0][me], my = t->meta_index[me];
    int nA = gsc_meta_size(t, A);
    const int *MA = t->meta_ranks + t->meta_start[A];
    int *tmp = malloc(sizeof(int) * (size_t)(n + 1));
    /* offset (in blocks) of the block for remote rank d inside a_i's phase-1 message to me */
    int *off = malloc(sizeof(int) * (size_t)nA * (size_t)n);
    for (int i = 0; i < nA; i++) {
        int o = 1;
        for (int B = 0; B < nm; B++) {
            if (B == A) continue;
            int nB = gsc_meta_size(t, B);
            for (int j = 0; j < nB; j++)
                if (gsc_lg_relay(nA, nB, i, j) == my)
                    off[(size_t)i * n + t->meta_ranks[t->meta_start[B] + j]] = o++;
        }
    }
    /* phase 1 receives (all posted; waited in ring order) */
    char **lin = calloc((size_t)nA, sizeof(char *)), **lout = calloc((size_t)nA, sizeof(char *));
    MPI_Request *req1 = malloc(sizeof(MPI_Request) * (size_t)nA);
    for (int i = 0; i < nA; i++) {
        req1[i] = MPI_REQUEST_NULL;
        if (i == my) continue;
        size_t len = (size_t)(1 + relayed_count(t, A, i, my)) * bsz;
        lin[i] = malloc(len);
        PMPI_Irecv(lin[i], (int)len, MPI_BYTE, MA[i], GS_TAG_ALLTOALL_LOCAL, comm, &req1[i]);
    }
    /* WAN receives: from each remote relay, R chunks (empty ones are not sent) */
    int maxw = n * R + 1, nwr = 0;
    char **win = calloc((size_t)maxw, sizeof(char *));
    int *win_first = malloc(sizeof(int) * (size_t)maxw), *win_len = malloc(sizeof(int) * (size_t)maxw);
    int *blocks = malloc(sizeof(int) * (size_t)n), nblocks = 0; /* source of each block */
    MPI_Request *wreq = malloc(sizeof(MPI_Request) * (size_t)maxw);
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = gsc_meta_size(t, B);
        const int *MB = t->meta_ranks + t->meta_start[B];
        for (int r = 0; r < nB; r++) {
            int k = relay_list(nB, nA, r, my, tmp);
            for (int c = 0; c < R; c++) {
                int lo = c * k / R, hi = (c + 1) * k / R;
                if (hi <= lo) continue;
                win[nwr] = malloc((size_t)(hi - lo) * bsz);
                win_first[nwr] = nblocks;
                win_len[nwr] = hi - lo;
                for (int x = lo; x < hi; x++) blocks[nblocks++] = MB[tmp[x]];
                PMPI_Irecv(win[nwr], (int)((size_t)(hi - lo) * bsz), MPI_BYTE, MB[r],
                          GS_TAG_ALLTOALL_WAN, comm, &wreq[nwr]);
                nwr++;
            }
        }
    }
    /* phase 1 messages, as in the one-round algorithm */
    for (int r = 0; r < nA; r++) {
        if (r == my) continue;
        size_t len = (size_t)(1 + relayed_count(t, A, my, r)) * bsz, o = bsz;
        char *buf = lout[r] = malloc(len);
        memcpy(buf, P + (size_t)MA[r] * bsz, bsz);
        for (int B = 0; B < nm; B++) {
            if (B == A) continue;
            int nB = gsc_meta_size(t, B);
            for (int j = 0; j < nB; j++)
                if (gsc_lg_relay(nA, nB, my, j) == r) {
                    memcpy(buf + o, P + (size_t)t->meta_ranks[t->meta_start[B] + j] * bsz, bsz);
                    o += bsz;
                }
        }
    }
    /* destinations I relay to */
    served_t *sv = calloc((size_t)n, sizeof(served_t));
    int nsv = 0;
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = gsc_meta_size(t, B);
        for (int j = 0; j < nB; j++) {
            int k = relay_list(nA, nB, my, j, tmp);
            if (!k) continue;
            sv[nsv].dst = t->meta_ranks[t->meta_start[B] + j];
            sv[nsv].k = k;
            sv[nsv].list = malloc(sizeof(int) * (size_t)k);
            memcpy(sv[nsv].list, tmp, sizeof(int) * (size_t)k);
            nsv++;
        }
    }
    int *step_of = malloc(sizeof(int) * (size_t)nA); /* ring step at which a_i's data is here */
    for (int i = 0; i < nA; i++) step_of[i] = ((my - i) % nA + nA) % nA;
    MPI_Request *wsend = malloc(sizeof(MPI_Request) * (size_t)(nsv * R + 1));
    char **wout = calloc((size_t)(nsv * R + 1), sizeof(char *));
    int nws = 0;
    gsc_sendq_t q;
    gsc_sendq_init(&q, nA, (int)gsc_window(t, me, me, bsz));
    for (int step = 0; step < nA; step++) {
        if (step > 0) {
            int r = (my + step) % nA, i = (my - step + nA) % nA;
            size_t len = (size_t)(1 + relayed_count(t, A, my, r)) * bsz;
            gsc_sendq_isend(&q, lout[r], (int)len, MPI_BYTE, MA[r], GS_TAG_ALLTOALL_LOCAL, comm);
            PMPI_Wait(&req1[i], MPI_STATUS_IGNORE);
        }
        /* every chunk whose senders are all here goes out */
        for (int d = 0; d < nsv; d++) {
            served_t *v = &sv[d];
            while (v->next < R) {
                int lo = v->next * v->k / R, hi = (v->next + 1) * v->k / R;
                if (hi > lo && step_of[v->list[hi - 1]] > step) break;
                v->next++;
                if (hi <= lo) continue;
                char *buf = wout[nws] = malloc((size_t)(hi - lo) * bsz);
                for (int x = lo; x < hi; x++) {
                    int i = v->list[x];
                    const char *blk = i == my ? P + (size_t)v->dst * bsz
                                              : lin[i] + (size_t)off[(size_t)i * n + v->dst] * bsz;
                    memcpy(buf + (size_t)(x - lo) * bsz, blk, bsz);
                }
                PMPI_Isend(buf, (int)((size_t)(hi - lo) * bsz), MPI_BYTE, v->dst,
                          GS_TAG_ALLTOALL_WAN, comm, &wsend[nws++]);
            }
        }
    }
    gsc_unpack(P + (size_t)me * bsz, bsz, (char *)recvbuf + (MPI_Aint)me * recvcount * rext,
              recvcount, recvtype);
    for (int i = 0; i < nA; i++)
        if (i != my)
            gsc_unpack(lin[i], bsz, (char *)recvbuf + (MPI_Aint)MA[i] * recvcount * rext, recvcount,
                      recvtype);
    if (nwr) PMPI_Waitall(nwr, wreq, MPI_STATUSES_IGNORE);
    for (int w = 0; w < nwr; w++) {
        for (int x = 0; x < win_len[w]; x++) {
            int src = blocks[win_first[w] + x];
            gsc_unpack(win[w] + (size_t)x * bsz, bsz,
                      (char *)recvbuf + (MPI_Aint)src * recvcount * rext, recvcount, recvtype);
        }
        free(win[w]);
    }
    int r1 = gsc_sendq_drain(&q);
    if (r1 != MPI_SUCCESS) rc = r1;
    if (nws) r1 = PMPI_Waitall(nws, wsend, MPI_STATUSES_IGNORE);
    if (r1 != MPI_SUCCESS) rc = r1;
    for (int w = 0; w < nws; w++) free(wout[w]);
    for (int d = 0; d < nsv; d++) free(sv[d].list);
    for (int i = 0; i < nA; i++) {
        free(lin[i]);
        free(lout[i]);
    }
    free(sv);
    free(step_of);
    free(wsend);
    free(wout);
    free(win);
    free(win_first);
    free(win_len);
    free(blocks);
    free(wreq);
    free(req1);
    free(lin);
    free(lout);
    free(off);
    free(tmp);
    return rc;
}

/* Largest send buffer per rank for which LG hands over to the leader-routed alltoall when
 * the WAN graph has quicker routes: the leader moves its metahost's buffers twice through
 * its link, which a relay's saved latency (asym-3: 4 ms) pays for only for short ones;
 * longer buffers go block by block (gsc_alltoall_units). */
#define ROUTED_MAX_BYTES 8192

/* The routed form when the WAN graph has quicker ways than the direct links (every rank
 * decides alike: same sizes, same graph): a short buffer goes through the leaders (few
 * messages, latency-bound), a long one block by block along the routed plan; NULL when the
 * direct links are the best routes. */
gsc_alltoall_fn gsc_alltoall_routed(gsc_topo_t *t, size_t bsz)
{
    int shortbuf = (size_t)t->size * bsz <= ROUTED_MAX_BYTES;
    if (!t->wan || gsc_alltoall_route_ex(t, bsz, !shortbuf) <= 0) return NULL;
    return shortbuf ? gsc_alltoall_hier : gsc_alltoall_units;
}

/* This rank's n send blocks of bsz bytes, packed in destination rank order into P (the
 * receive buffer's blocks with MPI_IN_PLACE). */
void gsc_alltoall_pack_mine(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int n, size_t bsz, char *P)
{
    const char *src = sendbuf;
    int scount = sendcount;
    MPI_Datatype stype = sendtype;
    if (sendbuf == MPI_IN_PLACE) {
        src = recvbuf;
        scount = recvcount;
        stype = recvtype;
    }
    MPI_Aint lb, sext;
    PMPI_Type_get_extent(stype, &lb, &sext);
    for (int d = 0; d < n; d++) {
        size_t b = 0;
        char *pk = gsc_pack(src + (MPI_Aint)d * scount * sext, scount, stype, &b);
        memcpy(P + (size_t)d * bsz, pk, bsz);
        free(pk);
    }
}

int gsc_alltoall_lg(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    /* LG's WAN messages take the direct links: the routed form where they are not the best */
    gsc_alltoall_fn routed = gsc_alltoall_routed(t, bsz);
    return (routed ? routed : gsc_alltoall_lg_unrouted)(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                      recvtype, comm, t);
}

int gsc_alltoall_lg_unrouted(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    int n = t->size, me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    MPI_Aint lb, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    /* P: my blocks, packed, in destination rank order */
    char *P = malloc((size_t)n * bsz);
    gsc_alltoall_pack_mine(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, bsz, P);
    int A = t->group[0][me], my = t->meta_index[me];
    int nA = gsc_meta_size(t, A);
    const int *MA = t->meta_ranks + t->meta_start[A];
    /* every metahost must take the same branch: decide on the largest relay message of all */
    int rounds = lg_rounds((size_t)largest_metahost(t) * bsz);
    if (rounds > 1) {
        rc = alltoall_lg_rounds(P, recvbuf, recvcount, recvtype, rext, bsz, comm, t, rounds);
        free(P);
        return rc;
    }

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
        int nB = gsc_meta_size(t, B);
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
            int nB = gsc_meta_size(t, B);
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
        int nB = gsc_meta_size(t, B);
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
        int nB = gsc_meta_size(t, B);
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
