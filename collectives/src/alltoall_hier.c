/* Leader-routed alltoall: every rank hands its whole send buffer to its metahost leader;
 * the leaders exchange, for every pair of metahosts S -> D, the nS x nD blocks between them
 * along the WAN plan (wan.h: relayed through another metahost when that is quicker, split
 * when a link is narrow; the direct links when no WAN graph is known); each leader then
 * hands every member its n received blocks. All data of a metahost passes through its
 * leader's link twice, so LG (alltoall.c) runs this only for short buffers, where the WAN
 * latency a relay saves outweighs that. */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

/* the flows between the metahosts' leaders: S -> D carries nS x nD blocks */
static int alltoall_flows(const gsc_topo_t *t, gsc_wan_flow_t *fl)
{
    int nm = t->nmeta, nf = 0;
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < nm; b++)
            if (a != b)
                fl[nf++] = (gsc_wan_flow_t){a, b,
                                            (size_t)gsc_meta_size(t, a) *
                                                (size_t)gsc_meta_size(t, b)};
    return nf;
}

int gsc_alltoall_route_ex(const gsc_topo_t *t, size_t bsz, int pipelined)
{
    gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(t->nmeta * t->nmeta));
    gsc_wan_piece_t *route = NULL;
    int n = fl ? gsc_wan_route_ex(t, fl, alltoall_flows(t, fl), bsz, pipelined, &route) : 0;
    free(fl);
    free(route);
    return n;
}

int gsc_alltoall_hier(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    int n = t->size, me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    MPI_Aint lb, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    int A = t->group[0][me], my = t->meta_index[me];
    int nA = gsc_meta_size(t, A);
    const int *MA = t->meta_ranks + t->meta_start[A];
    int leader = my == 0;
    /* my blocks packed in destination rank order */
    char *P = malloc((size_t)n * bsz), *R = malloc((size_t)n * bsz);
    if (!P || !R) {
        free(P);
        free(R);
        return MPI_ERR_NO_MEM;
    }
    gsc_alltoall_pack_mine(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, bsz, P);
    if (!leader) {
        PMPI_Send(P, (int)((size_t)n * bsz), MPI_BYTE, MA[0], GS_TAG_ALLTOALL_LOCAL, comm);
        rc = PMPI_Recv(R, (int)((size_t)n * bsz), MPI_BYTE, MA[0], GS_TAG_ALLTOALL_LOCAL, comm,
                       MPI_STATUS_IGNORE);
    } else {
        /* S[i]: member i's whole buffer; out/in[m]: blocks between my metahost and m, ordered
         * (source member, destination member) */
        char *S = malloc((size_t)nA * (size_t)n * bsz);
        char **out = calloc((size_t)nm, sizeof(char *)), **in = calloc((size_t)nm, sizeof(char *));
        int *leaders = malloc(sizeof(int) * (size_t)nm);
        gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
        char **snd = calloc((size_t)(nm * nm), sizeof(char *)), **rcv = calloc((size_t)(nm * nm), sizeof(char *));
        MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)nA);
        gsc_wan_piece_t *pc = NULL;
        int nf = 0, npc = 0;
        if (!S || !out || !in || !leaders || !fl || !snd || !rcv || !req) rc = MPI_ERR_NO_MEM;
        for (int m = 0; m < nm && rc == MPI_SUCCESS; m++) {
            leaders[m] = t->meta_ranks[t->meta_start[m]];
            if (m == A) continue;
            size_t nM = (size_t)gsc_meta_size(t, m);
            out[m] = malloc((size_t)nA * nM * bsz);
            in[m] = malloc((size_t)nA * nM * bsz);
            if (!out[m] || !in[m]) rc = MPI_ERR_NO_MEM;
        }
        if (rc == MPI_SUCCESS) {
            nf = alltoall_flows(t, fl);
            int max = gsc_wan_max_pieces(nm, nf);
            pc = malloc(sizeof(gsc_wan_piece_t) * (size_t)(max + 1));
            npc = !pc ? -1
                  : t->wan ? gsc_wan_plan(t->wan, fl, nf, bsz, pc, max, NULL)
                           : gsc_wan_plan_direct(NULL, fl, nf, bsz, pc, max, NULL);
            if (npc < 0) rc = MPI_ERR_NO_MEM;
        }
        if (rc == MPI_SUCCESS) {
            memcpy(S, P, (size_t)n * bsz);
            for (int i = 1; i < nA; i++)
                PMPI_Irecv(S + (size_t)i * n * bsz, (int)((size_t)n * bsz), MPI_BYTE, MA[i],
                           GS_TAG_ALLTOALL_LOCAL, comm, &req[i]);
            if (nA > 1) PMPI_Waitall(nA - 1, req + 1, MPI_STATUSES_IGNORE);
            for (int m = 0; m < nm; m++) {
                if (m == A) continue;
                const int *MM = t->meta_ranks + t->meta_start[m];
                int nM = gsc_meta_size(t, m);
                for (int i = 0; i < nA; i++)
                    for (int j = 0; j < nM; j++)
                        memcpy(out[m] + ((size_t)i * nM + j) * bsz,
                               S + ((size_t)i * n + MM[j]) * bsz, bsz);
            }
            for (int f = 0; f < nf; f++) {
                if (fl[f].src == A) snd[f] = out[fl[f].dst];
                if (fl[f].dst == A) rcv[f] = in[fl[f].src];
            }
            rc = gsc_wan_run(comm, A, leaders, pc, npc, MPI_BYTE, (int)bsz, snd, rcv,
                             GS_TAG_WAN_ROUTE);
        }
        /* member j's blocks, in source rank order; mine into R */
        char *T = malloc((size_t)n * bsz);
        for (int j = 0; j < nA && rc == MPI_SUCCESS && T; j++) {
            for (int s = 0; s < n; s++) {
                int m = t->group[0][s], i = t->meta_index[s];
                int nM = gsc_meta_size(t, m);
                const char *blk = m == A ? S + ((size_t)i * n + MA[j]) * bsz
                                         : in[m] + ((size_t)i * nA + j) * bsz;
                memcpy((j ? T : R) + (size_t)s * bsz, blk, bsz);
                (void)nM;
            }
            if (j) rc = PMPI_Send(T, (int)((size_t)n * bsz), MPI_BYTE, MA[j], GS_TAG_ALLTOALL_LOCAL,
                                  comm);
        }
        free(T);
        for (int m = 0; m < nm && out && in; m++) {
            free(out[m]);
            free(in[m]);
        }
        free(S);
        free(out);
        free(in);
        free(leaders);
        free(fl);
        free(snd);
        free(rcv);
        free(req);
        free(pc);
    }
    for (int s = 0; s < n && rc == MPI_SUCCESS; s++)
        gsc_unpack(R + (size_t)s * bsz, bsz, (char *)recvbuf + (MPI_Aint)s * recvcount * rext,
                   recvcount, recvtype);
    free(P);
    free(R);
    return rc;
}

/* ---------------------------------------------------------------- block by block */

typedef struct {
    char *P, *R;
    size_t bsz;
    const int *const *owner, *const *downer;
} units_ctx_t;

static char *unit_buf(void *ctx, int f, size_t u, int at_dest)
{
    units_ctx_t *c = ctx;
    return at_dest ? c->R + (size_t)c->owner[f][u] * c->bsz : c->P + (size_t)c->downer[f][u] * c->bsz;
}

/* Routed alltoall for long buffers: every block to another metahost travels on its own from
 * its source rank to its destination rank, along its piece's path of the WAN plan (relayed
 * by the leaders of other metahosts where the plan says so); blocks inside a metahost go
 * straight. No rank funnels a metahost's data, unlike gsc_alltoall_hier. */
int gsc_alltoall_units(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, gsc_topo_t *t)
{
    int n = t->size, me = t->rank, nm = t->nmeta, rc = MPI_SUCCESS;
    size_t bsz = gsc_type_bytes(recvcount, recvtype);
    if (bsz == 0) return MPI_SUCCESS;
    MPI_Aint lb, rext;
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    int A = t->group[0][me], nA = gsc_meta_size(t, A);
    const int *MA = t->meta_ranks + t->meta_start[A];
    char *P = malloc((size_t)n * bsz), *R = malloc((size_t)n * bsz);
    gsc_wan_flow_t *fl = malloc(sizeof(gsc_wan_flow_t) * (size_t)(nm * nm));
    int **owner = calloc((size_t)(nm * nm), sizeof(int *)), **downer = calloc((size_t)(nm * nm), sizeof(int *));
    int *leaders = malloc(sizeof(int) * (size_t)nm);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * nA + 1));
    gsc_wan_piece_t *plan = NULL, *unit = NULL;
    int nf = 0, np = 0, nu = 0, nreq = 0;
    if (!P || !R || !fl || !owner || !downer || !leaders || !req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    gsc_alltoall_pack_mine(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, n, bsz, P);
    /* inside my metahost: straight */
    for (int i = 0; i < nA; i++) {
        int q = MA[i];
        if (q == me) {
            memcpy(R + (size_t)me * bsz, P + (size_t)me * bsz, bsz);
            continue;
        }
        PMPI_Irecv(R + (size_t)q * bsz, (int)bsz, MPI_BYTE, q, GS_TAG_ALLTOALL_LOCAL, comm, &req[nreq++]);
        PMPI_Isend(P + (size_t)q * bsz, (int)bsz, MPI_BYTE, q, GS_TAG_ALLTOALL_LOCAL, comm, &req[nreq++]);
    }
    /* between metahosts: unit u of S -> D is block (MS[u / nD] -> MD[u % nD]) */
    nf = alltoall_flows(t, fl);
    for (int f = 0; f < nf && rc == MPI_SUCCESS; f++) {
        int S = fl[f].src, D = fl[f].dst, nD = gsc_meta_size(t, D);
        owner[f] = malloc(sizeof(int) * (fl[f].units + 1));
        downer[f] = malloc(sizeof(int) * (fl[f].units + 1));
        if (!owner[f] || !downer[f]) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        for (size_t u = 0; u < fl[f].units; u++) {
            owner[f][u] = t->meta_ranks[t->meta_start[S] + (int)(u / (size_t)nD)];
            downer[f][u] = t->meta_ranks[t->meta_start[D] + (int)(u % (size_t)nD)];
        }
    }
    for (int m = 0; m < nm; m++) leaders[m] = t->meta_ranks[t->meta_start[m]];
    if (rc == MPI_SUCCESS) {
        int max = gsc_wan_max_pieces(nm, nf);
        plan = malloc(sizeof(gsc_wan_piece_t) * (size_t)(max + 1));
        np = !plan ? -1
             : t->wan ? gsc_wan_plan_ex(t->wan, fl, nf, bsz, 1, plan, max, NULL)
                      : gsc_wan_plan_direct(NULL, fl, nf, bsz, plan, max, NULL);
        unit = np >= 0 ? gsc_wan_unit_pieces(plan, np, &nu) : NULL;
        if (!unit) rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) {
        units_ctx_t c = {P, R, bsz, (const int *const *)owner, (const int *const *)downer};
        gsc_wan_xchg_t x;
        int r1 = gsc_wan_start_units(&x, comm, me, leaders, unit, nu, MPI_BYTE, (int)bsz,
                                     (const int *const *)owner, (const int *const *)downer,
                                     unit_buf, &c, NULL, NULL, NULL, GS_TAG_WAN_ROUTE);
        int r2 = gsc_wan_finish(&x);
        rc = r1 != MPI_SUCCESS ? r1 : r2;
    }
    if (nreq) PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int s = 0; s < n && rc == MPI_SUCCESS; s++)
        gsc_unpack(R + (size_t)s * bsz, bsz, (char *)recvbuf + (MPI_Aint)s * recvcount * rext,
                   recvcount, recvtype);
out:
    for (int f = 0; f < nf && owner && downer; f++) {
        free(owner[f]);
        free(downer[f]);
    }
    free(owner);
    free(downer);
    free(P);
    free(R);
    free(fl);
    free(leaders);
    free(req);
    free(plan);
    free(unit);
    return rc;
}
