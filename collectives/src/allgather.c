/* Hierarchical allgather (seed 000 sec. 3.3: allgathers from the bottom up, then a
 * hierarchical broadcast). Each metahost gathers its members' blocks at its leader
 * (aggregated per subtree); the leaders exchange their metahost's blocks over the WAN, all
 * at once, in segments; each leader streams the full buffer down its metahost's tree while
 * remote segments are still arriving (its own metahost's region first). Blocks travel packed
 * in "metahost order" (own metahost, then the others) and are unpacked at the end. When the
 * WAN graph (wan.h) makes it quicker, the leaders exchange their regions along the routed
 * plan instead (relayed, split over several paths); the own region streams down meanwhile. */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

typedef struct {
    size_t off, len;
    int region; /* metahost whose blocks these bytes are */
} piece_t;

int gsc_allgather_route(const gsc_topo_t *t, size_t bsz, int pipelined, gsc_wan_flow_t *fl,
                        int *nf, gsc_wan_piece_t **route)
{
    int nm = t->nmeta;
    *nf = 0;
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < nm; b++)
            if (a != b)
                fl[(*nf)++] = (gsc_wan_flow_t){a, b, (size_t)gsc_meta_size(t, a)};
    return gsc_wan_route_ex(t, fl, *nf, bsz, pipelined, route);
}

int gsc_allgather_hier(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    /* between the nodes of a metahost (gsc_local_shape): a pipelined chain moves a long
     * message at the full link rate (a binary tree would halve it) */
    int me = t->rank, n = t->size, nm = t->nmeta, rc = MPI_SUCCESS;
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    /* a short buffer goes flat or by a binomial tree: a chain's depth (one LAN latency per
     * node, twice) would cost more than the WAN latency a routed exchange saves */
    size_t seg0 = gsc_segsize((size_t)n * bsz);
    gsc_shape_t local = gsc_local_shape(t, (size_t)n * bsz, (int)(((size_t)n * bsz + seg0 - 1) / seg0));
    const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, local, GS_SHAPE_FLAT,
                                                  GS_SHAPE_FLAT};
    MPI_Aint lb, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    gsc_tree_t tr;
    if (gsc_tree_build(t, -1, shape, &tr) != 0) return MPI_ERR_NO_MEM;
    int my_meta = t->group[0][me];
    int leader = tr.parent[me] < 0;

    /* F order: my metahost's ranks, then the other metahosts' ranks (ascending each) */
    int *order = malloc(sizeof(int) * (size_t)n), *mo = malloc(sizeof(int) * (size_t)nm);
    size_t *regoff = malloc(sizeof(size_t) * (size_t)(nm + 1));
    int k = 0;
    mo[0] = my_meta;
    for (int m = 0, j = 1; m < nm; m++)
        if (m != my_meta) mo[j++] = m;
    for (int j = 0; j < nm; j++) {
        int m = mo[j];
        regoff[m] = (size_t)k * bsz;
        for (int i = t->meta_start[m]; i < t->meta_start[m + 1]; i++) order[k++] = t->meta_ranks[i];
    }
    char *F = malloc((size_t)n * bsz);
    size_t seg = gsc_segsize((size_t)n * bsz);
    piece_t *pc = malloc(sizeof(piece_t) * (size_t)(n * bsz / seg + 2 * nm + 2));
    int npc = 0;
    for (int j = 0; j < nm; j++) {
        int m = mo[j];
        size_t len = (size_t)gsc_meta_size(t, m) * bsz;
        for (size_t o = 0; o < len; o += seg) {
            pc[npc].off = regoff[m] + o;
            pc[npc].len = len - o < seg ? len - o : seg;
            pc[npc].region = m;
            npc++;
        }
    }

    /* 1. up: aggregate each subtree's blocks (ascending rank) at the metahost leader */
    int nch = gsc_tree_nchild(&tr, me);
    const int *ch = gsc_tree_children(&tr, me);
    int *sub = malloc(sizeof(int) * (size_t)n), *csub = malloc(sizeof(int) * (size_t)n);
    int *pos = malloc(sizeof(int) * (size_t)n);
    int ns = gsc_tree_subtree(&tr, me, sub);
    for (int i = 0; i < n; i++) pos[i] = -1;
    for (int i = 0; i < ns; i++) pos[sub[i]] = i;
    char *agg = leader ? F + regoff[my_meta] : malloc((size_t)ns * bsz);
    char **tmp = calloc((size_t)nch + 1, sizeof(char *));
    MPI_Request *req = malloc(sizeof(MPI_Request) * ((size_t)(nch + 1) * (size_t)npc + (size_t)nm * (size_t)npc + (size_t)nch + 2));
    for (int c = 0; c < nch; c++) {
        int kc = gsc_tree_subtree(&tr, ch[c], csub);
        tmp[c] = malloc((size_t)kc * bsz);
        PMPI_Irecv(tmp[c], (int)((size_t)kc * bsz), MPI_BYTE, ch[c], GS_TAG_GATHER, comm, &req[c]);
    }
    {
        size_t b = 0;
        const void *src = sendbuf == MPI_IN_PLACE
                              ? (const char *)recvbuf + (MPI_Aint)me * recvcount * rext
                              : sendbuf;
        char *own = sendbuf == MPI_IN_PLACE ? gsc_pack(src, recvcount, recvtype, &b)
                                            : gsc_pack(src, sendcount, sendtype, &b);
        memcpy(agg + (size_t)pos[me] * bsz, own, bsz);
        free(own);
    }
    if (nch) PMPI_Waitall(nch, req, MPI_STATUSES_IGNORE);
    for (int c = 0; c < nch; c++) {
        int kc = gsc_tree_subtree(&tr, ch[c], csub);
        for (int j = 0; j < kc; j++) memcpy(agg + (size_t)pos[csub[j]] * bsz, tmp[c] + (size_t)j * bsz, bsz);
        free(tmp[c]);
    }
    if (!leader)
        PMPI_Send(agg, (int)((size_t)ns * bsz), MPI_BYTE, tr.parent[me], GS_TAG_GATHER, comm);

    /* 2. leaders: exchange regions in pieces; 3. stream F down the tree */
    MPI_Request *ready = malloc(sizeof(MPI_Request) * (size_t)(npc + 1));
    gsc_sendq_t *xq = calloc((size_t)nm, sizeof(gsc_sendq_t));
    gsc_sendq_t *dq = calloc((size_t)nch + 1, sizeof(gsc_sendq_t));
    for (int p = 0; p < npc; p++) ready[p] = MPI_REQUEST_NULL;
    for (int c = 0; c < nch; c++) gsc_sendq_init(&dq[c], npc, gsc_window(t, me, ch[c], seg));
    int *leaders = malloc(sizeof(int) * (size_t)nm);
    for (int m = 0; m < nm; m++) leaders[m] = gsc_meta_leader(t, m, -1);
    gsc_wan_piece_t *route = NULL;
    gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
    char **snd = calloc((size_t)(nm * nm), sizeof(char *)), **rcv = calloc((size_t)(nm * nm), sizeof(char *));
    int nroute = 0, nf = 0;
    gsc_wan_xchg_t wx;
    if (leader) nroute = gsc_allgather_route(t, bsz, 0, fl, &nf, &route);
    if (leader && nroute) {
        for (int f = 0; f < nf; f++) {
            if (fl[f].src == my_meta) snd[f] = F + regoff[my_meta];
            if (fl[f].dst == my_meta) rcv[f] = F + regoff[fl[f].src];
        }
        gsc_wan_start(&wx, comm, my_meta, leaders, route, nroute, MPI_BYTE, (int)bsz, snd, rcv,
                      GS_TAG_WAN_ROUTE);
    } else if (leader) {
        for (int p = 0; p < npc; p++) {
            if (pc[p].region != my_meta)
                PMPI_Irecv(F + pc[p].off, (int)pc[p].len, MPI_BYTE, leaders[pc[p].region],
                          GS_TAG_ALLGATHER_X, comm, &ready[p]);
        }
        /* own region to every other leader, round robin over the leaders piece by piece */
        for (int m = 0; m < nm; m++)
            if (m != my_meta) gsc_sendq_init(&xq[m], npc, gsc_window(t, me, leaders[m], seg));
        for (int p = 0; p < npc; p++)
            if (pc[p].region == my_meta)
                for (int m = 0; m < nm; m++)
                    if (m != my_meta)
                        gsc_sendq_isend(&xq[m], F + pc[p].off, (int)pc[p].len, MPI_BYTE,
                                       leaders[m], GS_TAG_ALLGATHER_X, comm);
    } else {
        for (int p = 0; p < npc; p++)
            PMPI_Irecv(F + pc[p].off, (int)pc[p].len, MPI_BYTE, tr.parent[me],
                      GS_TAG_ALLGATHER_DOWN, comm, &ready[p]);
    }
    for (int p = 0; p < npc; p++) {
        if (leader && nroute && pc[p].region != my_meta && wx.hops) {
            int r = gsc_wan_finish(&wx); /* own region on its way down: now the others */
            if (r != MPI_SUCCESS) rc = r;
        }
        if (ready[p] != MPI_REQUEST_NULL) PMPI_Wait(&ready[p], MPI_STATUS_IGNORE);
        for (int c = 0; c < nch; c++)
            gsc_sendq_isend(&dq[c], F + pc[p].off, (int)pc[p].len, MPI_BYTE, ch[c],
                           GS_TAG_ALLGATHER_DOWN, comm);
    }
    for (int m = 0; m < nm; m++)
        if (xq[m].req) gsc_sendq_drain(&xq[m]);
    for (int c = 0; c < nch; c++) {
        int r = gsc_sendq_drain(&dq[c]);
        if (r != MPI_SUCCESS) rc = r;
    }
    if (leader && nroute && wx.hops) { /* one metahost only had blocks: nothing left */
        int r = gsc_wan_finish(&wx);
        if (r != MPI_SUCCESS) rc = r;
    }
    free(xq);
    free(dq);
    free(leaders);
    free(fl);
    free(snd);
    free(rcv);
    free(route);

    /* 4. unpack into rank order */
    for (int i = 0; i < n; i++)
        gsc_unpack(F + (size_t)i * bsz, bsz, (char *)recvbuf + (MPI_Aint)order[i] * recvcount * rext,
                  recvcount, recvtype);

    if (!leader) free(agg);
    free(tmp);
    free(req);
    free(ready);
    free(sub);
    free(csub);
    free(pos);
    free(pc);
    free(F);
    free(order);
    free(mo);
    free(regoff);
    gsc_tree_free(&tr);
    return rc;
}
