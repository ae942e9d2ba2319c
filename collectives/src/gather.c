/* Hierarchical gather (seed 000 sec. 3.3): every process sends its whole subtree's blocks to
 * its parent in one message, so each metahost crosses the WAN once with an aggregated
 * buffer. Blocks travel packed (MPI_Pack), in ascending rank order of the subtree. When the
 * WAN graph (wan.h) makes it quicker, the metahost leaders' aggregated buffers travel to
 * the root along the routed plan instead (split over several paths, relayed by the
 * leaders of other metahosts). */
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
    int *leaders = malloc(sizeof(int) * (size_t)t->nmeta);
    gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)t->nmeta);
    char **snd = calloc((size_t)t->nmeta, sizeof(char *)), **rcv = calloc((size_t)t->nmeta, sizeof(char *));
    gsc_wan_piece_t *route = NULL;
    int nroute = 0;
    if (!sub || !pos || !csub || !tmp || !req || !leaders || !fl || !snd || !rcv) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int ns = gsc_tree_subtree(&tr, me, sub);
    for (int i = 0; i < n; i++) pos[i] = -1;
    for (int i = 0; i < ns; i++) pos[sub[i]] = i;
    /* the metahost leaders' routed plan (every leader computes the same one) */
    int nm = t->nmeta, my_meta = t->group[0][me], root_meta = t->group[0][root], nf = 0;
    for (int m = 0; m < nm; m++) leaders[m] = gsc_meta_leader(t, m, root);
    if (leaders[my_meta] == me) {
        for (int m = 0; m < nm; m++)
            if (m != root_meta)
                fl[nf++] = (gsc_wan_flow_t){m, root_meta,
                                            (size_t)(t->meta_start[m + 1] - t->meta_start[m])};
        nroute = gsc_wan_route(t, fl, nf, bsz, &route);
    }
    for (int c = 0; c < nch; c++) {
        int k = gsc_tree_subtree(&tr, ch[c], csub);
        tmp[c] = malloc((size_t)k * bsz);
        req[c] = MPI_REQUEST_NULL;
        int from = t->group[0][ch[c]];
        if (nroute && from != my_meta) { /* a metahost leader's buffer, routed */
            for (int f = 0; f < nf; f++)
                if (fl[f].src == from) rcv[f] = tmp[c];
        } else
            PMPI_Irecv(tmp[c], (int)((size_t)k * bsz), MPI_BYTE, ch[c], GS_TAG_GATHER, comm,
                       &req[c]);
    }
    if (nroute && is_root)
        rc = gsc_wan_run(comm, my_meta, leaders, route, nroute, MPI_BYTE, (int)bsz, snd, rcv,
                         GS_TAG_WAN_ROUTE);
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
    if (!is_root && nroute) {
        for (int f = 0; f < nf; f++)
            if (fl[f].src == my_meta) snd[f] = agg;
        rc = gsc_wan_run(comm, my_meta, leaders, route, nroute, MPI_BYTE, (int)bsz, snd, rcv,
                         GS_TAG_WAN_ROUTE);
    } else if (!is_root)
        rc = PMPI_Send(agg, (int)((size_t)ns * bsz), MPI_BYTE, tr.parent[me], GS_TAG_GATHER, comm);
out:
    free(leaders);
    free(fl);
    free(snd);
    free(rcv);
    free(route);
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
