/* Hierarchical gather (seed 000 sec. 3.3): every process sends its whole subtree's blocks to
 * its parent in one message, so each metahost crosses the WAN once with an aggregated
 * buffer. Blocks travel packed (MPI_Pack), in ascending rank order of the subtree. */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

int gsc_gather_hier(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, gsc_topo_t *t)
{
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_FLAT,
                                                        GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    int me = t->rank, n = t->size, rc = MPI_SUCCESS;
    int is_root = me == root;
    size_t bsz = is_root ? gsc_type_bytes(recvcount, recvtype) : gsc_type_bytes(sendcount, sendtype);
    if (bsz == 0) return MPI_SUCCESS;
    gsc_tree_t tr;
    if (gsc_tree_build(t, root, shape, &tr) != 0) return MPI_ERR_NO_MEM;
    MPI_Aint lb, rext = 0;
    if (is_root) PMPI_Type_get_extent(recvtype, &lb, &rext);
    int nch = gsc_tree_nchild(&tr, me);
    const int *ch = gsc_tree_children(&tr, me);
    int *sub = malloc(sizeof(int) * (size_t)n), *pos = malloc(sizeof(int) * (size_t)n);
    int *csub = malloc(sizeof(int) * (size_t)n);
    char **tmp = calloc((size_t)nch + 1, sizeof(char *));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(nch + 1));
    char *agg = NULL, *own = NULL;
    if (!sub || !pos || !csub || !tmp || !req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int ns = gsc_tree_subtree(&tr, me, sub);
    for (int i = 0; i < n; i++) pos[i] = -1;
    for (int i = 0; i < ns; i++) pos[sub[i]] = i;
    for (int c = 0; c < nch; c++) {
        int k = gsc_tree_subtree(&tr, ch[c], csub);
        tmp[c] = malloc((size_t)k * bsz);
        PMPI_Irecv(tmp[c], (int)((size_t)k * bsz), MPI_BYTE, ch[c], GS_TAG_GATHER, comm, &req[c]);
    }
    if (!is_root) {
        agg = malloc((size_t)ns * bsz);
        size_t b = 0;
        own = gsc_pack(sendbuf, sendcount, sendtype, &b);
        memcpy(agg + (size_t)pos[me] * bsz, own, bsz);
    } else if (sendbuf != MPI_IN_PLACE) {
        size_t b = 0;
        own = gsc_pack(sendbuf, sendcount, sendtype, &b);
        gsc_unpack(own, bsz, (char *)recvbuf + (MPI_Aint)me * recvcount * rext, recvcount,
                  recvtype);
    }
    if (nch) PMPI_Waitall(nch, req, MPI_STATUSES_IGNORE);
    for (int c = 0; c < nch; c++) {
        int k = gsc_tree_subtree(&tr, ch[c], csub);
        for (int j = 0; j < k; j++) {
            int q = csub[j];
            if (is_root)
                gsc_unpack(tmp[c] + (size_t)j * bsz, bsz,
                          (char *)recvbuf + (MPI_Aint)q * recvcount * rext, recvcount, recvtype);
            else
                memcpy(agg + (size_t)pos[q] * bsz, tmp[c] + (size_t)j * bsz, bsz);
        }
    }
    if (!is_root)
        rc = PMPI_Send(agg, (int)((size_t)ns * bsz), MPI_BYTE, tr.parent[me], GS_TAG_GATHER, comm);
out:
    for (int c = 0; tmp && c < nch; c++) free(tmp[c]);
    free(tmp);
    free(req);
    free(sub);
    free(pos);
    free(csub);
    free(agg);
    free(own);
    gsc_tree_free(&tr);
    return rc;
}
