/* Runs a WAN plan (wan.h) among the metahost leaders: each piece travels its path hop by
 * hop, relays forward it once it is complete (store and forward).
 *
 * Matching: every leader handles the hops of all pieces in one global order, hop position
 * first, then piece, posting its receives and issuing its sends in that order; so the
 * messages from one leader to another are sent and received in the same order and FIFO
 * matching on one tag pairs them correctly. A relay's send of hop h waits only for hop
 * h - 1, which every leader issues before any hop h: no cycle. */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

int gsc_wan_route(const gsc_topo_t *t, const gsc_wan_flow_t *flows, int nflows,
                  size_t unit_bytes, gsc_wan_piece_t **pieces)
{
    return gsc_wan_route_ex(t, flows, nflows, unit_bytes, 0, pieces);
}

int gsc_wan_route_ex(const gsc_topo_t *t, const gsc_wan_flow_t *flows, int nflows,
                     size_t unit_bytes, int pipelined, gsc_wan_piece_t **pieces)
{
    *pieces = NULL;
    if (!t->wan) return 0;
    int max = gsc_wan_max_pieces(t->wan->k, nflows);
    gsc_wan_piece_t *pc = malloc(sizeof(gsc_wan_piece_t) * (size_t)(max + 1));
    if (!pc) return 0;
    int n = gsc_wan_plan_ex(t->wan, flows, nflows, unit_bytes, pipelined, pc, max, NULL);
    if (n <= 0 || gsc_wan_plan_is_direct(pc, n, flows)) {
        free(pc);
        return 0;
    }
    *pieces = pc;
    return n;
}


static int hop_cmp(const void *a, const void *b)
{
    const gsc_wan_hop_t *x = a, *y = b;
    return x->h != y->h ? x->h - y->h : x->p - y->p;
}

int gsc_wan_start(gsc_wan_xchg_t *x, MPI_Comm comm, int me_site, const int *leaders,
                  const gsc_wan_piece_t *pc, int npc, MPI_Datatype dt, int unit_elems,
                  char *const *send, char *const *recv, int tag)
{
    return gsc_wan_start_owned(x, comm, leaders[me_site], leaders, pc, npc, dt, unit_elems, NULL,
                               NULL, send, recv, tag);
}

/* rank sending hop h of piece q (the owner of its unit at hop 0 when owners are given),
 * rank receiving it */
static int hop_from(const gsc_wan_xchg_t *x, const gsc_wan_piece_t *q, int h)
{
    return h == 0 && x->owner ? x->owner[q->flow][q->off] : x->leaders[q->path[h]];
}

/* rank receiving hop h of piece q (the unit's destination rank at the last hop when given) */
static int hop_to(const gsc_wan_xchg_t *x, const gsc_wan_piece_t *q, int h)
{
    return h + 2 == q->n && x->downer ? x->downer[q->flow][q->off] : x->leaders[q->path[h + 1]];
}

int gsc_wan_start_owned(gsc_wan_xchg_t *x, MPI_Comm comm, int me_rank, const int *leaders,
                        const gsc_wan_piece_t *pc, int npc, MPI_Datatype dt, int unit_elems,
                        const int *const *owner, const char *own, char *const *send,
                        char *const *recv, int tag)
{
    return gsc_wan_start_units(x, comm, me_rank, leaders, pc, npc, dt, unit_elems, owner, NULL,
                               NULL, NULL, own, send, recv, tag);
}

int gsc_wan_start_units(gsc_wan_xchg_t *x, MPI_Comm comm, int me_rank, const int *leaders,
                        const gsc_wan_piece_t *pc, int npc, MPI_Datatype dt, int unit_elems,
                        const int *const *owner, const int *const *downer,
                        gsc_wan_unit_buf_fn unit_buf, void *ctx, const char *own,
                        char *const *send, char *const *recv, int tag)
{
    memset(x, 0, sizeof *x);
    x->comm = comm;
    x->me = me_rank;
    x->owner = owner;
    x->downer = downer;
    x->leaders = leaders;
    x->pc = pc;
    x->npc = npc;
    x->dt = dt;
    x->unit_elems = unit_elems;
    x->send = send;
    x->tag = tag;
    MPI_Aint lb;
    PMPI_Type_get_extent(dt, &lb, &x->ext);
    int nh = 0;
    for (int p = 0; p < npc; p++) nh += pc[p].n - 1;
    x->hops = malloc(sizeof(gsc_wan_hop_t) * (size_t)(nh + 1));
    x->rreq = malloc(sizeof(MPI_Request) * (size_t)(nh + 1));
    x->sreq = malloc(sizeof(MPI_Request) * (size_t)(nh + 1));
    x->origin = calloc((size_t)npc + 1, sizeof(void *));
    x->relay = calloc((size_t)npc + 1, sizeof(char *));
    x->rindex = malloc(sizeof(int) * (size_t)(npc + 1) * GSC_WAN_MAX_PATH);
    if (!x->hops || !x->rreq || !x->sreq || !x->origin || !x->relay || !x->rindex)
        return MPI_ERR_NO_MEM;
    gsc_wan_hop_t *hops = x->hops;
    for (int p = 0; p < npc; p++)
        for (int h = 0; h + 1 < pc[p].n; h++) hops[x->nh++] = (gsc_wan_hop_t){h, p};
    nh = x->nh;
    qsort(hops, (size_t)nh, sizeof(gsc_wan_hop_t), hop_cmp);
    for (int i = 0; i < nh; i++) x->rreq[i] = x->sreq[i] = MPI_REQUEST_NULL;
    /* receives, in the global order */
    for (int i = 0; i < nh; i++) {
        const gsc_wan_piece_t *q = &pc[hops[i].p];
        int h = hops[i].h;
        x->rindex[hops[i].p * GSC_WAN_MAX_PATH + h] = i;
        if (hop_to(x, q, h) != me_rank) continue;
        int cnt = (int)q->len * unit_elems;
        char *buf;
        if (h + 2 == q->n) {
            buf = unit_buf ? unit_buf(ctx, q->flow, q->off, 1)
                           : recv[q->flow] + (MPI_Aint)q->off * unit_elems * x->ext;
        } else {
            x->relay[hops[i].p] = gsc_typed_alloc(cnt, dt, &x->origin[hops[i].p]);
            if (!x->origin[hops[i].p]) return MPI_ERR_NO_MEM;
            buf = x->relay[hops[i].p];
        }
        PMPI_Irecv(buf, cnt, dt, hop_from(x, q, h), tag, comm, &x->rreq[i]);
    }
    /* the first hops of my own pieces; a relay's sends must keep the global order after
     * them, so they wait for gsc_wan_finish */
    for (int i = 0; i < nh && hops[i].h == 0; i++) {
        const gsc_wan_piece_t *q = &pc[hops[i].p];
        if (hop_from(x, q, 0) != me_rank) continue;
        const char *buf = unit_buf ? unit_buf(ctx, q->flow, q->off, 0)
                          : owner  ? own
                                   : send[q->flow] + (MPI_Aint)q->off * unit_elems * x->ext;
        PMPI_Isend(buf, (int)q->len * unit_elems, dt, hop_to(x, q, 0), tag, comm, &x->sreq[i]);
    }
    return MPI_SUCCESS;
}

int gsc_wan_finish(gsc_wan_xchg_t *x)
{
    int rc = MPI_SUCCESS;
    if (x->hops && x->rreq && x->sreq && x->origin && x->relay && x->rindex) {
        for (int i = 0; i < x->nh; i++) {
            const gsc_wan_piece_t *q = &x->pc[x->hops[i].p];
            int h = x->hops[i].h;
            if (h == 0 || x->leaders[q->path[h]] != x->me) continue;
            PMPI_Wait(&x->rreq[x->rindex[x->hops[i].p * GSC_WAN_MAX_PATH + h - 1]],
                      MPI_STATUS_IGNORE);
            PMPI_Isend(x->relay[x->hops[i].p], (int)q->len * x->unit_elems, x->dt,
                       hop_to(x, q, h), x->tag, x->comm, &x->sreq[i]);
        }
        PMPI_Waitall(x->nh, x->rreq, MPI_STATUSES_IGNORE);
        rc = PMPI_Waitall(x->nh, x->sreq, MPI_STATUSES_IGNORE);
    } else
        rc = MPI_ERR_NO_MEM;
    for (int p = 0; x->origin && p < x->npc; p++) free(x->origin[p]);
    free(x->origin);
    free(x->relay);
    free(x->hops);
    free(x->rreq);
    free(x->sreq);
    free(x->rindex);
    memset(x, 0, sizeof *x);
    return rc;
}

int gsc_wan_run(MPI_Comm comm, int me_site, const int *leaders, const gsc_wan_piece_t *pc,
                int npc, MPI_Datatype dt, int unit_elems, char *const *send, char *const *recv,
                int tag)
{
    gsc_wan_xchg_t x;
    int rc = gsc_wan_start(&x, comm, me_site, leaders, pc, npc, dt, unit_elems, send, recv, tag);
    int rc2 = gsc_wan_finish(&x);
    return rc != MPI_SUCCESS ? rc : rc2;
}

gsc_wan_piece_t *gsc_wan_unit_pieces(const gsc_wan_piece_t *pc, int npc, int *nout)
{
    size_t total = 0;
    for (int p = 0; p < npc; p++) total += pc[p].len ? pc[p].len : 1;
    gsc_wan_piece_t *out = malloc(sizeof(gsc_wan_piece_t) * (total + 1));
    if (!out) return NULL;
    int k = 0;
    for (int p = 0; p < npc; p++)
        for (size_t u = 0; u < pc[p].len; u++) {
            out[k] = pc[p];
            out[k].off = pc[p].off + u;
            out[k++].len = 1;
        }
    *nout = k;
    return out;
}
