/* Multi-lane two-tree pipelined broadcast (seed 001: Chiba, Endo, Matsuoka). The message is
 * split into halves M_A and M_B. In every site the processes (root excluded) form two binary
 * trees, Tree_A and Tree_B; each half flows down its tree in segments, and the leaves of each
 * tree feed the nodes of the other tree with their half (the "swap", sec. 3.1 iii). Sites
 * are chained (sec. 3.2): a member of site c with an idle upward link (the last leaf of each
 * tree with 4n-1 nodes) sends M_A (M_B) to the root of Tree_A (Tree_B) of site c+1. Sites
 * are the metahosts, the root's first. */
#include <stdlib.h>

#include "gsc_internal.h"

typedef struct {
    int *src;   /* per rank */
    int *start; /* CSR destinations per rank */
    int *dst;
    int *tmp_from, *tmp_to;
    int nedge;
} edges_t;

static void add_edge(edges_t *e, int from, int to)
{
    e->tmp_from[e->nedge] = from;
    e->tmp_to[e->nedge] = to;
    e->nedge++;
    e->src[to] = from;
}

static void finish(edges_t *e, int n)
{
    for (int i = 0; i < e->nedge; i++) e->start[e->tmp_from[i] + 1]++;
    for (int r = 0; r < n; r++) e->start[r + 1] += e->start[r];
    int *fill = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < e->nedge; i++) {
        int f = e->tmp_from[i];
        e->dst[e->start[f] + fill[f]++] = e->tmp_to[i];
    }
    free(fill);
}

static int edges_init(edges_t *e, int n)
{
    e->src = malloc(sizeof(int) * (size_t)n);
    e->start = calloc((size_t)n + 1, sizeof(int));
    e->dst = malloc(sizeof(int) * (size_t)(2 * n + 1));
    e->tmp_from = malloc(sizeof(int) * (size_t)(2 * n + 1));
    e->tmp_to = malloc(sizeof(int) * (size_t)(2 * n + 1));
    e->nedge = 0;
    if (!e->src || !e->start || !e->dst || !e->tmp_from || !e->tmp_to) return -1;
    for (int r = 0; r < n; r++) e->src[r] = -1;
    return 0;
}

static void edges_free(edges_t *e)
{
    free(e->src);
    free(e->start);
    free(e->dst);
    free(e->tmp_from);
    free(e->tmp_to);
}

/* Tree edges of a heap-ordered list and the leaves (returned count). */
static int heap_edges(edges_t *e, const int *list, int k, int *leaves)
{
    int nleaf = 0;
    for (int i = 0; i < k; i++) {
        int c1 = 2 * i + 1, c2 = 2 * i + 2;
        if (c1 < k) add_edge(e, list[i], list[c1]);
        if (c2 < k) add_edge(e, list[i], list[c2]);
        if (c1 >= k) leaves[nleaf++] = list[i];
    }
    return nleaf;
}

static int sends_of(const edges_t *e, int r)
{
    int k = 0;
    for (int i = 0; i < e->nedge; i++) k += e->tmp_from[i] == r;
    return k;
}

/* The member with the fewest sends in both trees (the first such), other than `skip`. */
static int least_sending(const edges_t *ea, const edges_t *eb, const int *members, int k,
                         int skip)
{
    int best = -1, fewest = 0;
    for (int i = k - 1; i >= 0; i--) { /* from the last: the paper's last leaves on ties */
        if (members[i] == skip && k > 1) continue;
        int d = sends_of(ea, members[i]) + sends_of(eb, members[i]);
        if (best < 0 || d < fewest) {
            best = members[i];
            fewest = d;
        }
    }
    return best;
}

int gsc_bcast_multilane(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                       gsc_topo_t *t)
{
    if (count <= 0) return MPI_SUCCESS;
    int n = t->size, rc = MPI_ERR_NO_MEM;
    edges_t ea = {0}, eb = {0};
    int *members = malloc(sizeof(int) * (size_t)n), *leaf_a = malloc(sizeof(int) * (size_t)n),
        *leaf_b = malloc(sizeof(int) * (size_t)n);
    if (edges_init(&ea, n) || edges_init(&eb, n) || !members || !leaf_a || !leaf_b) goto out;

    int root_meta = t->nmeta < 2 ? 0 : t->group[0][root]; /* level 0: metahosts */
    int last_a = root, last_b = root;
    for (int c = 0; c < t->nmeta; c++) {
        int m = (root_meta + c) % t->nmeta;
        int k = 0;
        for (int i = t->meta_start[m]; i < t->meta_start[m + 1]; i++)
            if (t->meta_ranks[i] != root) members[k++] = t->meta_ranks[i];
        if (k == 0) continue;
        int ka = (k + 1) / 2, kb = k - ka;
        const int *ta = members, *tb = kb ? members + ka : members;
        if (!kb) kb = ka;
        add_edge(&ea, last_a, ta[0]);
        add_edge(&eb, last_b, tb[0]);
        int nla = heap_edges(&ea, ta, ka, leaf_a);
        int nlb = heap_edges(&eb, tb, kb, leaf_b);
        if (tb != ta) { /* swap: leaves of each tree feed the other tree's nodes */
            for (int j = 0; j < kb; j++) add_edge(&ea, leaf_a[(j / 2) % nla], tb[j]);
            for (int j = 0; j < ka; j++) add_edge(&eb, leaf_b[(j / 2) % nlb], ta[j]);
        }
        /* the next site is fed by the members with the fewest sends (sec. 3.2: a leaf with
         * an idle upward link); with 4n-1 nodes that is the last leaf of each tree, with
         * other sizes a leaf may have none left, and a third flow on a node with two NICs
         * slowed that half (presto-2nic-16-16, 32 MiB: 302 ms) */
        last_a = least_sending(&ea, &eb, members, k, -1);
        last_b = least_sending(&ea, &eb, members, k, last_a);
    }
    finish(&ea, n);
    finish(&eb, n);

    int size = 0, me = t->rank;
    MPI_Aint lb, extent;
    PMPI_Type_size(dt, &size);
    PMPI_Type_get_extent(dt, &lb, &extent);
    int half = (count + 1) / 2;
    size_t seg = gsc_segsize(gsc_type_bytes(half, dt));
    int seg_elems = size > 0 ? (int)(seg / (size_t)size) : half;
    if (seg_elems < 1) seg_elems = 1;
    gsc_stream_t s[2] = {
        {(char *)buf, dt, extent, half, seg_elems, ea.src[me], NULL,
         ea.start[me + 1] - ea.start[me], ea.dst + ea.start[me], GS_TAG_BCAST, t},
        {(char *)buf + (MPI_Aint)half * extent, dt, extent, count - half, seg_elems, eb.src[me],
         NULL, eb.start[me + 1] - eb.start[me], eb.dst + eb.start[me], GS_TAG_BCAST_B, t},
    };
    rc = gsc_stream_run(s, 2, comm);
out:
    edges_free(&ea);
    edges_free(&eb);
    free(members);
    free(leaf_a);
    free(leaf_b);
    return rc;
}
