/* Hierarchical reduce (seed 000 sec. 3.3): every level reduces towards its leader, the
 * metahost leaders towards the root, in segments so that the levels overlap. Needs a
 * commutative operation (the registry falls back to vanilla otherwise). */
#include <stdlib.h>

#include "reduce_up.h"

int gsc_reduce_hier(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm, gsc_topo_t *t)
{
    if (count <= 0) return MPI_SUCCESS;
    int size = 0, rc;
    PMPI_Type_size(dt, &size);
    size_t bytes = gsc_type_bytes(count, dt), seg = gsc_segsize(bytes);
    int seg_elems = size > 0 ? (int)(seg / (size_t)size) : count;
    if (seg_elems < 1) seg_elems = 1;
    /* between the nodes of a metahost: a pipelined chain moves a long message at the full
     * link rate (a binary tree would halve it); a short one goes up a binomial tree */
    gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_CHAIN, GS_SHAPE_FLAT,
                                            GS_SHAPE_FLAT};
    shape[1] = gsc_local_shape(t, bytes, gsc_nsegs(count, seg_elems));
    /* each metahost's own, as for the broadcast (a reduction is one run backwards) */
    gsc_shape_t *per_meta = gsc_lan_shapes(t, bytes, seg, shape[1]);
    gsc_tree_t tr;
    rc = gsc_tree_build_meta(t, root, shape, per_meta, &tr);
    free(per_meta);
    if (rc != 0) return MPI_ERR_NO_MEM;
    void *origin = NULL;
    char *acc;
    if (t->rank == root) {
        acc = recvbuf;
        if (sendbuf != MPI_IN_PLACE) gsc_copy(sendbuf, acc, count, dt);
    } else {
        acc = gsc_typed_alloc(count, dt, &origin);
        if (!origin) {
            gsc_tree_free(&tr);
            return MPI_ERR_NO_MEM;
        }
        gsc_copy(sendbuf, acc, count, dt);
    }
    rc = gsc_reduce_up(acc, count, dt, op, &tr, t->rank, seg_elems, GS_TAG_REDUCE_UP, comm, NULL,
                      NULL, t);
    free(origin);
    gsc_tree_free(&tr);
    return rc;
}
