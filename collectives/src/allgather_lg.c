/* Allgather in the manner of the LG alltoall (seed 003): every rank sends its own block
 * straight to one partner in every other metahost (a_i -> b_(i mod nB)), so the WAN carries
 * each block once per remote metahost, in parallel flows and a single latency; meanwhile
 * each metahost allgathers its own blocks; then each metahost allgathers the remote blocks
 * its members received.
 * Large blocks: (1) the local steps run as a ring over the members ordered by node, because
 * SimGrid's CM02 model shares a link in inverse proportion to each flow's latency, so the
 * many concurrent LAN flows of a direct exchange starved the WAN flows on the node links
 * (WAN step 1162 instead of 995 ms at 1 MiB on grid5000-2); (2) from 16 KiB each block
 * crosses the WAN in graded chunks (wan_chunks) that arrive one after the other, and the
 * remote blocks are allgathered chunk round by chunk round as they arrive, so only the last
 * round's local exchange follows the WAN transfer (1 MiB: 1309 ms before, 1193 with (1),
 * 1106 with (1) and 8 equal chunks two at a time, 1076 with 16 graded chunks). A block in
 * one round, below 16 KiB, may take the routed plan over the WAN graph (below). Small blocks
 * keep the direct, node-aware exchange (one step, one latency) and whole blocks.
 * (PMPI_Allgather(v) on the cached metahost communicator was tried: SimGrid 3.32 aborts in
 * it on the test platform, "Actor pid=-1 is gone".) */
#include <stdlib.h>
#include <string.h>

#include "allgather_wan_tx.h"
#include "settings.h"

/* Chunks of a block on the WAN. By default about 4 KiB each, at most 16, graded (below) and
 * all sent at once, so that they arrive one after the other during the WAN transfer and the
 * local exchange of each runs while the next ones are still on the way (grid5000-3, 64 ranks,
 * 64 KiB: 134.61 ms in one round, 107.40 ms in 16; 16 KiB: 40.99 and 36.74 in 4; smaller
 * chunks pay a ring's LAN latencies per round: 49.61 ms in 16 at 16 KiB).
 * GRIDSCOPE_COLL_WAN_GRADED=R forces R graded chunks; GRIDSCOPE_COLL_WAN_CHUNK=BYTES equal
 * chunks of BYTES (at most 8) sent two at a time per destination (the scheme before). */
#define GS_WAN_CHUNK_MIN 4096
#define GS_WAN_CHUNKS_MAX 16
/* fewer rounds do not pay their rounds' latencies (grid5000-3, 64 ranks, 8 KiB: 24.28 ms in
 * two rounds, 23.15 in one) */
#define GS_WAN_CHUNKS_MIN 4
static int wan_chunks(size_t bsz, int *graded)
{
    if (gsc_setting_set(GSC_SET_WAN_CHUNK)) {
        size_t n = bsz / (size_t)gsc_setting_num(GSC_SET_WAN_CHUNK);
        *graded = 0;
        return n < 1 ? 1 : n > 8 ? 8 : (int)n;
    }
    int forced = gsc_setting_set(GSC_SET_WAN_GRADED); /* 1..16 */
    size_t n = forced ? (size_t)gsc_setting_num(GSC_SET_WAN_GRADED) : bsz / GS_WAN_CHUNK_MIN;
    if (n > GS_WAN_CHUNKS_MAX) n = GS_WAN_CHUNKS_MAX;
    if (n > bsz) n = bsz;
    if (!forced && n < GS_WAN_CHUNKS_MIN) n = 1;
    *graded = n > 1;
    return n < 1 ? 1 : (int)n;
}

/* Chunk boundaries: equal chunks, or graded ones that, all sent at once and sharing a link
 * fairly, complete one after the other at even intervals: while R - k chunks are still under
 * way each gets 1/(R - k) of the link, so chunk k holds sum_{j<=k} 1/(R - j) times bsz/R
 * bytes (together bsz). */
static size_t *chunk_offsets(size_t bsz, int nck, int graded)
{
    size_t *off = malloc(sizeof(size_t) * (size_t)(nck + 1));
    double acc = 0, chunk = 0;
    off[0] = 0;
    for (int c = 0; c < nck; c++) {
        chunk = graded ? chunk + 1.0 / (nck - c) / nck : 1.0 / nck;
        acc += chunk;
        size_t o = (size_t)(acc * (double)bsz + 0.5);
        off[c + 1] = c == nck - 1 || o > bsz ? bsz : o;
    }
    return off;
}

/* Tags of forwarded chunks: a relay forwards chunk c of block i of S (which it receives as
 * partner i mod nR) with tag GS_TAG_UNIT + (i / nR) * nck + c, one tag per chunk from one
 * relay to one receiver. */

/* For chunked blocks where the WAN graph has quicker ways (gsc_wan_plan_shared): the metahost
 * that relays block i of S for D, rt[(S * nm + D) * n + i], or -1 (direct). A relay R is the
 * block's LG partner there, which receives the block for itself anyway and forwards its
 * chunks as they arrive. NULL when every block goes direct (no graph, nothing to gain, or
 * more chunk tags than fit below the library's other tags). */
static int *relayed_blocks(const gsc_topo_t *t, size_t bsz, int nck)
{
    int nm = t->nmeta, n = t->size;
    if (!t->wan || nm < 3) return NULL;
    double *bytes = malloc(sizeof(double) * (size_t)nm);
    int *units = malloc(sizeof(int) * (size_t)nm), *via = malloc(sizeof(int) * (size_t)(nm * nm * nm));
    int *rt = malloc(sizeof(int) * (size_t)(nm * nm * n));
    int relayed = bytes && units && via && rt;
    for (int S = 0; relayed && S < nm; S++) {
        units[S] = gsc_meta_size(t, S);
        bytes[S] = (double)units[S] * (double)bsz;
    }
    relayed = relayed && gsc_wan_plan_shared(t->wan, bytes, units, via);
    for (int S = 0; relayed && S < nm; S++)
        for (int D = 0; D < nm; D++) {
            if (S == D) continue;
            /* the direct blocks first, then each relay's, in metahost order */
            int i = via[(S * nm + D) * nm + D];
            for (int b = 0; b < i; b++) rt[(S * nm + D) * n + b] = -1;
            for (int R = 0; R < nm; R++) {
                if (R == S || R == D) continue;
                int nR = gsc_meta_size(t, R);
                if (via[(S * nm + D) * nm + R] &&
                    (size_t)(units[S] / nR + 1) * (size_t)nck > GS_TAG_SLICE - GS_TAG_UNIT)
                    relayed = 0;
                for (int b = 0; b < via[(S * nm + D) * nm + R]; b++) rt[(S * nm + D) * n + i++] = R;
            }
        }
    free(bytes);
    free(units);
    free(via);
    if (!relayed) {
        free(rt);
        return NULL;
    }
    return rt;
}

/* Pacing chunked blocks. All at once, chunks sharing a link complete in the order of their
 * sizes, so graded chunks arrive one after the other; but the later chunks are the larger
 * ones, and a metahost whose nodes take in the remote blocks barely faster than the WAN
 * brings them fell behind on the last rounds and still had a fifth of every block to share
 * out after the WAN was done (asym-3, 64 ranks, 64 KiB: Sophia's last WAN chunk in at 85 ms,
 * its last round done at 100.8). Paced instead, every sender cuts its block into equal chunks
 * and sends chunk c at c / nck of the time its link needs for all the blocks planned on it,
 * its own and those relayed over it (relays forward on the same schedule), so each chunk
 * crosses while the previous ones are shared out: 94.2 ms there, 165.5 against 183.5 at 128
 * ranks, and grid5000-2, 32 ranks, 1 MiB: 1058.8 against 1076.4. It pays where a link needs
 * at least PACE_MIN_LATENCIES latencies for its blocks: below that the blocks are on the
 * wire for barely longer than a latency and spreading them only delays the last chunk
 * (asym-3, 64 ranks, 16 KiB: paced 46.18 ms, graded 43.38; the slowest link needs 1.3
 * latencies there, against 5.2 at 64 KiB). Returns the time of every link S -> D
 * (seconds, [S * nm + D]) when pacing, else NULL (no WAN graph, or no link that long). */
#define PACE_MIN_LATENCIES 2.0
static double *link_times(const gsc_topo_t *t, const int *rt, size_t bsz)
{
    const gsc_wan_t *g = t->wan;
    int nm = t->nmeta, n = t->size, pays = 0;
    /* GRIDSCOPE_COLL_WAN_PACE=0|1 turns pacing off or on whatever the links need;
     * GRIDSCOPE_COLL_WAN_CHUNK asks for the windowed equal chunks instead */
    const char *force = gsc_setting_text(GSC_SET_WAN_PACE); /* "", "0" or "1" */
    if (!g || strcmp(force, "0") == 0 || gsc_setting_set(GSC_SET_WAN_CHUNK)) return NULL;
    double *T = calloc((size_t)(nm * nm), sizeof(double));
    for (int S = 0; T && S < nm; S++)
        for (int D = 0; D < nm; D++) {
            if (S == D) continue;
            /* S's own blocks sent direct to D, and other metahosts' blocks S relays to D */
            int blocks = 0;
            for (int X = 0; X < nm; X++) {
                if (X == D) continue;
                for (int i = 0; i < gsc_meta_size(t, X); i++) {
                    int R = rt ? rt[(X * nm + D) * n + i] : -1;
                    blocks += (X == S && R < 0) || (X != S && R == S);
                }
            }
            T[S * nm + D] = (double)blocks * (double)bsz / g->bw[S * g->k + D];
            pays |= T[S * nm + D] >= PACE_MIN_LATENCIES * g->lat[S * g->k + D];
        }
    if (!pays && strcmp(force, "1") != 0) {
        free(T);
        return NULL;
    }
    return T;
}

/* The routed WAN round: unit u of flow S -> D is a_u's block for b_(u mod nD). */
typedef struct {
    const gsc_topo_t *t;
    const gsc_wan_flow_t *fl;
    int **downer;
    const int **owner;
    const int *leaders;
    size_t bsz;
    char *in, *own;
} routed_ctx_t;

/* at the source: my own block; at the destination: its slot in `in`, which holds the
 * blocks I receive in LG's order (metahost, then rank) */
static char *routed_buf(void *ctx, int f, size_t u, int at_dest)
{
    routed_ctx_t *c = ctx;
    if (!at_dest) return c->own;
    const gsc_topo_t *t = c->t;
    int A = c->fl[f].dst, S = c->fl[f].src, my = t->meta_index[t->rank];
    int nA = gsc_meta_size(t, A), k = 0;
    for (int B = 0; B < t->nmeta; B++) {
        if (B == A) continue;
        int nB = gsc_meta_size(t, B);
        for (int i = 0; i < nB; i++)
            if (i % nA == my) {
                if (B == S && (size_t)i == u) return c->in + (size_t)k * c->bsz;
                k++;
            }
    }
    return c->in; /* not reached: u is one of mine */
}

/* The remote blocks member j of metahost A (nA members) receives as the LG partner of their
 * sources: b_i of every other metahost with i mod nA == j. */
static int partner_blocks(const gsc_topo_t *t, int A, int nA, int j)
{
    int count = 0;
    for (int B = 0; B < t->nmeta; B++) {
        if (B == A) continue;
        int nB = gsc_meta_size(t, B);
        for (int i = 0; i < nB; i++) count += i % nA == j;
    }
    return count;
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
    int nA = gsc_meta_size(t, A);
    const int *MA = t->meta_ranks + t->meta_start[A];
    int graded = 0, nck = wan_chunks(bsz, &graded), n = t->size;
    int *rt = nck > 1 ? relayed_blocks(t, bsz, nck) : NULL;
    double *link_s = nck > 1 ? link_times(t, rt, bsz) : NULL;
    if (link_s) graded = 0; /* paced: equal chunks */
    size_t *coff = chunk_offsets(bsz, nck, graded), csz = 0;
    for (int c = 0; c < nck; c++)
        if (coff[c + 1] - coff[c] > csz) csz = coff[c + 1] - coff[c];
    /* one WAN round (blocks below the chunk size): when the WAN graph has quicker ways than
     * the direct links (every rank computes the same plan), each block still goes to its
     * partner b_(i mod nB), but along its piece's path, relayed by other metahosts' leaders.
     * Planned store and forward (not pipelined): a leader relays only once its own
     * metahost's allgather is done (asym-3, 64 ranks, 1 KiB: 24.0 ms pipelined-planned,
     * 21.9 ms with this plan, which keeps the direct links there) */
    gsc_wan_flow_t *fl = NULL;
    gsc_wan_piece_t *plan = NULL, *unit = NULL;
    int nf = 0, nu = 0, np = 0;
    if (t->wan && nck == 1) {
        fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
        np = fl ? gsc_allgather_route(t, bsz, 0, fl, &nf, &plan) : 0;
        unit = np > 0 ? gsc_wan_unit_pieces(plan, np, &nu) : NULL;
    }
    routed_ctx_t rx = {t, unit ? fl : NULL, NULL, NULL, NULL, bsz, NULL, NULL};

    size_t b = 0;
    char *own = sendbuf == MPI_IN_PLACE
                    ? gsc_pack((char *)recvbuf + (MPI_Aint)me * recvcount * rext, recvcount,
                              recvtype, &b)
                    : gsc_pack(sendbuf, sendcount, sendtype, &b);
    int nin = partner_blocks(t, A, nA, my);
    char *in = malloc((size_t)(nin ? nin : 1) * bsz);
    /* rr[c * nin + k]: chunk c of the k-th remote block I receive (a round's receives are
     * contiguous, so the forwards below can test them in place) */
    MPI_Request *rr = malloc(sizeof(MPI_Request) * (size_t)(nin * nck + 1));
    int k = 0;
    int *dst = malloc(sizeof(int) * (size_t)nm);
    int nduty = 0;
    if (rt) /* at most one forward per chunk, block I receive and other metahost */
        nduty = nin * nck * (nm > 2 ? nm - 2 : 0);
    gsc_wan_tx_t w = {0, nck, !graded && !link_s && nck > 2, dst, NULL, NULL, own, coff, comm,
                  calloc((size_t)nduty + 1, sizeof(gsc_fwd_duty_t)),
                  malloc(sizeof(MPI_Request) * (size_t)(nduty + 1)), 0, PMPI_Wtime(), NULL};
    for (int B = 0; B < nm; B++) {
        if (B == A) continue;
        int nB = gsc_meta_size(t, B);
        for (int i = 0; i < nB; i++)
            if (i % nA == my) {
                /* block i of B: from B's member, or from its partner in the relay R */
                int R = rt ? rt[(B * nm + A) * n + i] : -1;
                int nR = R >= 0 ? gsc_meta_size(t, R) : 1;
                int from = R >= 0 ? t->meta_ranks[t->meta_start[R] + i % nR]
                                  : t->meta_ranks[t->meta_start[B] + i];
                for (int c = 0; c < nck; c++) {
                    size_t off = coff[c], len = coff[c + 1] - off;
                    rr[c * nin + k] = MPI_REQUEST_NULL;
                    if (!rx.fl)
                        PMPI_Irecv(in + (size_t)k * bsz + off, (int)len, MPI_BYTE, from,
                                   R >= 0 ? GS_TAG_UNIT + (i / nR) * nck + c
                                          : GS_TAG_ALLGATHER_X,
                                   comm, &rr[c * nin + k]);
                }
                /* as a relay: its chunks on to every metahost the plan sends it through mine */
                for (int c = 0; rt && c < nck; c++)
                    for (int D = 0; D < nm; D++) {
                        if (D == A || D == B || rt[(B * nm + D) * n + i] != A) continue;
                        int nD = gsc_meta_size(t, D);
                        w.fw[w.nfw++] = (gsc_fwd_duty_t){
                            &rr[c * nin + k], in + (size_t)k * bsz + coff[c],
                            (int)(coff[c + 1] - coff[c]), t->meta_ranks[t->meta_start[D] + i % nD],
                            GS_TAG_UNIT + (i / nA) * nck + c, 0,
                            link_s ? gsc_wan_tx_due(&w, link_s[A * nm + D], c) : 0};
                    }
                k++;
            }
        /* my block to my partner in B, unless a relay forwards it there */
        if (!rx.fl && !(rt && rt[(A * nm + B) * n + my] >= 0))
            dst[w.nd++] = t->meta_ranks[t->meta_start[B] + my % nB];
    }
    gsc_wan_xchg_t wx;
    if (rx.fl) {
        rx.in = in;
        rx.own = own;
        rx.owner = malloc(sizeof(int *) * (size_t)(nf + 1));
        rx.downer = malloc(sizeof(int *) * (size_t)(nf + 1));
        for (int f = 0; f < nf; f++) {
            int S = fl[f].src, D = fl[f].dst, nD = gsc_meta_size(t, D);
            rx.owner[f] = t->meta_ranks + t->meta_start[S];
            rx.downer[f] = malloc(sizeof(int) * (fl[f].units + 1));
            for (size_t u = 0; u < fl[f].units; u++)
                rx.downer[f][u] = t->meta_ranks[t->meta_start[D] + (int)(u % (size_t)nD)];
        }
        int *leaders = malloc(sizeof(int) * (size_t)nm);
        for (int m = 0; m < nm; m++) leaders[m] = t->meta_ranks[t->meta_start[m]];
        rx.leaders = leaders;
        rc = gsc_wan_start_units(&wx, comm, me, leaders, unit, nu, MPI_BYTE, (int)bsz,
                                 (const int *const *)rx.owner, (const int *const *)rx.downer,
                                 routed_buf, &rx, NULL, NULL, NULL, GS_TAG_WAN_ROUTE);
    }
    w.rq = malloc(sizeof(MPI_Request) * (size_t)(w.nd * nck + 1));
    w.next = calloc((size_t)w.nd + 1, sizeof(int));
    for (int i = 0; i < w.nd * nck; i++) w.rq[i] = MPI_REQUEST_NULL;
    if (link_s) {
        w.step = calloc((size_t)w.nd + 1, sizeof(double));
        for (int d = 0; d < w.nd; d++) w.step[d] = link_s[A * nm + t->group[0][dst[d]]];
        gsc_wan_tx_refill(&w);
    } else
        for (int d = 0; d < w.nd; d++)
            for (int c = 0; c < nck && (graded || c < 2); c++) gsc_wan_tx_post(&w, d);

    /* my metahost's blocks, while the WAN transfers run */
    char *loc = malloc((size_t)nA * bsz);
    int *bc = calloc((size_t)nA, sizeof(int)), *bd = calloc((size_t)nA, sizeof(int));
    for (int j = 0; j < nA; j++) {
        bc[j] = (int)bsz;
        bd[j] = (int)((size_t)j * bsz);
    }
    gsc_allgatherv_meta(t, MA, nA, my, own, loc, bc, bd, GS_TAG_ALLGATHER_DOWN, GS_TAG_BCAST,
                        comm, &w);
    free(bc);
    free(bd);
    for (int j = 0; j < nA; j++)
        gsc_unpack(loc + (size_t)j * bsz, bsz, (char *)recvbuf + (MPI_Aint)MA[j] * recvcount * rext,
                  recvcount, recvtype);

    /* the remote blocks each member holds, gathered inside the metahost chunk round by chunk
     * round as the rounds arrive */
    int *nbl = malloc(sizeof(int) * (size_t)nA), *displs = malloc(sizeof(int) * (size_t)nA);
    int *cc = malloc(sizeof(int) * (size_t)nA), *cd = malloc(sizeof(int) * (size_t)nA);
    int total = 0;
    for (int j = 0; j < nA; j++) {
        nbl[j] = partner_blocks(t, A, nA, j);
        displs[j] = total;
        total += (int)((size_t)nbl[j] * bsz);
    }
    char *all = malloc(total ? (size_t)total : 1);
    char *part = nck > 1 ? malloc((size_t)total / bsz * csz + 1) : all;
    char *mine = nck > 1 ? malloc((size_t)(nin ? nin : 1) * csz) : in;
    for (int c = 0; c < nck && rc == MPI_SUCCESS; c++) {
        size_t off = coff[c], len = coff[c + 1] - off;
        if (rx.fl) rc = gsc_wan_finish(&wx); /* my remote blocks are in, relays done */
        if (rc != MPI_SUCCESS) break;
        rc = gsc_wan_tx_wait(&w, &rr[c * nin], nin);
        if (rc != MPI_SUCCESS) break;
        int tot = 0;
        for (int j = 0; j < nA; j++) {
            cc[j] = (int)((size_t)nbl[j] * len);
            cd[j] = tot;
            tot += cc[j];
        }
        if (nck == 1) {
            rc = gsc_allgatherv_meta(t, MA, nA, my, in, all, cc, cd, GS_TAG_GATHER,
                                     GS_TAG_BCAST_B, comm, &w);
            break;
        }
        for (int q = 0; q < nin; q++) memcpy(mine + (size_t)q * len, in + (size_t)q * bsz + off, len);
        rc = gsc_allgatherv_long(t, MA, nA, my, mine, part, cc, cd, GS_TAG_GATHER, comm, &w);
        for (int j = 0; j < nA; j++)
            for (int q = 0; q < nbl[j]; q++)
                memcpy(all + displs[j] + (size_t)q * bsz + off, part + cd[j] + (size_t)q * len, len);
    }
    gsc_wan_tx_drain(&w); /* the rest of my chunks, then every WAN send */
    for (int j = 0; j < nA; j++) {
        size_t o = (size_t)displs[j];
        for (int B = 0; B < nm; B++) {
            if (B == A) continue;
            int nB = gsc_meta_size(t, B);
            for (int i = 0; i < nB; i++)
                if (i % nA == j) {
                    int src = t->meta_ranks[t->meta_start[B] + i];
                    gsc_unpack(all + o, bsz, (char *)recvbuf + (MPI_Aint)src * recvcount * rext,
                              recvcount, recvtype);
                    o += bsz;
                }
        }
    }
    if (nck > 1) {
        free(part);
        free(mine);
    }
    free(rr);
    free(rt);
    free(w.fw);
    free(w.fq);
    free(nbl);
    free(cc);
    free(cd);
    free(dst);
    free(w.rq);
    free(w.next);
    free(w.step);
    free(link_s);
    free(all);
    free(displs);
    free(loc);
    free(in);
    free(own);
    if (rx.fl) {
        for (int f = 0; f < nf; f++) free(rx.downer[f]);
        free(rx.owner);
        free(rx.downer);
        free((void *)rx.leaders);
    }
    free(fl);
    free(plan);
    free(unit);
    free(coff);
    return rc;
}
