/* Runs a WAN plan (wan.h) among the metahost leaders: each piece travels its path hop by
 * hop, relays forward it once it is complete (store and forward).
 *
 * Matching: every leader handles the hops of all pieces in one global order, hop position
 * first, then piece, posting its receives and issuing its sends in that order; so the
 * messages from one leader to another are sent and received in the same order and FIFO
 * matching on one tag pairs them correctly. A relay's send of hop h waits only for hop
 * h - 1, which every leader issues before any hop h: no cycle. */
#include <stdlib.h>

#include "gsc_internal.h"

int gsc_wan_route(const gsc_topo_t *t, const gsc_wan_flow_t *flows, int nflows,
                  size_t unit_bytes, gsc_wan_piece_t **pieces)
{
    *pieces = NULL;
    if (!t->wan) return 0;
    int max = gsc_wan_max_pieces(t->wan->k, nflows);
    gsc_wan_piece_t *pc = malloc(sizeof(gsc_wan_piece_t) * (size_t)(max + 1));
    if (!pc) return 0;
    int n = gsc_wan_plan(t->wan, flows, nflows, unit_bytes, pc, max, NULL);
    if (n <= 0 || gsc_wan_plan_is_direct(pc, n, flows)) {
        free(pc);
        return 0;
    }
    *pieces = pc;
    return n;
}

typedef struct {
    int h, p;
} hop_t;

static int hop_cmp(const void *a, const void *b)
{
    const hop_t *x = a, *y = b;
    return x->h != y->h ? x->h - y->h : x->p - y->p;
}

int gsc_wan_run(MPI_Comm comm, int me_site, const int *leaders, const gsc_wan_piece_t *pc,
                int npc, MPI_Datatype dt, int unit_elems, char *const *send, char *const *recv,
                int tag)
{
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    int nh = 0;
    for (int p = 0; p < npc; p++) nh += pc[p].n - 1;
    hop_t *hops = malloc(sizeof(hop_t) * (size_t)(nh + 1));
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)(nh + 1));
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)(nh + 1));
    void **origin = calloc((size_t)npc + 1, sizeof(void *));
    char **relay = calloc((size_t)npc + 1, sizeof(char *));
    int *rindex = malloc(sizeof(int) * (size_t)(npc + 1) * GSC_WAN_MAX_PATH);
    int rc = MPI_SUCCESS;
    if (!hops || !rreq || !sreq || !origin || !relay || !rindex) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    nh = 0;
    for (int p = 0; p < npc; p++)
        for (int h = 0; h + 1 < pc[p].n; h++) hops[nh++] = (hop_t){h, p};
    qsort(hops, (size_t)nh, sizeof(hop_t), hop_cmp);
    for (int i = 0; i < nh; i++) rreq[i] = sreq[i] = MPI_REQUEST_NULL;
    /* receives, in the global order */
    for (int i = 0; i < nh; i++) {
        const gsc_wan_piece_t *q = &pc[hops[i].p];
        int h = hops[i].h;
        rindex[hops[i].p * GSC_WAN_MAX_PATH + h] = i;
        if (q->path[h + 1] != me_site) continue;
        int cnt = (int)q->len * unit_elems;
        char *buf;
        if (h + 2 == q->n) {
            buf = recv[q->flow] + (MPI_Aint)q->off * unit_elems * ext;
        } else {
            relay[hops[i].p] = gsc_typed_alloc(cnt, dt, &origin[hops[i].p]);
            if (!origin[hops[i].p] && cnt > 0) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
            buf = relay[hops[i].p];
        }
        PMPI_Irecv(buf, cnt, dt, leaders[q->path[h]], tag, comm, &rreq[i]);
    }
    /* sends, in the same order; a relayed piece once its previous hop is in */
    for (int i = 0; i < nh; i++) {
        const gsc_wan_piece_t *q = &pc[hops[i].p];
        int h = hops[i].h;
        if (q->path[h] != me_site) continue;
        int cnt = (int)q->len * unit_elems;
        const char *buf;
        if (h == 0) {
            buf = send[q->flow] + (MPI_Aint)q->off * unit_elems * ext;
        } else {
            PMPI_Wait(&rreq[rindex[hops[i].p * GSC_WAN_MAX_PATH + h - 1]], MPI_STATUS_IGNORE);
            buf = relay[hops[i].p];
        }
        PMPI_Isend(buf, cnt, dt, leaders[q->path[h + 1]], tag, comm, &sreq[i]);
    }
    PMPI_Waitall(nh, rreq, MPI_STATUSES_IGNORE);
    rc = PMPI_Waitall(nh, sreq, MPI_STATUSES_IGNORE);
out:
    for (int p = 0; origin && p < npc; p++) free(origin[p]);
    free(origin);
    free(relay);
    free(hops);
    free(rreq);
    free(sreq);
    free(rindex);
    return rc;
}
