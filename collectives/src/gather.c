/* Hierarchical gather (seed 000 sec. 3.3): every process sends its whole subtree's blocks to
 * its parent in one message, so each metahost crosses the WAN once with an aggregated
 * buffer. Blocks travel packed (MPI_Pack), in ascending rank order of the subtree. When the
 * WAN graph (wan.h) makes routing quicker than the direct links (relays, split paths), the
 * blocks of the other metahosts travel along the routed plan instead (gather_routed). */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

/* Gather over a routed WAN plan (wan.h): every block of another metahost travels on its own,
 * from the rank that owns it, along its piece's path (relays: the leaders of other metahosts);
 * so no metahost funnels its blocks through its leader's link first. The root's own
 * metahost sends straight to the root. */
static int gather_routed(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm, gsc_topo_t *t, size_t bsz, const gsc_wan_flow_t *fl,
                         int nf, const gsc_wan_piece_t *route, int nroute, const int *leaders)
{
    int me = t->rank, rc = MPI_SUCCESS, root_meta = t->group[0][root];
    int nu = 0;
    gsc_wan_piece_t *unit = gsc_wan_unit_pieces(route, nroute, &nu);
    const int **owner = calloc((size_t)nf + 1, sizeof(int *));
    char **rcv = calloc((size_t)nf + 1, sizeof(char *));
    char *own = NULL;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(t->size + 1));
    if (!unit || !owner || !rcv || !req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int f = 0; f < nf; f++) owner[f] = t->meta_ranks + t->meta_start[fl[f].src];
    int nreq = 0;
    if (me == root) {
        MPI_Aint lb, rext;
        PMPI_Type_get_extent(recvtype, &lb, &rext);
        for (int i = t->meta_start[root_meta]; i < t->meta_start[root_meta + 1]; i++) {
            int r = t->meta_ranks[i];
            char *slot = (char *)recvbuf + (MPI_Aint)r * recvcount * rext;
            if (r != root)
                PMPI_Irecv(slot, recvcount, recvtype, r, GS_TAG_GATHER, comm, &req[nreq++]);
            else if (sendbuf != MPI_IN_PLACE) {
                size_t nb = 0;
                char *pk = gsc_pack(sendbuf, sendcount, sendtype, &nb);
                if (pk) gsc_unpack(pk, nb, slot, recvcount, recvtype);
                free(pk);
            }
        }
        for (int f = 0; f < nf; f++) {
            rcv[f] = malloc(fl[f].units * bsz + 1);
            if (!rcv[f]) rc = MPI_ERR_NO_MEM;
        }
    } else if (t->group[0][me] == root_meta) {
        PMPI_Isend(sendbuf, sendcount, sendtype, root, GS_TAG_GATHER, comm, &req[nreq++]);
    } else {
        size_t b = 0;
        own = gsc_pack(sendbuf, sendcount, sendtype, &b);
    }
    if (rc == MPI_SUCCESS) {
        gsc_wan_xchg_t x;
        int r1 = gsc_wan_start_owned(&x, comm, me, leaders, unit, nu, MPI_BYTE, (int)bsz, owner, own,
                                     NULL, rcv, GS_TAG_WAN_ROUTE);
        int r2 = gsc_wan_finish(&x);
        rc = r1 != MPI_SUCCESS ? r1 : r2;
    }
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    if (me == root && rc == MPI_SUCCESS) {
        MPI_Aint lb, rext;
        PMPI_Type_get_extent(recvtype, &lb, &rext);
        for (int f = 0; f < nf; f++)
            for (size_t u = 0; u < fl[f].units; u++)
                gsc_unpack(rcv[f] + u * bsz, bsz,
                           (char *)recvbuf + (MPI_Aint)owner[f][u] * recvcount * rext, recvcount,
                           recvtype);
    }
out:
    for (int f = 0; rcv && f < nf; f++) free(rcv[f]);
    free(rcv);
    free(owner);
    free(unit);
    free(own);
    free(req);
    return rc;
}

int gsc_gather_hier(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, gsc_topo_t *t)
{
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_FLAT,
                                                        GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    int me = t->rank, n = t->size, rc = MPI_SUCCESS;
    int is_root = me == root;
    size_t bsz = is_root ? gsc_type_bytes(recvcount, recvtype) : gsc_type_bytes(sendcount, sendtype);
    if (bsz == 0) return MPI_SUCCESS;
    if (t->wan) { /* every rank computes the same plan */
        int nm = t->nmeta, root_meta = t->group[0][root], nf = 0;
        int *ld = malloc(sizeof(int) * (size_t)nm);
        gsc_wan_flow_t *f = malloc(sizeof(gsc_wan_flow_t) * (size_t)nm);
        gsc_wan_piece_t *plan = NULL;
        int np = 0;
        if (ld && f) {
            for (int m = 0; m < nm; m++) {
                ld[m] = gsc_meta_leader(t, m, root);
                if (m != root_meta)
                    f[nf++] = (gsc_wan_flow_t){m, root_meta,
                                               (size_t)gsc_meta_size(t, m)};
            }
            np = gsc_wan_route_ex(t, f, nf, bsz, 1, &plan); /* sent unit by unit */
        }
        if (np > 0)
            rc = gather_routed(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, t, bsz, f, nf, plan, np, ld);
        free(ld);
        free(f);
        free(plan);
        if (np > 0) return rc;
    }
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
