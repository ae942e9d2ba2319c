/* Hierarchical allreduce: each metahost reduces to its leader (pipelined up-phase); the
 * leaders exchange their partial results segment by segment over the WAN, all at once (one
 * WAN latency, each direction carries one copy of the data); every leader combines the
 * partials in metahost order, so all get bit-identical results; then each metahost
 * broadcasts down its tree, segment by segment. When the WAN graph (wan.h) makes relaying
 * or splitting the partials quicker than the direct links (a relay through a third metahost
 * with a shorter latency, a narrow link bypassed), the leaders exchange whole partials along
 * the routed plan instead, after the up-phase. */
#include <stdlib.h>

#include "reduce_up.h"

typedef struct {
    const gsc_topo_t *t;
    int me_meta, nlead;
    const int *leaders;
    char *acc;
    char **remote; /* per metahost */
    MPI_Aint extent;
    MPI_Datatype dt;
    MPI_Comm comm;
    gsc_sendq_t *q; /* per metahost leader */
} xchg_t;

static void send_partial(int s, int off, int cnt, void *ctx)
{
    (void)s;
    xchg_t *x = ctx;
    for (int m = 0; m < x->nlead; m++)
        if (m != x->me_meta)
            gsc_sendq_isend(&x->q[m], x->acc + (MPI_Aint)off * x->extent, cnt, x->dt,
                           x->leaders[m], GS_TAG_REDUCE_X, x->comm);
}

int gsc_allreduce_hier(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                      MPI_Op op, MPI_Comm comm, gsc_topo_t *t)
{
    /* between the nodes of a metahost: a pipelined chain moves a long message at the full
     * link rate; below 256 KiB a binary tree's shorter depth wins (measured on grid5000-2:
     * 64 KiB 14.6 ms binary vs 15.2 chain; 1 MiB 98.9 vs 89.2) */
    static const gsc_shape_t chain[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_CHAIN,
                                                        GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    static const gsc_shape_t binary[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_BINARY,
                                                         GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    const gsc_shape_t *shape = gsc_type_bytes(count, dt) <= 262144 ? binary : chain;
    if (count <= 0) return MPI_SUCCESS;
    gsc_tree_t tr;
    if (gsc_tree_build(t, -1, shape, &tr) != 0) return MPI_ERR_NO_MEM;
    int me = t->rank, nm = t->nmeta, size = 0, rc = MPI_SUCCESS;
    PMPI_Type_size(dt, &size);
    int seg_elems = size > 0 ? (int)(gsc_segsize(gsc_type_bytes(count, dt)) / (size_t)size) : count;
    if (seg_elems < 1) seg_elems = 1;
    int nseg = gsc_nsegs(count, seg_elems);
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);

    gsc_wan_piece_t *route = NULL;
    gsc_wan_flow_t *fl = NULL;
    int nroute = 0, nf = 0;
    void *acc_origin = NULL;
    char *acc = gsc_typed_alloc(count, dt, &acc_origin);
    int *leaders = malloc(sizeof(int) * (size_t)nm);
    void **rorigin = calloc((size_t)nm, sizeof(void *));
    char **remote = calloc((size_t)nm, sizeof(char *));
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)(nm * nseg + 1));
    gsc_sendq_t *xq = calloc((size_t)nm, sizeof(gsc_sendq_t));
    if (!acc_origin || !leaders || !rorigin || !remote || !rreq || !xq) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    gsc_copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, acc, count, dt);
    for (int m = 0; m < nm; m++) leaders[m] = gsc_meta_leader(t, m, -1);
    int my_meta = t->group[0][me];
    int leader = leaders[my_meta] == me;
    xchg_t x = {t, my_meta, nm, leaders, acc, remote, extent, dt, comm, xq};
    /* routed exchange of the partials (every leader computes the same plan) */
    if (leader) fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
    if (fl) {
        for (int a = 0; a < nm; a++)
            for (int b = 0; b < nm; b++)
                if (a != b) fl[nf++] = (gsc_wan_flow_t){a, b, (size_t)count};
        nroute = gsc_wan_route(t, fl, nf, (size_t)size, &route);
    }
    if (leader && !nroute)
        for (int m = 0; m < nm; m++)
            if (m != my_meta)
                gsc_sendq_init(&xq[m], nseg,
                              gsc_window(t, me, leaders[m], (size_t)seg_elems * (size_t)size));

    if (leader) {
        for (int m = 0; m < nm; m++) {
            if (m == my_meta) continue;
            remote[m] = gsc_typed_alloc(count, dt, &rorigin[m]);
            if (!rorigin[m]) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
            for (int s = 0; s < nseg; s++) {
                int off = s * seg_elems, cnt = count - off < seg_elems ? count - off : seg_elems;
                rreq[m * nseg + s] = MPI_REQUEST_NULL;
                if (!nroute)
                    PMPI_Irecv(remote[m] + (MPI_Aint)off * extent, cnt, dt, leaders[m],
                              GS_TAG_REDUCE_X, comm, &rreq[m * nseg + s]);
            }
        }
    }
    rc = gsc_reduce_up(acc, count, dt, op, &tr, me, seg_elems, GS_TAG_REDUCE_UP, comm,
                      leader && !nroute ? send_partial : NULL, &x, t);
    if (rc != MPI_SUCCESS) goto out;
    if (nroute) {
        char **snd = calloc((size_t)nf, sizeof(char *)), **rcv = calloc((size_t)nf, sizeof(char *));
        if (!snd || !rcv) rc = MPI_ERR_NO_MEM;
        for (int f = 0; f < nf && snd && rcv; f++) {
            if (fl[f].src == my_meta) snd[f] = acc;
            if (fl[f].dst == my_meta) rcv[f] = remote[fl[f].src];
        }
        if (rc == MPI_SUCCESS)
            rc = gsc_wan_run(comm, my_meta, leaders, route, nroute, dt, 1, snd, rcv,
                             GS_TAG_WAN_ROUTE);
        free(snd);
        free(rcv);
        if (rc != MPI_SUCCESS) goto out;
    }

    if (leader) {
        /* result = P_0 op (P_1 op (... P_{nm-1})), the same on every leader */
        int nch = gsc_tree_nchild(&tr, me);
        const int *ch = gsc_tree_children(&tr, me);
        gsc_sendq_t *dq = calloc((size_t)nch + 1, sizeof(gsc_sendq_t));
        for (int c = 0; c < nch; c++)
            gsc_sendq_init(&dq[c], nseg, gsc_window(t, me, ch[c], (size_t)seg_elems * (size_t)size));
        char *res = recvbuf;
        for (int s = 0; s < nseg; s++) {
            int off = s * seg_elems, cnt = count - off < seg_elems ? count - off : seg_elems;
            MPI_Aint o = (MPI_Aint)off * extent;
            for (int m = 0; m < nm; m++)
                if (m != my_meta) PMPI_Wait(&rreq[m * nseg + s], MPI_STATUS_IGNORE);
            const char *last = nm - 1 == my_meta ? acc : remote[nm - 1];
            gsc_copy(last + o, res + o, cnt, dt);
            for (int m = nm - 2; m >= 0; m--)
                PMPI_Reduce_local((m == my_meta ? acc : remote[m]) + o, res + o, cnt, dt, op);
            for (int c = 0; c < nch; c++)
                gsc_sendq_isend(&dq[c], res + o, cnt, dt, ch[c], GS_TAG_REDUCE_DOWN, comm);
        }
        for (int m = 0; m < nm; m++)
            if (m != my_meta) gsc_sendq_drain(&xq[m]);
        for (int c = 0; c < nch; c++) {
            int r = gsc_sendq_drain(&dq[c]);
            if (r != MPI_SUCCESS) rc = r;
        }
        free(dq);
    } else {
        gsc_stream_t s = {(char *)recvbuf, dt, extent, count, seg_elems, tr.parent[me], NULL,
                         gsc_tree_nchild(&tr, me), gsc_tree_children(&tr, me), GS_TAG_REDUCE_DOWN, t};
        rc = gsc_stream_run(&s, 1, comm);
    }
out:
    free(route);
    free(fl);
    for (int m = 0; m < nm && rorigin; m++) free(rorigin[m]);
    free(rorigin);
    free(remote);
    free(acc_origin);
    free(leaders);
    free(rreq);
    free(xq);
    gsc_tree_free(&tr);
    return rc;
}
