/* The allgather's WAN sender (allgather_wan_tx.c), shared by allgather_lg.c, which sets it
 * up, and the local rounds (allgather_local.c), which keep it moving while they wait. */
#ifndef GS_ALLGATHER_WAN_TX_H
#define GS_ALLGATHER_WAN_TX_H

#include "gsc_internal.h"

/* My block's WAN sends, cut into nck chunks, two chunks in flight per destination: the
 * receivers then get the blocks chunk round by chunk round instead of all at the end of the
 * WAN transfer (flows sharing a link finish together), so the local exchange of the remote
 * blocks runs during the WAN transfer, except for the last round. */
/* As a relay, a rank forwards chunks of the remote blocks it receives for itself to other
 * metahosts (relayed_blocks): duty i sends len bytes at buf to rank `to` once the receive
 * *src has completed. */
typedef struct {
    MPI_Request *src;
    const char *buf;
    int len, to, tag, posted;
    double due; /* not before this time (paced) */
} gsc_fwd_duty_t;

struct gsc_wan_tx {
    int nd, nck, sync;
    const int *dst;
    MPI_Request *rq; /* rq[d * nck + c] */
    int *next;       /* next chunk to post per destination */
    const char *buf;
    const size_t *coff; /* chunk c is bytes [coff[c], coff[c+1]) of the block */
    MPI_Comm comm;
    gsc_fwd_duty_t *fw; /* duties with the same src are adjacent */
    MPI_Request *fq; /* fq[i]: duty i's send */
    int nfw;
    double t0, *step; /* paced: the time of destination d's link for all its blocks */
};

/* paced: when chunk c may leave over a link that needs link_s for the whole block, once the
 * link has had time for the bytes before it (a sender's chunks and a relay's forwards alike) */
static inline double gsc_wan_tx_due(const gsc_wan_tx_t *w, double link_s, int c)
{
    return w->t0 + link_s * (double)w->coff[c] / (double)w->coff[w->nck];
}

/* post the next chunk to destination d */
void gsc_wan_tx_post(gsc_wan_tx_t *w, int d);
/* post every chunk that is due (paced) or whose predecessor-but-one has completed */
void gsc_wan_tx_refill(gsc_wan_tx_t *w);
/* wait for reqs[0..n) while the WAN sends and forwards go on (w NULL: a plain Waitall) */
int gsc_wan_tx_wait(gsc_wan_tx_t *w, MPI_Request *reqs, int n);
/* once every chunk this rank receives is in: post the rest, complete every send */
void gsc_wan_tx_drain(gsc_wan_tx_t *w);

#endif
