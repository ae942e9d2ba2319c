/* Hierarchical spanning trees over a communicator's topology. Every process computes the
 * whole tree (O(n)), so it knows its parent, its children and everybody's subtree. */
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"

typedef struct {
    const gsc_topo_t *t;
    const gsc_shape_t *shape;
    const gsc_shape_t *meta_shape; /* per metahost, between its nodes (level 1); or NULL */
    gsc_tree_t *tr;
    int *order; /* attach sequence number per rank */
    int seq;
} builder_t;

static void attach(builder_t *b, const int *list, int k, gsc_shape_t shape, int level)
{
    /* list[0] is the leader (already in the tree); attach list[1..k-1] under it */
    for (int i = 1; i < k; i++) {
        int p;
        switch (shape) {
        case GS_SHAPE_BINARY: p = (i - 1) / 2; break;
        case GS_SHAPE_CHAIN: p = i - 1; break;
        case GS_SHAPE_BINOMIAL: p = i & (i - 1); break;
        default: p = 0; break;
        }
        b->tr->parent[list[i]] = list[p];
        b->tr->depth_level[list[i]] = level;
        b->order[list[i]] = b->seq++;
    }
}

static int leader_of(const int *members, int k, int preferred)
{
    for (int i = 0; i < k; i++)
        if (members[i] == preferred) return preferred;
    return members[0]; /* ascending: lowest rank */
}

/* members: ascending ranks of a group at `level`, whose leader is `leader`. */
static void build_group(builder_t *b, const int *members, int k, int leader, int level)
{
    const gsc_topo_t *t = b->t;
    if (level >= t->nlevels) {
        int *list = malloc(sizeof(int) * (size_t)k);
        int m = 0;
        list[m++] = leader;
        for (int i = 0; i < k; i++)
            if (members[i] != leader) list[m++] = members[i];
        attach(b, list, m, b->shape[level], level);
        free(list);
        return;
    }
    const int *g = t->group[level];
    /* subgroups in order of their lowest member; the leader's subgroup first */
    int *sub = malloc(sizeof(int) * (size_t)k);   /* member lists, concatenated */
    int *ids = malloc(sizeof(int) * (size_t)k);   /* distinct subgroup ids */
    int *lead = calloc((size_t)k, sizeof(int));
    int nsub = 0;
    for (int i = 0; i < k; i++) {
        int id = g[members[i]], seen = 0;
        for (int s = 0; s < nsub; s++) seen |= ids[s] == id;
        if (!seen) ids[nsub++] = id;
    }
    for (int s = 0; s < nsub; s++)
        if (ids[s] == g[leader] && s) {
            int x = ids[s];
            memmove(ids + 1, ids, sizeof(int) * (size_t)s);
            ids[0] = x;
        }
    int *start = malloc(sizeof(int) * (size_t)(nsub + 1));
    int pos = 0;
    for (int s = 0; s < nsub; s++) {
        start[s] = pos;
        for (int i = 0; i < k; i++)
            if (g[members[i]] == ids[s]) sub[pos++] = members[i];
        lead[s] = leader_of(sub + start[s], pos - start[s], leader);
    }
    start[nsub] = pos;
    int root = b->tr->root;
    if (level == 1 && b->shape[0] == GS_SHAPE_FLAT_WAN && root >= 0 &&
        t->group[0][leader] != t->group[0][root]) {
        /* another metahost's node leaders hang off the root itself; lead[0], the metahost's
         * leader, already does */
        int saved = lead[0];
        lead[0] = root;
        attach(b, lead, nsub, GS_SHAPE_FLAT, level);
        lead[0] = saved;
    } else {
        gsc_shape_t sh = level == 1 && b->meta_shape ? b->meta_shape[t->group[0][leader]]
                                                     : b->shape[level];
        attach(b, lead, nsub, sh, level);
    }
    for (int s = 0; s < nsub; s++)
        build_group(b, sub + start[s], start[s + 1] - start[s], lead[s], level + 1);
    free(sub);
    free(ids);
    free(lead);
    free(start);
}

int gsc_meta_leader(const gsc_topo_t *t, int m, int root)
{
    const int *mr = t->meta_ranks + t->meta_start[m];
    return leader_of(mr, gsc_meta_size(t, m), root);
}

int gsc_tree_build(const gsc_topo_t *t, int root, const gsc_shape_t *shape, gsc_tree_t *tr)
{
    return gsc_tree_build_meta(t, root, shape, NULL, tr);
}

int gsc_tree_build_meta(const gsc_topo_t *t, int root, const gsc_shape_t *shape,
                        const gsc_shape_t *meta_shape, gsc_tree_t *tr)
{
    int n = t->size;
    memset(tr, 0, sizeof *tr);
    tr->n = n;
    tr->root = root;
    tr->parent = malloc(sizeof(int) * (size_t)n);
    tr->depth_level = calloc((size_t)n, sizeof(int));
    tr->child_start = calloc((size_t)n + 1, sizeof(int));
    tr->child = malloc(sizeof(int) * (size_t)n);
    builder_t b = {t, shape, t->nmeta >= 2 ? meta_shape : NULL, tr,
                   malloc(sizeof(int) * (size_t)n), 0};
    if (!tr->parent || !tr->depth_level || !tr->child_start || !tr->child || !b.order) {
        free(b.order);
        gsc_tree_free(tr);
        return -1;
    }
    for (int r = 0; r < n; r++) {
        tr->parent[r] = -1;
        b.order[r] = -1;
    }
    if (root >= 0) {
        int *all = malloc(sizeof(int) * (size_t)n);
        for (int r = 0; r < n; r++) all[r] = r;
        b.order[root] = b.seq++;
        build_group(&b, all, n, root, 0);
        free(all);
    } else {
        /* one tree per metahost below level 0, rooted at its lowest rank */
        for (int m = 0; m < t->nmeta; m++) {
            const int *mr = t->meta_ranks + t->meta_start[m];
            int k = gsc_meta_size(t, m);
            b.order[mr[0]] = b.seq++;
            build_group(&b, mr, k, mr[0], 1);
        }
    }
    /* CSR children in attach order */
    int *by_order = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) by_order[b.order[r]] = r;
    for (int r = 0; r < n; r++)
        if (tr->parent[r] >= 0) tr->child_start[tr->parent[r] + 1]++;
    for (int r = 0; r < n; r++) tr->child_start[r + 1] += tr->child_start[r];
    int *fill = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        int r = by_order[i], p = tr->parent[r];
        if (p >= 0) tr->child[tr->child_start[p] + fill[p]++] = r;
    }
    free(fill);
    free(by_order);
    free(b.order);
    return 0;
}

void gsc_tree_free(gsc_tree_t *tr)
{
    free(tr->parent);
    free(tr->depth_level);
    free(tr->child_start);
    free(tr->child);
    memset(tr, 0, sizeof *tr);
}

int gsc_tree_nchild(const gsc_tree_t *tr, int r)
{
    return tr->child_start[r + 1] - tr->child_start[r];
}

const int *gsc_tree_children(const gsc_tree_t *tr, int r)
{
    return tr->child + tr->child_start[r];
}

static int collect(const gsc_tree_t *tr, int r, int *out, int k)
{
    out[k++] = r;
    for (int i = tr->child_start[r]; i < tr->child_start[r + 1]; i++)
        k = collect(tr, tr->child[i], out, k);
    return k;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int gsc_tree_subtree(const gsc_tree_t *tr, int r, int *out)
{
    int k = collect(tr, r, out, 0);
    qsort(out, (size_t)k, sizeof(int), cmp_int);
    return k;
}

#define GS_FLAT_MAX_BYTES 2048

/* Nodes of the largest metahost (gsc_topo_widths). */
static int widest_metahost(const gsc_topo_t *t)
{
    int widest = 0;
    for (int m = 0; m < t->nmeta; m++)
        if (t->meta_width[m] > widest) widest = t->meta_width[m];
    return widest;
}

gsc_shape_t gsc_local_shape(const gsc_topo_t *t, size_t bytes, int nseg)
{
    /* a message that is sent in well under a LAN latency (2 KiB: 16 us at 1 Gb/s) goes to
     * every node at once: one latency instead of a tree's log2(k) */
    if (bytes <= GS_FLAT_MAX_BYTES) return GS_SHAPE_FLAT;
    /* A pipelined chain of k members delivers nseg segments after k - 2 + nseg segment
     * times, a binomial tree after about log2(k) * nseg: the chain pays k - 1 latencies to
     * fill, which only a long pipeline hides (seed 000 measures flat vs hierarchical on
     * small messages too; a chain of 8 nodes lost 0.3 ms to a binomial tree at 8 B). */
    int k = widest_metahost(t);
    if (k <= 2) return GS_SHAPE_CHAIN;
    int depth = 0; /* ceil(log2(k)) */
    while ((1 << depth) < k) depth++;
    return (long)nseg * (depth - 1) > (long)(k - 2) ? GS_SHAPE_CHAIN : GS_SHAPE_BINOMIAL;
}

/* Modelled time from the whole message at the leader to its last segment at the last of k
 * nodes, for a pipelined tree of fan-out f and the given depth: a node feeds its f children
 * at bw/f each, and every hop costs f segments on the sender's link and a latency (a
 * binomial tree: its leader's ceil(log2 k) children, as deep). */
static double pipe_time(int f, int depth, size_t bytes, size_t seg, double lat, double bw)
{
    return (double)bytes * f / bw + depth * ((double)f * (double)seg / bw + lat);
}

gsc_shape_t gsc_lan_shape(const gsc_topo_t *t, int m, size_t bytes, size_t seg,
                          gsc_shape_t fallback)
{
    if (!t->wan || !t->wan->lan_bw || t->wan->lan_bw[m] <= 0 || fallback == GS_SHAPE_FLAT)
        return fallback;
    int k = t->meta_width[m];
    if (k <= 2) return GS_SHAPE_CHAIN;
    int heap = 0, rounds = 0; /* floor(log2(k)): a binary heap's depth; ceil: a binomial's */
    while ((2 << heap) <= k) heap++;
    while ((1 << rounds) < k) rounds++;
    double lat = t->wan->lan_lat[m], bw = t->wan->lan_bw[m];
    double chain = pipe_time(1, k - 1, bytes, seg, lat, bw);
    double binary = pipe_time(2, heap, bytes, seg, lat, bw);
    double binomial = pipe_time(rounds, rounds, bytes, seg, lat, bw);
    if (binary < chain && binary < binomial) return GS_SHAPE_BINARY;
    return chain <= binomial ? GS_SHAPE_CHAIN : GS_SHAPE_BINOMIAL;
}

gsc_shape_t *gsc_lan_shapes(const gsc_topo_t *t, size_t bytes, size_t seg, gsc_shape_t fallback)
{
    if (!t->wan || t->nmeta < 2) return NULL;
    gsc_shape_t *per_meta = malloc(sizeof *per_meta * (size_t)t->nmeta);
    for (int m = 0; per_meta && m < t->nmeta; m++)
        per_meta[m] = gsc_lan_shape(t, m, bytes, seg, fallback);
    return per_meta;
}
