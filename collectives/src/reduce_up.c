/* Pipelined reduction towards the root of a tree (see reduce_up.h). */
#include <stdlib.h>

#include "reduce_up.h"

int gsc_copy(const void *src, void *dst, int count, MPI_Datatype dt)
{
    size_t bytes = 0;
    char *p = gsc_pack(src, count, dt, &bytes);
    if (!p) return MPI_ERR_NO_MEM;
    int rc = gsc_unpack(p, bytes, dst, count, dt);
    free(p);
    return rc;
}

int gsc_reduce_up(char *acc, int count, MPI_Datatype dt, MPI_Op op, const gsc_tree_t *tr, int me,
                 int seg_elems, int tag, MPI_Comm comm, gsc_seg_done_fn done, void *ctx,
                 const gsc_topo_t *t)
{
    int nseg = gsc_nsegs(count, seg_elems);
    int nch = gsc_tree_nchild(tr, me);
    const int *ch = gsc_tree_children(tr, me);
    int parent = tr->parent[me];
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    void **origin = calloc((size_t)nch + 1, sizeof(void *));
    char **tmp = calloc((size_t)nch + 1, sizeof(char *));
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)(nch * nseg + 1));
    gsc_sendq_t up;
    int size = 0, rc = MPI_SUCCESS;
    PMPI_Type_size(dt, &size);
    gsc_sendq_init(&up, nseg, parent >= 0 ? gsc_window(t, me, parent, (size_t)seg_elems * (size_t)size) : 1);
    if (!origin || !tmp || !rreq || !up.req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int c = 0; c < nch; c++) {
        tmp[c] = gsc_typed_alloc(count, dt, &origin[c]);
        if (!origin[c]) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        for (int s = 0; s < nseg; s++) {
            int off = s * seg_elems, cnt = count - off < seg_elems ? count - off : seg_elems;
            PMPI_Irecv(tmp[c] + (MPI_Aint)off * extent, cnt, dt, ch[c], tag, comm,
                      &rreq[c * nseg + s]);
        }
    }
    for (int s = 0; s < nseg; s++) {
        int off = s * seg_elems, cnt = count - off < seg_elems ? count - off : seg_elems;
        for (int c = 0; c < nch; c++) {
            PMPI_Wait(&rreq[c * nseg + s], MPI_STATUS_IGNORE);
            PMPI_Reduce_local(tmp[c] + (MPI_Aint)off * extent, acc + (MPI_Aint)off * extent, cnt,
                              dt, op);
        }
        if (parent >= 0)
            gsc_sendq_isend(&up, acc + (MPI_Aint)off * extent, cnt, dt, parent, tag, comm);
        if (done) done(s, off, cnt, ctx);
    }
out:
    if (up.req) {
        int r = gsc_sendq_drain(&up);
        if (rc == MPI_SUCCESS) rc = r;
    }
    if (origin)
        for (int c = 0; c < nch; c++) free(origin[c]);
    free(origin);
    free(tmp);
    free(rreq);
    return rc;
}
