/* Hierarchical barrier (seed 000: "similar to an allgather without data"): empty messages
 * fan in to every metahost leader, the leaders exchange one empty message with every other
 * leader (a single WAN latency; over the WAN graph's quickest paths when a relay through
 * another metahost is quicker than the direct link), then fan out. */
#include <stdlib.h>

#include "gsc_internal.h"

/* The leaders' empty messages routed over the WAN graph: 1 when done that way, 0 when the
 * direct links are as quick (or the graph is unknown). */
static int routed_exchange(MPI_Comm comm, const gsc_topo_t *t, int *rc)
{
    int nm = t->nmeta, nf = 0;
    gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
    int *leaders = malloc(sizeof(int) * (size_t)nm);
    char **none = calloc((size_t)(nm * nm), sizeof(char *));
    gsc_wan_piece_t *pc = NULL;
    int npc = 0;
    if (fl && leaders && none) {
        for (int a = 0; a < nm; a++) {
            leaders[a] = gsc_meta_leader(t, a, -1);
            for (int b = 0; b < nm; b++)
                if (a != b) fl[nf++] = (gsc_wan_flow_t){a, b, 0};
        }
        npc = gsc_wan_route(t, fl, nf, 1, &pc);
        if (npc > 0)
            *rc = gsc_wan_run(comm, t->group[0][t->rank], leaders, pc, npc, MPI_BYTE, 1, none,
                              none, GS_TAG_WAN_ROUTE);
    }
    free(fl);
    free(leaders);
    free(none);
    free(pc);
    return npc > 0;
}

int gsc_barrier_hier(MPI_Comm comm, gsc_topo_t *t)
{
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_FLAT,
                                                        GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    gsc_tree_t tr;
    if (gsc_tree_build(t, -1, shape, &tr) != 0) return MPI_ERR_NO_MEM;
    int me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    int nch = gsc_tree_nchild(&tr, me);
    const int *ch = gsc_tree_children(&tr, me);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(nch + 2 * nm + 1));
    char dummy = 0;
    for (int c = 0; c < nch; c++)
        PMPI_Irecv(NULL, 0, MPI_BYTE, ch[c], GS_TAG_BARRIER_UP, comm, &req[c]);
    if (nch) PMPI_Waitall(nch, req, MPI_STATUSES_IGNORE);
    if (tr.parent[me] >= 0) {
        PMPI_Send(NULL, 0, MPI_BYTE, tr.parent[me], GS_TAG_BARRIER_UP, comm);
        PMPI_Recv(&dummy, 0, MPI_BYTE, tr.parent[me], GS_TAG_BARRIER_DOWN, comm, MPI_STATUS_IGNORE);
    } else if (!routed_exchange(comm, t, &rc)) {
        int k = 0, my_meta = t->group[0][me];
        for (int m = 0; m < nm; m++) {
            if (m == my_meta) continue;
            int other = gsc_meta_leader(t, m, -1);
            PMPI_Irecv(NULL, 0, MPI_BYTE, other, GS_TAG_BARRIER_X, comm, &req[k++]);
            PMPI_Isend(NULL, 0, MPI_BYTE, other, GS_TAG_BARRIER_X, comm, &req[k++]);
        }
        if (k) PMPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    }
    for (int c = 0; c < nch; c++)
        PMPI_Isend(NULL, 0, MPI_BYTE, ch[c], GS_TAG_BARRIER_DOWN, comm, &req[c]);
    if (nch) rc = PMPI_Waitall(nch, req, MPI_STATUSES_IGNORE);
    free(req);
    gsc_tree_free(&tr);
    return rc;
}
