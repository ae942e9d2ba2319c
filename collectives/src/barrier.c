/* Hierarchical barrier (seed 000: "similar to an allgather without data"): empty messages
 * fan in to every metahost leader, the leaders exchange one empty message with every other
 * leader (a single WAN latency), then fan out. */
#include <stdlib.h>

#include "gsc_internal.h"

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
    } else {
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
