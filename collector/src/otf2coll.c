/* OTF2 collective callbacks implemented with PMPI_ calls, so the collector's own
 * traffic never passes through its wrappers (and is never recorded). */
#include <stdlib.h>

#include "otf2coll.h"
#include "toolcoll.h"
#include <string.h>

struct OTF2_CollectiveContext {
    gs_tc_group_t g; /* the archive's processes, its master first */
};

static size_t type_size(OTF2_Type t)
{
    switch (t) {
    case OTF2_TYPE_UINT8: case OTF2_TYPE_INT8: return 1;
    case OTF2_TYPE_UINT16: case OTF2_TYPE_INT16: return 2;
    case OTF2_TYPE_UINT32: case OTF2_TYPE_INT32: case OTF2_TYPE_FLOAT: return 4;
    case OTF2_TYPE_UINT64: case OTF2_TYPE_INT64: case OTF2_TYPE_DOUBLE: return 8;
    default: return 0;
    }
}

/* Messages between a root that is not the tree's root and the tree's root. */
enum { TAG_FWD = 32742 };

static OTF2_CallbackCode get_size(void *u, OTF2_CollectiveContext *c, uint32_t *size)
{
    (void)u;
    *size = (uint32_t)c->g.n;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode get_rank(void *u, OTF2_CollectiveContext *c, uint32_t *rank)
{
    (void)u;
    *rank = (uint32_t)c->g.me;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CollectiveContext *context(MPI_Comm comm, const int *ranks, int n, int me)
{
    OTF2_CollectiveContext *c = malloc(sizeof *c);
    gs_tc_group_init(&c->g, comm, ranks, n, me);
    return c;
}

/* Everything the root holds reaches the tree's root first (no-op when they coincide). */
static void to_tree_root(const gs_tc_group_t *g, uint32_t root, char **buf, int *len)
{
    if (root == 0) return;
    if (g->me == (int)root) PMPI_Send(*buf, *len, MPI_BYTE, g->ranks[0], TAG_FWD, g->comm);
    if (g->me == 0) {
        MPI_Status st;
        PMPI_Probe(g->ranks[root], TAG_FWD, g->comm, &st);
        PMPI_Get_count(&st, MPI_BYTE, len);
        *buf = malloc((size_t)(*len > 0 ? *len : 1));
        PMPI_Recv(*buf, *len, MPI_BYTE, g->ranks[root], TAG_FWD, g->comm, MPI_STATUS_IGNORE);
    }
}

static OTF2_CallbackCode create_local(void *u, OTF2_CollectiveContext **local,
                                      OTF2_CollectiveContext *global, uint32_t grank,
                                      uint32_t gsize, uint32_t lrank, uint32_t lsize,
                                      uint32_t file, uint32_t nfiles)
{
    (void)u, (void)grank, (void)gsize, (void)lrank, (void)lsize, (void)nfiles;
    const gs_tc_group_t *g = &global->g;
    char *all = NULL;
    int alen = 0, n = 0;
    int32_t mine = (int32_t)file;
    gs_tc_allgather(g, &mine, sizeof mine, &all, &alen);
    const char **block = malloc((size_t)g->n * sizeof *block);
    int *lens = malloc((size_t)g->n * sizeof(int)), *ranks = malloc((size_t)g->n * sizeof(int));
    gs_tc_unpack(all, alen, g->n, block, lens);
    for (int i = 0; i < g->n; i++) {
        int32_t f = -1;
        if (block[i] && lens[i] == sizeof f) memcpy(&f, block[i], sizeof f);
        if (f == mine) ranks[n++] = g->ranks[i];
    }
    *local = context(g->comm, ranks, n, g->ranks[g->me]);
    free(all), free(block), free(lens), free(ranks);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode free_local(void *u, OTF2_CollectiveContext *local)
{
    (void)u;
    gs_tc_group_free(&local->g);
    free(local);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode barrier(void *u, OTF2_CollectiveContext *c)
{
    (void)u;
    gs_tc_allreduce_i64(&c->g, 0, 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode bcast(void *u, OTF2_CollectiveContext *c, void *data, uint32_t n,
                               OTF2_Type t, uint32_t root)
{
    (void)u;
    const gs_tc_group_t *g = &c->g;
    int len = (int)(n * type_size(t));
    char *buf = g->me == (int)root ? data : NULL;
    to_tree_root(g, root, &buf, &len);
    if (g->me == 0 && root == 0) buf = data;
    gs_tc_bcast(g, &buf, &len);
    if (buf != data) {
        memcpy(data, buf, (size_t)len);
        free(buf);
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Member blocks gathered at the tree's root, then at `root` in member order. */
static void gather_blocks(const gs_tc_group_t *g, const void *in, int len, void *out,
                          const uint32_t *counts, size_t size, uint32_t root)
{
    char *packed = NULL;
    int plen = 0;
    gs_tc_gather(g, in, len, &packed, &plen);
    if (root != 0) {
        if (g->me == 0) PMPI_Send(packed, plen, MPI_BYTE, g->ranks[root], TAG_FWD, g->comm);
        if (g->me == (int)root) {
            MPI_Status st;
            PMPI_Probe(g->ranks[0], TAG_FWD, g->comm, &st);
            PMPI_Get_count(&st, MPI_BYTE, &plen);
            packed = malloc((size_t)(plen > 0 ? plen : 1));
            PMPI_Recv(packed, plen, MPI_BYTE, g->ranks[0], TAG_FWD, g->comm, MPI_STATUS_IGNORE);
        }
    }
    if (g->me == (int)root) {
        const char **block = malloc((size_t)g->n * sizeof *block);
        int *lens = malloc((size_t)g->n * sizeof(int));
        gs_tc_unpack(packed, plen, g->n, block, lens);
        size_t at = 0;
        for (int i = 0; i < g->n; i++) {
            size_t want = counts ? counts[i] * size : (size_t)len;
            if (block[i] && (size_t)lens[i] == want) memcpy((char *)out + at, block[i], want);
            at += want;
        }
        free(block);
        free(lens);
    }
    free(packed);
}

static OTF2_CallbackCode gather(void *u, OTF2_CollectiveContext *c, const void *in, void *out,
                                uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)u;
    gather_blocks(&c->g, in, (int)(n * type_size(t)), out, NULL, type_size(t), root);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode gatherv(void *u, OTF2_CollectiveContext *c, const void *in,
                                 uint32_t n, void *out, const uint32_t *counts, OTF2_Type t,
                                 uint32_t root)
{
    (void)u;
    gather_blocks(&c->g, in, (int)(n * type_size(t)), out, counts, type_size(t), root);
    return OTF2_CALLBACK_SUCCESS;
}

/* The root's whole buffer goes down the tree; each member keeps its part. */
static void scatter_blocks(const gs_tc_group_t *g, const void *in, const uint32_t *counts,
                           uint32_t each, void *out, uint32_t n, size_t size, uint32_t root)
{
    int len = 0;
    if (g->me == (int)root)
        for (int i = 0; i < g->n; i++) len += (int)((counts ? counts[i] : each) * size);
    char *buf = g->me == (int)root ? (char *)in : NULL;
    to_tree_root(g, root, &buf, &len);
    if (g->me == 0 && root == 0) buf = (char *)in;
    gs_tc_bcast(g, &buf, &len);
    size_t at = 0;
    for (int i = 0; i < g->me; i++) at += (counts ? counts[i] : each) * size;
    memcpy(out, buf + at, n * size);
    if (buf != in) free(buf);
}

static OTF2_CallbackCode scatter(void *u, OTF2_CollectiveContext *c, const void *in,
                                 void *out, uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)u;
    scatter_blocks(&c->g, in, NULL, n, out, n, type_size(t), root);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode scatterv(void *u, OTF2_CollectiveContext *c, const void *in,
                                  const uint32_t *counts, void *out, uint32_t n, OTF2_Type t,
                                  uint32_t root)
{
    (void)u;
    /* Non-roots do not know the others' counts: the root sends them first. */
    const gs_tc_group_t *g = &c->g;
    char *cbuf = g->me == (int)root ? (char *)counts : NULL;
    int clen = g->me == (int)root ? (int)(g->n * sizeof(uint32_t)) : 0;
    to_tree_root(g, root, &cbuf, &clen);
    if (g->me == 0 && root == 0) cbuf = (char *)counts;
    gs_tc_bcast(g, &cbuf, &clen);
    scatter_blocks(g, in, (const uint32_t *)cbuf, 0, out, n, type_size(t), root);
    if (cbuf != (char *)counts) free(cbuf);
    return OTF2_CALLBACK_SUCCESS;
}

static const OTF2_CollectiveCallbacks callbacks = {
    .otf2_release = NULL,
    .otf2_get_size = get_size,
    .otf2_get_rank = get_rank,
    .otf2_create_local_comm = create_local,
    .otf2_free_local_comm = free_local,
    .otf2_barrier = barrier,
    .otf2_bcast = bcast,
    .otf2_gather = gather,
    .otf2_gatherv = gatherv,
    .otf2_scatter = scatter,
    .otf2_scatterv = scatterv,
};

OTF2_ErrorCode gs_otf2_set_collectives(OTF2_Archive *archive, MPI_Comm comm, const int *ranks,
                                       int n, int me)
{
    return OTF2_Archive_SetCollectiveCallbacks(archive, &callbacks, NULL,
                                               context(comm, ranks, n, me), NULL);
}
