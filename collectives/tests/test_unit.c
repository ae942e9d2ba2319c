/* Unit tests of the collectives' plain logic (no MPI communication): hierarchical trees,
 * the LG relay rule, the auto rule table. A plain asserting executable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsc_internal.h"
#include "rules.h"
#include "check.h"

/* A topology from per-rank metahost and node ids (node ids global). */
static gsc_topo_t *make_topo(int n, const int *meta, const int *node)
{
    gsc_topo_t *t = calloc(1, sizeof *t);
    t->size = n;
    int nm = 0, nn = 0;
    for (int r = 0; r < n; r++) {
        if (meta[r] + 1 > nm) nm = meta[r] + 1;
        if (node[r] + 1 > nn) nn = node[r] + 1;
    }
    t->nmeta = nm;
    t->nlevels = 0;
    t->group[t->nlevels] = malloc(sizeof(int) * n);
    memcpy(t->group[t->nlevels], meta, sizeof(int) * n);
    t->ngroups[t->nlevels++] = nm;
    if (nn > nm) {
        t->group[t->nlevels] = malloc(sizeof(int) * n);
        memcpy(t->group[t->nlevels], node, sizeof(int) * n);
        t->ngroups[t->nlevels++] = nn;
    }
    t->meta_start = calloc(nm + 1, sizeof(int));
    t->meta_ranks = malloc(sizeof(int) * n);
    t->meta_index = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++) t->meta_start[meta[r] + 1]++;
    for (int m = 0; m < nm; m++) t->meta_start[m + 1] += t->meta_start[m];
    int *fill = calloc(nm, sizeof(int));
    for (int r = 0; r < n; r++) {
        t->meta_index[r] = fill[meta[r]];
        t->meta_ranks[t->meta_start[meta[r]] + fill[meta[r]]++] = r;
    }
    free(fill);
    gsc_topo_widths(t);
    return t;
}

static void check_tree(const gsc_topo_t *t, int root, const char *what)
{
    static const gsc_shape_t shapes[4][GS_MAX_LEVELS + 1] = {
        {GS_SHAPE_FLAT, GS_SHAPE_BINARY, GS_SHAPE_FLAT, GS_SHAPE_FLAT},
        {GS_SHAPE_FLAT, GS_SHAPE_BINOMIAL, GS_SHAPE_BINOMIAL, GS_SHAPE_FLAT},
        {GS_SHAPE_CHAIN, GS_SHAPE_CHAIN, GS_SHAPE_CHAIN, GS_SHAPE_CHAIN},
        {GS_SHAPE_BINARY, GS_SHAPE_FLAT, GS_SHAPE_BINARY, GS_SHAPE_FLAT}};
    int n = t->size;
    for (int sh = 0; sh < 4; sh++) {
        gsc_tree_t tr;
        CHECK(gsc_tree_build(t, root, shapes[sh], &tr) == 0, "%s: build", what);
        int wan_edges = 0, tops = 0;
        for (int r = 0; r < n; r++) {
            int p = tr.parent[r], hops = 0, x = r;
            if (p < 0) tops++;
            if (p >= 0 && t->group[0][p] != t->group[0][r]) wan_edges++;
            while (x >= 0 && hops <= n) {
                x = tr.parent[x];
                hops++;
            }
            CHECK(hops <= n, "%s: rank %d is on a cycle", what, r);
        }
        if (root >= 0) {
            CHECK(tr.parent[root] == -1, "%s: root %d has a parent", what, root);
            CHECK(tops == 1, "%s: %d tops", what, tops);
            /* one WAN edge into every metahost but the root's: one WAN latency */
            CHECK(wan_edges == t->nmeta - 1, "%s shape %d: %d WAN edges", what, sh, wan_edges);
            int *sub = malloc(sizeof(int) * n);
            CHECK(gsc_tree_subtree(&tr, root, sub) == n, "%s: root subtree", what);
            for (int i = 1; i < n; i++) CHECK(sub[i - 1] < sub[i], "%s: subtree order", what);
            free(sub);
        } else {
            CHECK(tops == t->nmeta, "%s: %d tops for %d metahosts", what, tops, t->nmeta);
            CHECK(wan_edges == 0, "%s: WAN edge inside per-metahost trees", what);
            for (int m = 0; m < t->nmeta; m++)
                CHECK(tr.parent[gsc_meta_leader(t, m, -1)] == -1, "%s: leader", what);
        }
        /* children of a node leader inside a node hang on it directly (flat levels) */
        int kids = 0;
        for (int r = 0; r < n; r++) kids += gsc_tree_nchild(&tr, r);
        CHECK(kids == n - tops, "%s: %d child links", what, kids);
        gsc_tree_free(&tr);
    }
}

static void test_trees(void)
{
    /* 3+5+3 ranks, two per node */
    int meta[11] = {0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2};
    int node[11] = {0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 6};
    gsc_topo_t *t = make_topo(11, meta, node);
    char what[64];
    for (int root = -1; root < 11; root++) {
        snprintf(what, sizeof what, "3+5+3 root %d", root);
        check_tree(t, root, what);
    }
    /* round-robin 4+3, one rank per node */
    int meta2[7] = {0, 1, 0, 1, 0, 1, 0};
    int node2[7] = {0, 1, 2, 3, 4, 5, 6};
    gsc_topo_t *t2 = make_topo(7, meta2, node2);
    for (int root = -1; root < 7; root++) {
        snprintf(what, sizeof what, "rr 4+3 root %d", root);
        check_tree(t2, root, what);
    }
    /* a non-leader root leads its metahost: the other metahosts hang right under it */
    static const gsc_shape_t flat[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_FLAT,
                                                       GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    gsc_tree_t tr;
    gsc_tree_build(t, 4, flat, &tr);
    CHECK(tr.parent[0] == 4 && tr.parent[8] == 4, "metahost leaders under root 4: %d %d",
          tr.parent[0], tr.parent[8]);
    CHECK(tr.parent[3] == 4, "root's node mate under root: %d", tr.parent[3]);
    gsc_tree_free(&tr);
}

/* gsc_lan_shape with asym-3's figures: one Lyon node (root's metahost) and 21 one-core
 * Sophia nodes (500 Mb/s, 0.1 ms) */
static void test_lan_shape(void)
{
    int meta[22], node[22];
    for (int r = 0; r < 22; r++) {
        meta[r] = r ? 1 : 0;
        node[r] = r;
    }
    gsc_topo_t *t = make_topo(22, meta, node);
    gsc_wan_t w;
    char err[512] = "", text[1024];
    static const char *const names[] = {"lyon", "sophia"};
    snprintf(text, sizeof text, "lyon sophia 0.012 12500000\nsophia lyon 0.012 12500000\n");
    gsc_wan_parse(text, "w", names, 2, &w, err, sizeof err);
    t->wan = &w;
    /* no node figures: the caller's choice */
    CHECK(gsc_lan_shape(t, 1, 65536, 4096, GS_SHAPE_CHAIN) == GS_SHAPE_CHAIN, "no figures");
    gsc_wan_free(&w);
    snprintf(text, sizeof text, "lyon sophia 0.012 12500000\nsophia lyon 0.012 12500000\n"
                                "sophia sophia 0.0001 62500000\nlyon lyon 0.00005 125000000\n");
    CHECK(gsc_wan_parse(text, "w", names, 2, &w, err, sizeof err) == 0, "%s", err);
    /* 64 KiB in 16 segments: a chain costs 20 hops of 0.166 ms after 1.05 ms of sending,
     * a binary tree 4 hops of 0.231 ms after 2.1 ms */
    CHECK(gsc_lan_shape(t, 1, 65536, 4096, GS_SHAPE_CHAIN) == GS_SHAPE_BINARY, "64 KiB");
    /* 1 MiB in 32 KiB segments: the chain's full rate wins (16.8 + 20 * 0.62 ms against
     * 33.6 + 4 * 1.15 ms) */
    CHECK(gsc_lan_shape(t, 1, 1 << 20, 32768, GS_SHAPE_CHAIN) == GS_SHAPE_CHAIN, "1 MiB");
    /* a tiny message stays flat; a metahost of one node is a chain */
    CHECK(gsc_lan_shape(t, 1, 1024, 4096, GS_SHAPE_FLAT) == GS_SHAPE_FLAT, "flat");
    CHECK(gsc_lan_shape(t, 0, 65536, 4096, GS_SHAPE_BINOMIAL) == GS_SHAPE_CHAIN, "one node");
    /* per-metahost shapes in the tree: Sophia's nodes as a binary heap under its leader */
    static const gsc_shape_t shape[GS_MAX_LEVELS + 1] = {GS_SHAPE_FLAT, GS_SHAPE_CHAIN,
                                                        GS_SHAPE_FLAT, GS_SHAPE_FLAT};
    const gsc_shape_t per_meta[2] = {GS_SHAPE_CHAIN, GS_SHAPE_BINARY};
    gsc_tree_t tr;
    CHECK(gsc_tree_build_meta(t, 0, shape, per_meta, &tr) == 0, "build");
    CHECK(tr.parent[1] == 0 && tr.parent[2] == 1 && tr.parent[3] == 1 && tr.parent[4] == 2 &&
              tr.parent[21] == 10,
          "binary heap below sophia's leader: %d %d %d %d %d", tr.parent[1], tr.parent[2],
          tr.parent[3], tr.parent[4], tr.parent[21]);
    gsc_tree_free(&tr);
    gsc_wan_free(&w);
}

static void test_lg(void)
{
    /* seed 003's example: n1 = 3, n2 = 7. C1 -> C2 relays by j mod n1; M(7,2) (C2 index 4 to
     * C1 index 2) is stored on global node 8 (C2 index 5). */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 7; j++) CHECK(gsc_lg_relay(3, 7, i, j) == j % 3, "c1->c2 %d %d", i, j);
    CHECK(gsc_lg_relay(7, 3, 4, 2) == 5, "M(7,2) relay %d", gsc_lg_relay(7, 3, 4, 2));
    /* any sizes: relays are valid and S sends exactly max(nS, nD) WAN messages to D */
    for (int nS = 1; nS <= 13; nS++)
        for (int nD = 1; nD <= 13; nD++) {
            int msgs = 0;
            for (int j = 0; j < nD; j++) {
                int used[13] = {0};
                for (int i = 0; i < nS; i++) {
                    int r = gsc_lg_relay(nS, nD, i, j);
                    CHECK(r >= 0 && r < nS, "relay %d of (%d,%d,%d,%d)", r, nS, nD, i, j);
                    if (r >= 0 && r < nS && !used[r]) {
                        used[r] = 1;
                        msgs++;
                    }
                }
            }
            CHECK(msgs == (nS > nD ? nS : nD), "%d->%d: %d WAN messages", nS, nD, msgs);
        }
}

static void test_rules(void)
{
    char err[256] = "";
    const char *table = "# measured\n"
                        "bcast block 1024 vanilla\n"
                        "bcast block inf hier\n"
                        "bcast interleaved inf multilane  # comment\n"
                        "reduce any 65536 hier\n";
    CHECK(gsc_rules_parse(table, "t.rules", err, sizeof err) == 4, "parse: %s", err);
    CHECK(strcmp(gsc_rules_lookup("bcast", 1, 8), "vanilla") == 0, "small block bcast");
    CHECK(strcmp(gsc_rules_lookup("bcast", 1, 1025), "hier") == 0, "large block bcast");
    CHECK(strcmp(gsc_rules_lookup("bcast", 0, 8), "multilane") == 0, "interleaved bcast");
    CHECK(strcmp(gsc_rules_lookup("reduce", 0, 65536), "hier") == 0, "reduce any");
    CHECK(gsc_rules_lookup("reduce", 0, 65537) == NULL, "reduce beyond the table: vanilla");
    CHECK(gsc_rules_lookup("alltoall", 1, 8) == NULL, "no rule: vanilla");
    CHECK(gsc_rules_parse("bcast block 12\n", "bad.rules", err, sizeof err) < 0 &&
              strstr(err, "bad.rules:1:"), "short line: %s", err);
    CHECK(gsc_rules_parse("x\nbcast sideways 1 hier\n", "bad.rules", err, sizeof err) < 0 &&
              strstr(err, "bad.rules:1:"), "first bad line reported: %s", err);
    CHECK(gsc_rules_parse("bcast block -5 hier\n", "bad.rules", err, sizeof err) < 0 &&
              strstr(err, "max_bytes"), "negative size: %s", err);
    CHECK(gsc_rules_parse("bcast diagonal 5 hier\n", "bad.rules", err, sizeof err) < 0 &&
              strstr(err, "layout"), "bad layout: %s", err);
}


/* ---------------------------------------------------------------- WAN graph and routes */

/* asym-3 (benchmarks/collectives/asym-3.toml): lyon-nancy 4 ms 1 Gb/s, lyon-sophia 12 ms
 * 100 Mb/s, nancy-sophia 20 ms 300 Mb/s, both directions alike */
static const char *ASYM =
    "# from to latency bandwidth\n"
    "lyon nancy 0.004 125000000\nnancy lyon 0.004 125000000\n"
    "lyon sophia 0.012 12500000\nsophia lyon 0.012 12500000\n"
    "nancy sophia 0.020 37500000\nsophia nancy 0.020 37500000\n"
    "lyon paris 0.001 1e9   # a metahost the communicator does not have\n";
static const char *const ASYM_NAMES[] = {"lyon", "nancy", "sophia"};
enum { LYON, NANCY, SOPHIA };

static void test_wan_parse(void)
{
    gsc_wan_t w;
    char err[512] = "";
    CHECK(gsc_wan_parse(ASYM, "asym", ASYM_NAMES, 3, &w, err, sizeof err) == 0, "%s", err);
    CHECK(w.k == 3 && w.lat[NANCY * 3 + SOPHIA] == 0.020 && w.bw[SOPHIA * 3 + LYON] == 12500000,
          "figures of the links");
    CHECK(w.lan_bw[SOPHIA] == 0 && w.lan_lat[LYON] == 0, "no node figures given");
    gsc_wan_free(&w);
    char text[1024];
    snprintf(text, sizeof text, "%ssophia sophia 0.0001 62500000\n", ASYM);
    CHECK(gsc_wan_parse(text, "asym", ASYM_NAMES, 3, &w, err, sizeof err) == 0, "%s", err);
    CHECK(w.lan_bw[SOPHIA] == 62500000 && w.lan_lat[SOPHIA] == 0.0001 && w.lan_bw[LYON] == 0 &&
              w.lat[SOPHIA * 3 + SOPHIA] == 0,
          "sophia's node figures, not a WAN link");
    gsc_wan_free(&w);
    err[0] = '\0';
    CHECK(gsc_wan_parse("lyon nancy 0.004 1e8\n", "f", ASYM_NAMES, 3, &w, err, sizeof err) < 0 &&
              strcmp(err, "f: no link from metahost lyon to sophia") == 0,
          "missing link: '%s'", err);
    err[0] = '\0';
    CHECK(gsc_wan_parse("lyon nancy 4ms 1e8\n", "f", ASYM_NAMES, 3, &w, err, sizeof err) < 0 &&
              strncmp(err, "f:1: want", 9) == 0,
          "unit in a figure: '%s'", err);
    err[0] = '\0';
    CHECK(gsc_wan_parse("\n\nlyon nancy 0.004 0\n", "f", ASYM_NAMES, 3, &w, err, sizeof err) < 0 &&
              strncmp(err, "f:3: want", 9) == 0,
          "zero bandwidth: '%s'", err);
}

static void test_wan_shortest(void)
{
    gsc_wan_t w;
    char err[512];
    gsc_wan_parse(ASYM, "asym", ASYM_NAMES, 3, &w, err, sizeof err);
    double d[9];
    int nx[9];
    gsc_wan_shortest(&w, d, nx);
    /* nancy -> sophia: 4 + 12 = 16 ms through lyon beats the direct 20 ms */
    CHECK(nx[NANCY * 3 + SOPHIA] == LYON && d[NANCY * 3 + SOPHIA] > 0.01599 &&
              d[NANCY * 3 + SOPHIA] < 0.01601,
          "nancy->sophia via %d, %g s", nx[NANCY * 3 + SOPHIA], d[NANCY * 3 + SOPHIA]);
    CHECK(nx[LYON * 3 + SOPHIA] == SOPHIA, "lyon->sophia is direct");
    gsc_wan_free(&w);

    /* four metahosts in a line 0-1-2-3 (1 ms hops), every other pair 100 ms: 0 -> 3
     * takes two relays */
    const char *const names[] = {"a", "b", "c", "d"};
    char text[1024] = "";
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if (a != b)
                snprintf(text + strlen(text), sizeof text - strlen(text), "%s %s %s 1e8\n",
                         names[a], names[b], abs(a - b) == 1 ? "0.001" : "0.1");
    gsc_wan_parse(text, "line", names, 4, &w, err, sizeof err);
    gsc_wan_flow_t f = {0, 3, 0};
    gsc_wan_piece_t pc[16];
    int n = gsc_wan_plan(&w, &f, 1, 1, pc, gsc_wan_max_pieces(4, 1), NULL);
    CHECK(n == 1 && pc[0].n == 4 && pc[0].path[1] == 1 && pc[0].path[2] == 2 && pc[0].path[3] == 3,
          "empty message 0->3 along the line: %d pieces, %d sites", n, n > 0 ? pc[0].n : 0);
    gsc_wan_free(&w);
}

static void test_wan_plan(void)
{
    gsc_wan_t w;
    char err[512];
    gsc_wan_piece_t pc[32];
    gsc_wan_parse(ASYM, "asym", ASYM_NAMES, 3, &w, err, sizeof err);

    /* the barrier's empty messages between all leaders: only nancy <-> sophia is relayed */
    gsc_wan_flow_t all[6];
    int nf = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            if (a != b) all[nf++] = (gsc_wan_flow_t){a, b, 0};
    int n = gsc_wan_plan(&w, all, nf, 1, pc, gsc_wan_max_pieces(3, nf), NULL);
    CHECK(n == 6 && !gsc_wan_plan_is_direct(pc, n, all), "6 pieces, not direct: %d", n);
    for (int i = 0; i < n; i++) {
        const gsc_wan_flow_t *f = &all[pc[i].flow];
        int relayed = (f->src == NANCY && f->dst == SOPHIA) || (f->src == SOPHIA && f->dst == NANCY);
        CHECK(pc[i].n == (relayed ? 3 : 2) && (!relayed || pc[i].path[1] == LYON),
              "flow %d->%d: %d sites", f->src, f->dst, pc[i].n);
    }

    /* sophia's 21 blocks of 64 KiB to lyon (a gather): the water level T where
     * direct (12 ms, 8e-8 s/B) and relayed via nancy (24 ms, 1/37.5e6 + 1/125e6 s/B) carry
     * 1376256 B together is 53.66 ms: 520725 B direct (7.9 blocks), 855524 B relayed (13.1);
     * whole blocks 7 + 13, the one left over to the path that then ends first (direct:
     * 12 ms + 8 blocks at 12.5 MB/s = 53.94 ms; relayed: 24 + 14 blocks = 55.81 ms) */
    gsc_wan_flow_t g = {SOPHIA, LYON, 21};
    double est = 0;
    n = gsc_wan_plan(&w, &g, 1, 65536, pc, gsc_wan_max_pieces(3, 1), &est);
    CHECK(n == 2 && pc[0].n == 2 && pc[0].off == 0 && pc[0].len == 8 && pc[1].n == 3 &&
              pc[1].path[1] == NANCY && pc[1].off == 8 && pc[1].len == 13,
          "gather split: %d pieces, %zu + %zu", n, n > 0 ? pc[0].len : 0, n > 1 ? pc[1].len : 0);
    /* modelled: direct 53.94 ms; relayed 24 ms + 13 blocks through 37.5 and 125 MB/s =
     * 53.54 ms; the plan ends with the later */
    CHECK(est > 0.0539 && est < 0.0540, "estimate %g s", est);
    /* the same forwarded block by block (pipelined): the relayed path moves 37.5 MB/s, its
     * narrowest link; water level (1376256 + 0.012 * 12.5e6 + 0.024 * 37.5e6) / 50e6 =
     * 48.53 ms (the bound of docs/perf-collectives.md): 456564 B direct (6.97 blocks),
     * 919692 B relayed (14.03); 6 + 14, the last block direct (48.70 ms against 50.22) */
    g.units = 21;
    n = gsc_wan_plan_ex(&w, &g, 1, 65536, 1, pc, gsc_wan_max_pieces(3, 1), &est);
    CHECK(n == 2 && pc[0].n == 2 && pc[0].len == 7 && pc[1].n == 3 && pc[1].len == 14,
          "pipelined gather split: %d pieces, %zu + %zu", n, n > 0 ? pc[0].len : 0,
          n > 1 ? pc[1].len : 0);
    /* modelled: direct 12 ms + 7 blocks at 12.5 MB/s = 48.70 ms; relayed 24 ms + 14 blocks
     * at 37.5 MB/s = 48.47 ms */
    CHECK(est > 0.04869 && est < 0.04871, "pipelined estimate %g s", est);
    int nu = 0;
    gsc_wan_piece_t *units = gsc_wan_unit_pieces(pc, n, &nu);
    CHECK(nu == 21 && units[6].n == 2 && units[6].off == 6 && units[7].n == 3 &&
              units[7].off == 7 && units[20].off == 20 && units[20].len == 1,
          "unit pieces: %d", nu);
    free(units);
    /* one block: 12 ms + 5.2 ms direct beats 24 ms + 2.3 ms relayed: not split */
    g.units = 1;
    n = gsc_wan_plan(&w, &g, 1, 65536, pc, gsc_wan_max_pieces(3, 1), NULL);
    CHECK(gsc_wan_plan_is_direct(pc, n, &g), "one block goes direct");
    gsc_wan_free(&w);

    /* a symmetric triangle (grid5000-3: 7.8 ms, 17 MB/s every way): an allgather's six equal
     * flows gain nothing from relays, which would double the bytes on the links */
    const char *sym = "a b 0.0078 17010000\nb a 0.0078 17010000\na c 0.0078 17010000\n"
                      "c a 0.0078 17010000\nb c 0.0078 17010000\nc b 0.0078 17010000\n";
    const char *const abc[] = {"a", "b", "c"};
    gsc_wan_parse(sym, "sym", abc, 3, &w, err, sizeof err);
    for (int i = 0; i < nf; i++) all[i].units = 21;
    n = gsc_wan_plan(&w, all, nf, 65536, pc, gsc_wan_max_pieces(3, nf), NULL);
    CHECK(gsc_wan_plan_is_direct(pc, n, all), "symmetric allgather stays direct");
    for (int i = 0; i < nf; i++) all[i].units = 0;
    n = gsc_wan_plan(&w, all, nf, 1, pc, gsc_wan_max_pieces(3, nf), NULL);
    CHECK(gsc_wan_plan_is_direct(pc, n, all), "symmetric barrier stays direct");
    gsc_wan_free(&w);
}

/* Shares for data every metahost sends to every other, relays forwarding what they receive
 * for themselves (gsc_wan_plan_shared). */
static void test_wan_plan_shared(void)
{
    gsc_wan_t w;
    char err[512];
    int via[27], units[3];
    double bytes[3];
    gsc_wan_parse(ASYM, "asym", ASYM_NAMES, 3, &w, err, sizeof err);
#define VIA(S, D, R) via[((S) * 3 + (D)) * 3 + (R)]
    /* asym-3's allgather of 64 KiB blocks, 64 ranks (22 + 21 + 21 blocks): lyon's blocks for
     * sophia need 127 ms alone on their 12.5 MB/s link; nancy relays a share of them over
     * its 37.5 MB/s link beside its own (nancy gets lyon's blocks anyway), and sophia's for
     * lyon mostly the same way; nancy <-> sophia stays direct, since lyon's link to sophia is
     * the narrow one and lyon -> nancy must stay whole to be relayed */
    units[LYON] = 22, units[NANCY] = 21, units[SOPHIA] = 21;
    for (int m = 0; m < 3; m++) bytes[m] = units[m] * 65536.0;
    CHECK(gsc_wan_plan_shared(&w, bytes, units, via) == 1, "allgather plan relays");
    CHECK(VIA(LYON, SOPHIA, NANCY) > 0 && VIA(LYON, SOPHIA, SOPHIA) > 0 &&
              VIA(LYON, SOPHIA, NANCY) + VIA(LYON, SOPHIA, SOPHIA) == 22,
          "lyon -> sophia: %d direct, %d via nancy", VIA(LYON, SOPHIA, SOPHIA),
          VIA(LYON, SOPHIA, NANCY));
    CHECK(VIA(SOPHIA, LYON, NANCY) > VIA(SOPHIA, LYON, LYON), "sophia -> lyon: %d direct, %d via nancy",
          VIA(SOPHIA, LYON, LYON), VIA(SOPHIA, LYON, NANCY));
    CHECK(VIA(NANCY, SOPHIA, SOPHIA) == 21 && VIA(SOPHIA, NANCY, NANCY) == 21 &&
              VIA(LYON, NANCY, NANCY) == 22 && VIA(NANCY, LYON, LYON) == 21,
          "the other flows direct");
    /* a few bytes: nancy <-> sophia through lyon (16 ms against 20), whole, both ways */
    for (int m = 0; m < 3; m++) units[m] = 8, bytes[m] = 8;
    CHECK(gsc_wan_plan_shared(&w, bytes, units, via) == 1, "latency plan relays");
    CHECK(VIA(NANCY, SOPHIA, LYON) == 8 && VIA(SOPHIA, NANCY, LYON) == 8 &&
              VIA(LYON, SOPHIA, SOPHIA) == 8 && VIA(LYON, NANCY, NANCY) == 8,
          "tiny: nancy -> sophia %d via lyon, sophia -> nancy %d", VIA(NANCY, SOPHIA, LYON),
          VIA(SOPHIA, NANCY, LYON));
    gsc_wan_free(&w);
    /* symmetric: nothing to gain, every unit direct */
    const char *sym = "a b 0.0078 17010000\nb a 0.0078 17010000\na c 0.0078 17010000\n"
                      "c a 0.0078 17010000\nb c 0.0078 17010000\nc b 0.0078 17010000\n";
    const char *const abc[] = {"a", "b", "c"};
    gsc_wan_parse(sym, "sym", abc, 3, &w, err, sizeof err);
    for (int m = 0; m < 3; m++) units[m] = 21, bytes[m] = 21 * 65536.0;
    CHECK(gsc_wan_plan_shared(&w, bytes, units, via) == 0 && VIA(0, 1, 1) == 21 &&
              VIA(2, 0, 0) == 21,
          "symmetric stays direct");
#undef VIA
    gsc_wan_free(&w);
}

int main(void)
{
    test_trees();
    test_lan_shape();
    test_lg();
    test_rules();
    test_wan_parse();
    test_wan_shortest();
    test_wan_plan();
    test_wan_plan_shared();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("collectives unit tests passed\n");
    return 0;
}
