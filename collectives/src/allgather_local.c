/* The allgathers inside one metahost, for allgather_lg.c (and the allreduce by slices):
 * direct and node-aware for short parts, a ring or Bruck's steps over the nodes for long
 * ones; the long ones keep the WAN sender moving while they wait. */
#include <stdlib.h>
#include <string.h>

#include "allgather_wan_tx.h"
#include "settings.h"

int gsc_local_allgatherv(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                            char *all, const int *counts, const int *displs, int tag_a,
                            int tag_b, MPI_Comm comm)
{
    int *node = malloc(sizeof(int) * (size_t)nA), *lead = malloc(sizeof(int) * (size_t)nA);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)(4 * nA + 2));
    int nr = 0, rc = MPI_SUCCESS;
    for (int j = 0; j < nA; j++) {
        node[j] = t->nlevels > 1 ? t->group[1][MA[j]] : MA[j];
        lead[j] = j;
        for (int k = 0; k < j; k++)
            if (node[k] == node[j]) {
                lead[j] = k;
                break;
            }
    }
    int i_lead = lead[my] == my;
    if (counts[my]) memcpy(all + displs[my], mine, (size_t)counts[my]);
    /* receives: mates directly; other nodes directly (leader) or via my leader */
    int *fwd = malloc(sizeof(int) * (size_t)nA), nf = 0;
    MPI_Request *fq = malloc(sizeof(MPI_Request) * (size_t)(nA + 1));
    for (int j = 0; j < nA; j++) {
        if (j == my || !counts[j]) continue;
        if (node[j] == node[my])
            PMPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[j], tag_a, comm, &rq[nr++]);
        else if (i_lead) {
            PMPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[j], tag_a, comm, &fq[nf]);
            fwd[nf++] = j;
        } else
            PMPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[lead[my]], tag_b, comm, &rq[nr++]);
    }
    if (counts[my])
        for (int j = 0; j < nA; j++) {
            if (j == my) continue;
            if (node[j] == node[my] || lead[j] == j)
                PMPI_Isend(mine, counts[my], MPI_BYTE, MA[j], tag_a, comm, &rq[nr++]);
        }
    for (int f = 0; f < nf; f++) { /* leader: pass other nodes' parts to my mates */
        PMPI_Wait(&fq[f], MPI_STATUS_IGNORE);
        int j = fwd[f];
        for (int k = 0; k < nA; k++)
            if (k != my && node[k] == node[my])
                PMPI_Isend(all + displs[j], counts[j], MPI_BYTE, MA[k], tag_b, comm, &rq[nr++]);
    }
    if (nr) rc = PMPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    free(node);
    free(lead);
    free(rq);
    free(fwd);
    free(fq);
    return rc;
}

/* Part size (bytes per member) from which the local steps run as a ring: below it the
 * direct exchange's single step (one latency instead of nA-1) wins.
 * GRIDSCOPE_COLL_RING_MIN overrides. */
static size_t gsc_ring_min_part(void)
{
    return (size_t)gsc_setting_num(GSC_SET_RING_MIN); /* default 32768 (settings.toml) */
}

/* The same, as a ring over the members ordered by node (node mates adjacent): in each of
 * nA-1 steps every member passes one part on to its successor. Every node link then carries
 * one flow per direction at a time. Used for large parts: SimGrid (CM02) shares a link
 * between flows in inverse proportion to their latency, so the many short-latency flows of
 * the direct exchange starve the concurrent WAN flows on the node links, while a single one
 * leaves them their share of the WAN. */
static int ring_allgatherv(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                           char *all, const int *counts, const int *displs, int tag,
                           MPI_Comm comm, gsc_wan_tx_t *w)
{
    int *ring = malloc(sizeof(int) * (size_t)nA), pos = 0, n = 0, rc = MPI_SUCCESS;
    char *done = calloc((size_t)nA, 1);
    for (int j = 0; j < nA; j++) { /* by node of first appearance, then member order */
        if (done[j]) continue;
        int nj = t->nlevels > 1 ? t->group[1][MA[j]] : MA[j];
        for (int k = j; k < nA; k++)
            if (!done[k] && (t->nlevels > 1 ? t->group[1][MA[k]] : MA[k]) == nj) {
                done[k] = 1;
                ring[n++] = k;
            }
    }
    for (int j = 0; j < nA; j++)
        if (ring[j] == my) pos = j;
    if (counts[my]) memcpy(all + displs[my], mine, (size_t)counts[my]);
    int next = MA[ring[(pos + 1) % nA]], prev = MA[ring[(pos + nA - 1) % nA]];
    for (int s = 0; s < nA - 1 && rc == MPI_SUCCESS; s++) {
        int sp = ring[(pos + nA - s) % nA], rp = ring[(pos + nA - s - 1) % nA];
        MPI_Request rq[2];
        PMPI_Irecv(all + displs[rp], counts[rp], MPI_BYTE, prev, tag, comm, &rq[0]);
        PMPI_Isend(all + displs[sp], counts[sp], MPI_BYTE, next, tag, comm, &rq[1]);
        rc = gsc_wan_tx_wait(w, rq, 2);
    }
    free(ring);
    free(done);
    return rc;
}

/* The parts of a Bruck exchange: member j's (counts[j] bytes at all + displs[j]) is on node
 * of[j] of P. */
typedef struct {
    int nA, P;
    const int *of, *counts, *displs;
    char *all;
} node_parts_t;

/* Copies the parts of nodes q0 .. q0 + cnt - 1 (mod P), but member skip's, in node then
 * member order, into the packed buffer (pack) or out of it; returns the bytes. */
static size_t node_parts(const node_parts_t *np, char *packed, int pack, int q0, int cnt,
                         int skip)
{
    size_t o = 0;
    for (int c = 0; c < cnt; c++)
        for (int j = 0; j < np->nA; j++) {
            if (np->of[j] != (q0 + c) % np->P || j == skip) continue;
            char *part = np->all + np->displs[j];
            if (pack)
                memcpy(packed + o, part, (size_t)np->counts[j]);
            else
                memcpy(part, packed + o, (size_t)np->counts[j]);
            o += (size_t)np->counts[j];
        }
    return o;
}

/* The same in ceil(log2 P) steps over the P nodes (Bruck's concatenation): in step k each
 * node leader sends the parts it holds from its own node on (2^k nodes' worth, at most
 * what the receiver lacks) to the node 2^k before it, and receives as much from the node
 * 2^k after it; its node mates send it their parts first and get every step's new parts
 * from it (their loopback runs beside the next step's node link). Like the ring, every node
 * link carries one flow per direction at a time and every part once, but with log2 P
 * latencies instead of nA - 1 (asym-3, 64 ranks, 64 KiB: a round's ring over Sophia's 21
 * one-core nodes paid 20 LAN latencies, 16 rounds of them). */
static int bruck_allgatherv(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                            char *all, const int *counts, const int *displs, int tag,
                            MPI_Comm comm, gsc_wan_tx_t *w)
{
    int *node = malloc(sizeof(int) * (size_t)nA), *first = malloc(sizeof(int) * (size_t)(nA + 1));
    int *of = malloc(sizeof(int) * (size_t)nA), P = 0, rc = MPI_SUCCESS;
    size_t *nbytes = calloc((size_t)nA + 1, sizeof(size_t));
    /* nodes in order of first appearance; of[j]: member j's node index */
    for (int j = 0; j < nA; j++) {
        node[j] = t->nlevels > 1 ? t->group[1][MA[j]] : MA[j];
        of[j] = -1;
        for (int q = 0; q < P; q++)
            if (node[first[q]] == node[j]) of[j] = q;
        if (of[j] < 0) {
            of[j] = P;
            first[P++] = j;
        }
        nbytes[of[j]] += (size_t)counts[j];
    }
    if (counts[my]) memcpy(all + displs[my], mine, (size_t)counts[my]);
    int me_node = of[my], leader = first[me_node] == my, steps = 0;
    const node_parts_t parts = {nA, P, of, counts, displs, all};
    while ((1 << steps) < P) steps++;
    /* tx, rx: parts of several nodes, packed (node_parts) */
    size_t cap = 0;
    for (int q = 0; q < P; q++) cap += nbytes[q];
    char *tx = malloc(cap + 1), *rx = malloc(cap + 1);
    MPI_Request rq[3];
    if (!leader) {
        /* my part to my leader, then every step's new parts from it */
        int L = MA[first[me_node]];
        PMPI_Isend(mine, counts[my], MPI_BYTE, L, tag, comm, &rq[0]);
        rc = gsc_wan_tx_wait(w, rq, 1);
        for (int k = 0; k < steps && rc == MPI_SUCCESS; k++) {
            int d = 1 << k, cnt = d < P - d ? d : P - d;
            size_t got = 0;
            for (int c = 0; c < cnt; c++) got += nbytes[(me_node + d + c) % P];
            PMPI_Irecv(rx, (int)got, MPI_BYTE, L, tag, comm, &rq[0]);
            rc = gsc_wan_tx_wait(w, rq, 1);
            node_parts(&parts, rx, 0, me_node + d, cnt, -1);
        }
        /* and my own node's other parts */
        size_t own = nbytes[me_node] - (size_t)counts[my];
        PMPI_Irecv(rx, (int)own, MPI_BYTE, L, tag, comm, &rq[0]);
        rc = gsc_wan_tx_wait(w, rq, 1);
        node_parts(&parts, rx, 0, me_node, 1, my);
    } else {
        int nmate = 0;
        for (int j = 0; j < nA; j++)
            if (of[j] == me_node && j != my) nmate++;
        MPI_Request *mq = malloc(sizeof(MPI_Request) * (size_t)(nmate * (steps + 1) + 1));
        char **keep = calloc((size_t)steps + 2, sizeof(char *));
        int nq = 0;
        for (int j = 0; j < nA; j++)
            if (of[j] == me_node && j != my)
                PMPI_Irecv(all + displs[j], counts[j], MPI_BYTE, MA[j], tag, comm, &mq[nq++]);
        rc = gsc_wan_tx_wait(w, mq, nq);
        nq = 0;
        for (int k = 0; k < steps && rc == MPI_SUCCESS; k++) {
            int d = 1 << k, cnt = d < P - d ? d : P - d;
            int to = MA[first[(me_node - d + P) % P]], from = MA[first[(me_node + d) % P]];
            size_t o = node_parts(&parts, tx, 1, me_node, cnt, -1), got = 0;
            for (int c = 0; c < cnt; c++) got += nbytes[(me_node + d + c) % P];
            keep[k] = malloc(got + 1);
            PMPI_Irecv(keep[k], (int)got, MPI_BYTE, from, tag, comm, &rq[0]);
            PMPI_Isend(tx, (int)o, MPI_BYTE, to, tag, comm, &rq[1]);
            rc = gsc_wan_tx_wait(w, rq, 2);
            node_parts(&parts, keep[k], 0, me_node + d, cnt, -1);
            for (int j = 0; j < nA; j++) /* the step's new parts on to my mates */
                if (of[j] == me_node && j != my)
                    PMPI_Isend(keep[k], (int)got, MPI_BYTE, MA[j], tag, comm, &mq[nq++]);
        }
        /* my node's parts to each mate (all but its own) */
        char **per = calloc((size_t)nA + 1, sizeof(char *));
        for (int j = 0; j < nA && rc == MPI_SUCCESS; j++) {
            if (of[j] != me_node || j == my) continue;
            per[j] = malloc(nbytes[me_node] + 1);
            size_t o = node_parts(&parts, per[j], 1, me_node, 1, j);
            PMPI_Isend(per[j], (int)o, MPI_BYTE, MA[j], tag, comm, &mq[nq++]);
        }
        int r2 = gsc_wan_tx_wait(w, mq, nq);
        if (rc == MPI_SUCCESS) rc = r2;
        for (int k = 0; k < steps; k++) free(keep[k]);
        for (int j = 0; j < nA; j++) free(per[j]);
        free(per);
        free(keep);
        free(mq);
    }
    free(tx);
    free(rx);
    free(node);
    free(first);
    free(of);
    free(nbytes);
    return rc;
}

/* Bruck or ring for long parts: both move the same bytes over every node link, one flow per
 * direction at a time; Bruck pays ceil(log2 P) LAN latencies instead of nA - 1, but its node
 * leaders pass every step on to their node mates. So Bruck where the latencies it saves are
 * worth a tenth of the parts' time on a node link, as measured: asym-3, 64 ranks, 64 KiB,
 * rounds over Sophia's 21 one-core nodes (saves 1.5 ms a round against 2.8 ms of data):
 * ring 120.25 ms, Bruck 100.98; grid5000-3, 64 ranks, 64 KiB (0.6 against 1.5 ms): 107.39 and
 * 106.41; grid5000-2, 32 ranks, 1 MiB (0.4 against 9.4 ms): 1076.40 and 1093.23. Without the
 * WAN graph's LAN figures, the ring. */
int gsc_allgatherv_long(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                        char *all, const int *counts, const int *displs, int tag, MPI_Comm comm,
                        gsc_wan_tx_t *w)
{
    int A = t->group[0][MA[0]], P = t->meta_width ? t->meta_width[A] : nA, logp = 0;
    while ((1 << logp) < P) logp++;
    double total = 0;
    for (int j = 0; j < nA; j++) total += counts[j];
    const gsc_wan_t *g = t->wan;
    if (g && g->lan_lat && g->lan_bw && g->lan_bw[A] > 0 &&
        (nA - 1 - logp) * g->lan_lat[A] > 0.1 * total / g->lan_bw[A])
        return bruck_allgatherv(t, MA, nA, my, mine, all, counts, displs, tag, comm, w);
    return ring_allgatherv(t, MA, nA, my, mine, all, counts, displs, tag, comm, w);
}

/* direct exchange for short parts (one step: latency), ring or Bruck for long ones */
int gsc_allgatherv_meta(const gsc_topo_t *t, const int *MA, int nA, int my, const char *mine,
                        char *all, const int *counts, const int *displs, int tag_a, int tag_b,
                        MPI_Comm comm, gsc_wan_tx_t *w)
{
    size_t total = 0;
    for (int j = 0; j < nA; j++) total += (size_t)counts[j];
    if (nA > 2 && total / (size_t)nA >= gsc_ring_min_part())
        return gsc_allgatherv_long(t, MA, nA, my, mine, all, counts, displs, tag_a, comm, w);
    return gsc_local_allgatherv(t, MA, nA, my, mine, all, counts, displs, tag_a, tag_b, comm);
}
