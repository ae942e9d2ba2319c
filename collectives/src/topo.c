/* Topology of a user communicator: which metahost and node each rank is on, the groups
 * at every level, and the level communicators. Built once per communicator (collective:
 * every rank is inside the same first topology-aware call) and cached with a keyval,
 * in the spirit of Open MPI coll/han's sub-communicators (coll_han_subcomms.c), but with a
 * list of levels instead of two fixed ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridscope/metahost.h"
#include "gsc_internal.h"
#include "settings.h"

static int topo_keyval = MPI_KEYVAL_INVALID;
static char my_keys[2 * GS_KEY_LEN];
static int my_keys_ready;

static void topo_free(gsc_topo_t *t)
{
    if (!t) return;
    for (int l = 0; l < GS_MAX_LEVELS; l++) {
        free(t->group[l]);
        if (t->level_comm[l] != MPI_COMM_NULL) PMPI_Comm_free(&t->level_comm[l]);
    }
    if (t->leader_comm != MPI_COMM_NULL) PMPI_Comm_free(&t->leader_comm);
    if (t->coll_comm != MPI_COMM_NULL) PMPI_Comm_free(&t->coll_comm);
    free(t->meta_start);
    free(t->meta_ranks);
    free(t->meta_index);
    free(t->meta_width);
    if (t->wan) gsc_wan_free(t->wan);
    free(t->wan);
    free(t);
}

static int topo_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    topo_free((gsc_topo_t *)attr);
    return MPI_SUCCESS;
}

/* This process's keys: metahost name, then node (host) name. */
static int resolve_keys(MPI_Comm comm)
{
    if (my_keys_ready) return 0;
    int world_rank = 0, len = 0;
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
    char err[512] = "";
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Get_processor_name(host, &len);
    host[len < 0 ? 0 : (len > MPI_MAX_PROCESSOR_NAME ? MPI_MAX_PROCESSOR_NAME : len)] = '\0';
    memset(my_keys, 0, sizeof my_keys);
    if (gs_metahost_resolve(world_rank, host, my_keys, GS_KEY_LEN, err, sizeof err) != 0) {
        fprintf(stderr, "gridscope-coll: rank %d: %s\n", world_rank, err);
        PMPI_Abort(comm, 2);
        return -1;
    }
    snprintf(my_keys + GS_KEY_LEN, GS_KEY_LEN, "%.*s", GS_KEY_LEN - 1, host);
    my_keys_ready = 1;
    return 0;
}

/* The WAN graph between the communicator's metahosts from GRIDSCOPE_COLL_WAN (wan.h), named
 * after the first rank of each metahost. Unset: NULL (direct links only). A bad file stops
 * the program with one line. Every rank reads the same file, so all agree on the plans. */
static gsc_wan_t *load_wan(MPI_Comm comm, const char *keys, const gsc_topo_t *t)
{
    const char *path = gsc_setting_text(GSC_SET_WAN);
    if (!*path || t->nmeta < 2) return NULL;
    char err[768] = "";
    const char **names = malloc(sizeof(char *) * (size_t)t->nmeta);
    gsc_wan_t *w = calloc(1, sizeof *w);
    char *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, sizeof err, "%s: cannot read the WAN graph (GRIDSCOPE_COLL_WAN): %s", path,
                 strerror(errno));
    } else {
        size_t cap = 1 << 20, got = 0;
        text = malloc(cap);
        if (text) got = fread(text, 1, cap - 1, f);
        fclose(f);
        if (text) text[got] = '\0';
    }
    if (!err[0] && names && w && text) {
        for (int m = 0; m < t->nmeta; m++)
            names[m] = keys + (size_t)t->meta_ranks[t->meta_start[m]] * 2 * GS_KEY_LEN;
        gsc_wan_parse(text, path, names, t->nmeta, w, err, sizeof err);
    }
    free(names);
    free(text);
    if (err[0]) {
        fprintf(stderr, "gridscope-coll: %s\n", err);
        free(w);
        PMPI_Abort(comm, 2);
        return NULL;
    }
    return w;
}

/* Dense group ids, numbered by first appearance in rank order, of a key prefix. */
static int assign_groups(const char *keys, int n, size_t keylen, int *group)
{
    int ngroups = 0;
    for (int r = 0; r < n; r++) {
        group[r] = -1;
        for (int q = 0; q < r; q++)
            if (memcmp(keys + (size_t)q * 2 * GS_KEY_LEN, keys + (size_t)r * 2 * GS_KEY_LEN,
                       keylen) == 0) {
                group[r] = group[q];
                break;
            }
        if (group[r] < 0) group[r] = ngroups++;
    }
    return ngroups;
}

static gsc_topo_t *topo_build(MPI_Comm comm)
{
    gsc_topo_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    for (int l = 0; l < GS_MAX_LEVELS; l++) t->level_comm[l] = MPI_COMM_NULL;
    t->leader_comm = MPI_COMM_NULL;
    t->coll_comm = MPI_COMM_NULL;
    PMPI_Comm_size(comm, &t->size);
    PMPI_Comm_rank(comm, &t->rank);
    int n = t->size;
    if (resolve_keys(comm) != 0) goto fail;
    char *keys = malloc((size_t)n * 2 * GS_KEY_LEN);
    int *tmp = malloc(sizeof(int) * (size_t)n);
    if (!keys || !tmp) {
        free(keys);
        free(tmp);
        goto fail;
    }
    PMPI_Allgather(my_keys, 2 * GS_KEY_LEN, MPI_CHAR, keys, 2 * GS_KEY_LEN, MPI_CHAR, comm);

    /* Candidate levels: metahost (first key), node (both keys). Keep those that split. */
    int prev = 1;
    for (int cand = 0; cand < 2; cand++) {
        size_t keylen = cand == 0 ? GS_KEY_LEN : 2 * GS_KEY_LEN;
        int ng = assign_groups(keys, n, keylen, tmp);
        if (cand == 0) t->nmeta = ng;
        if (ng > prev) {
            int l = t->nlevels++;
            t->group[l] = malloc(sizeof(int) * (size_t)n);
            memcpy(t->group[l], tmp, sizeof(int) * (size_t)n);
            t->ngroups[l] = ng;
            prev = ng;
        }
    }
    /* Metahost membership (CSR, ascending ranks). */
    int nm = t->nmeta;
    assign_groups(keys, n, GS_KEY_LEN, tmp);
    t->meta_start = calloc((size_t)nm + 1, sizeof(int));
    t->meta_ranks = malloc(sizeof(int) * (size_t)n);
    t->meta_index = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) t->meta_start[tmp[r] + 1]++;
    for (int m = 0; m < nm; m++) t->meta_start[m + 1] += t->meta_start[m];
    int *fill = calloc((size_t)nm, sizeof(int));
    t->contiguous = 1;
    for (int r = 0; r < n; r++) {
        int m = tmp[r];
        t->meta_index[r] = fill[m];
        t->meta_ranks[t->meta_start[m] + fill[m]++] = r;
        if (r > 0 && tmp[r] != tmp[r - 1] && fill[m] > 1) t->contiguous = 0;
    }
    free(fill);
    gsc_topo_widths(t);
    /* Level communicators, split once (PMPI: not user traffic). */
    for (int l = 0; l < t->nlevels; l++)
        PMPI_Comm_split(comm, t->group[l][t->rank], t->rank, &t->level_comm[l]);
    int me_leader = t->meta_ranks[t->meta_start[tmp[t->rank]]] == t->rank;
    PMPI_Comm_split(comm, me_leader ? 0 : MPI_UNDEFINED, t->rank, &t->leader_comm);
    t->wan = load_wan(comm, keys, t);
    /* nmeta is the same on every rank, so all or none take part in the dup */
    if (t->nmeta >= 2) PMPI_Comm_dup(comm, &t->coll_comm);
    free(keys);
    free(tmp);
    return t;
fail:
    topo_free(t);
    return NULL;
}

void gsc_topo_widths(gsc_topo_t *t)
{
    int node_level = t->nmeta < 2 ? 0 : 1, by_node = t->nlevels > node_level;
    int ids = by_node ? t->ngroups[node_level] : t->size;
    int *seen = malloc(sizeof(int) * (size_t)(ids > 0 ? ids : 1));
    t->meta_width = calloc((size_t)t->nmeta + 1, sizeof(int));
    for (int i = 0; i < ids; i++) seen[i] = -1;
    for (int m = 0; m < t->nmeta; m++)
        for (int i = t->meta_start[m]; i < t->meta_start[m + 1]; i++) {
            int r = t->meta_ranks[i], id = by_node ? t->group[node_level][r] : r;
            if (seen[id] != m) {
                seen[id] = m;
                t->meta_width[m]++;
            }
        }
    free(seen);
}

gsc_topo_t *gsc_topo_get(MPI_Comm comm)
{
    int flag = 0;
    void *attr = NULL;
    if (topo_keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, topo_delete, &topo_keyval, NULL);
    PMPI_Comm_get_attr(comm, topo_keyval, &attr, &flag);
    if (flag && attr) return (gsc_topo_t *)attr;
    gsc_topo_t *t = topo_build(comm);
    if (t) PMPI_Comm_set_attr(comm, topo_keyval, t);
    return t;
}
