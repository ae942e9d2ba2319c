/* Broadcast over a hierarchical tree (seed 000 sec. 3.3): the root sends to one process of
 * every other metahost (flat: one WAN latency), then each level forwards down. The message
 * is pre-cut into segments that flow through all levels at once (pipelining), so the WAN
 * transfer and the local trees overlap. Non-leader roots simply lead their own groups. */
#include <stdlib.h>

#include "gsc_internal.h"

static int bcast_tree(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                      gsc_topo_t *t, const gsc_shape_t *shape, const gsc_shape_t *meta_shape,
                      int pipelined, int wan_first)
{
    if (count <= 0) return MPI_SUCCESS;
    gsc_tree_t tr;
    /* one metahost (GRIDSCOPE_COLL_ONE_SITE): the metahost level is absent, level 0 is the
     * node level, which takes the shape meant for the nodes of a metahost */
    if (t->nmeta < 2) shape++;
    if (gsc_tree_build_meta(t, root, shape, meta_shape, &tr) != 0) return MPI_ERR_NO_MEM;
    int size = 0;
    PMPI_Type_size(dt, &size);
    size_t seg = gsc_segsize(gsc_type_bytes(count, dt));
    int seg_elems = count;
    if (pipelined && size > 0) {
        seg_elems = (int)(seg / (size_t)size);
        if (seg_elems < 1) seg_elems = 1;
    }
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    int nchild = gsc_tree_nchild(&tr, t->rank), nwan = 0, rc = MPI_SUCCESS;
    const int *child = gsc_tree_children(&tr, t->rank);
    if (wan_first && t->rank == root && t->nmeta >= 2) /* children are attached WAN first */
        while (nwan < nchild && t->group[0][child[nwan]] != t->group[0][root]) nwan++;
    if (nwan > 0) { /* the whole message to the other sites first, then the local tree */
        gsc_stream_t w = {(char *)buf, dt, extent, count, seg_elems, -1, NULL, nwan, child,
                         GS_TAG_BCAST, t};
        rc = gsc_stream_run(&w, 1, comm);
    }
    gsc_stream_t s = {(char *)buf, dt, extent, count, seg_elems, tr.parent[t->rank], NULL,
                     nchild - nwan, child + nwan, GS_TAG_BCAST, t};
    if (rc == MPI_SUCCESS) rc = gsc_stream_run(&s, 1, comm);
    gsc_tree_free(&tr);
    return rc;
}

#define GS_FLAT_WAN_MAX_BYTES 256

/* Nodes (ranks when the node level was dropped) outside the root's metahost. */
static int remote_nodes(const gsc_topo_t *t, int root)
{
    int k = 0;
    for (int r = 0; r < t->size; r++) {
        if (t->group[0][r] == t->group[0][root]) continue;
        int first = 1; /* r is the lowest rank of its node */
        if (t->nlevels > 1)
            for (int q = 0; q < r && first; q++) first = t->group[1][q] != t->group[1][r];
        k += first;
    }
    return k;
}

int gsc_bcast_hier(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, gsc_topo_t *t)
{
    /* between the nodes of a metahost: a pipelined chain moves a long message at the full
     * link rate (a binary tree would halve it); a short one goes down a binomial tree, a
     * tiny one to every node at once */
    gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_CHAIN, GS_SHAPE_FLAT,
                                            GS_SHAPE_FLAT};
    gsc_shape_t *per_meta = NULL;
    if (count > 0) {
        int size = 0;
        PMPI_Type_size(dt, &size);
        size_t bytes = gsc_type_bytes(count, dt), seg = gsc_segsize(bytes);
        int seg_elems = size > 0 ? (int)(seg / (size_t)size) : count;
        shape[1] = gsc_local_shape(t, bytes, gsc_nsegs(count, seg_elems < 1 ? 1 : seg_elems));
        /* with the WAN graph's node figures, each metahost's own shape (asym-3, 64 ranks,
         * 64 KiB: a chain down Sophia's 21 nodes adds 20 LAN hops, 23.02 ms against 20.57
         * with a binary tree) */
        per_meta = gsc_lan_shapes(t, bytes, seg, shape[1]);
        /* a tiny message goes from the root to every node of the other metahosts at once:
         * the WAN latency is paid in parallel and a late metahost has no local hop left
         * once it is there (its leader would forward only after arriving and receiving).
         * Only while the copies together are tiny: each crosses the WAN (256 B: 15 us at
         * 136 Mb/s, against the 0.1 ms LAN hop saved on the grid5000 presets; grid5000-2,
         * 32 ranks, 8 nodes a site, 8 B: 7.91 ms on time instead of 7.90, 7.91 instead of
         * 8.00 with the other site late; at 128 B the copies cost more on time, 7.96 against
         * 7.92, than they saved). */
        if (t->nmeta >= 2 && shape[1] == GS_SHAPE_FLAT &&
            (size_t)remote_nodes(t, root) * gsc_type_bytes(count, dt) <= GS_FLAT_WAN_MAX_BYTES)
            shape[0] = GS_SHAPE_FLAT_WAN;
    }
    int rc = bcast_tree(buf, count, dt, root, comm, t, shape, per_meta, 1, 0);
    free(per_meta);
    return rc;
}

/* The same tree without pre-cutting (one message per edge): seed 000 without pipelining. */
int gsc_bcast_hier_nopipe(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                         gsc_topo_t *t)
{
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_BINARY,
                                                        GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    return bcast_tree(buf, count, dt, root, comm, t, shape, NULL, 0, 0);
}

/* Seed 001 sec. 6 baselines on several sites: the root sends to a representative of each
 * other site, then every site runs a pipelined binary tree ("binary") or a binomial tree
 * without pipelining ("binomial"). As in the paper, the binary tree's root sends the whole
 * message to the other sites first and starts its own site's tree after ("after the root
 * node finishes the transmission to the second site, it starts the binary tree"). */
int gsc_bcast_binary(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                    gsc_topo_t *t)
{
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_BINARY,
                                                        GS_SHAPE_BINARY, GS_SHAPE_BINARY};
    return bcast_tree(buf, count, dt, root, comm, t, shape, NULL, 1, 1);
}

/* The binomial tree sends whole messages to one child after the other, the largest subtree
 * first (MPICH's order; seed 001 sec. 4.1: log p rounds of l + M/b). Sent all at once the
 * children would share the sender's link and all get the message only at the end. */
int gsc_bcast_binomial(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                      gsc_topo_t *t)
{
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_BINOMIAL,
                                                        GS_SHAPE_BINOMIAL, GS_SHAPE_BINOMIAL};
    if (count <= 0) return MPI_SUCCESS;
    const gsc_shape_t *sh = t->nmeta < 2 ? shape + 1 : shape;
    gsc_tree_t tr;
    if (gsc_tree_build(t, root, sh, &tr) != 0) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS, parent = tr.parent[t->rank];
    if (parent >= 0) rc = PMPI_Recv(buf, count, dt, parent, GS_TAG_BCAST, comm, MPI_STATUS_IGNORE);
    /* children are attached smallest subtree first (i & (i-1) numbering): send in reverse */
    const int *child = gsc_tree_children(&tr, t->rank);
    for (int c = gsc_tree_nchild(&tr, t->rank) - 1; c >= 0 && rc == MPI_SUCCESS; c--)
        rc = PMPI_Send(buf, count, dt, child[c], GS_TAG_BCAST, comm);
    gsc_tree_free(&tr);
    return rc;
}
