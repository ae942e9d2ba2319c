/* Definition unification and writing (see defs.h). The system tree follows
 * docs/metahosts.md: metacomputer -> machine (metahost) -> node (host) -> MPI Rank N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "comms.h"
#include "iorma.h"
#include "defs.h"
#include "defs_internal.h"
#include "threads.h"
#include "toolcoll.h"

/* ---------- unification ---------- */


static void put(blob_t *b, int64_t v)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->w = realloc(b->w, b->cap * sizeof *b->w);
    }
    b->w[b->n++] = v;
}

static void put_str(blob_t *b, const char *s)
{
    size_t len = strlen(s), words = (len + 8) / 8;
    put(b, (int64_t)len);
    for (size_t i = 0; i < words; i++) {
        int64_t v = 0;
        size_t k = len + 1 - i * 8 < 8 ? len + 1 - i * 8 : 8;
        memcpy(&v, s + i * 8, k);
        put(b, v);
    }
}

static const char *get_str(const int64_t **p)
{
    size_t len = (size_t)*(*p)++;
    const char *s = (const char *)*p;
    *p += (len + 8) / 8;
    return s;
}

static uint32_t find_group(unified_t *u, int size, const int64_t *members)
{
    for (uint32_t g = 2; g < u->ngroups; g++)
        if (u->groups[g].size == size &&
            memcmp(u->groups[g].members, members, (size_t)size * sizeof *members) == 0)
            return g;
    u->groups = realloc(u->groups, (u->ngroups + 1) * sizeof *u->groups);
    u->groups[u->ngroups].size = size;
    u->groups[u->ngroups].members = malloc((size_t)(size > 0 ? size : 1) * sizeof *members);
    memcpy(u->groups[u->ngroups].members, members, (size_t)size * sizeof *members);
    return u->ngroups++;
}

static uint32_t find_comm(unified_t *u, int kind, uint32_t seq, int size,
                          const int64_t *members, const char *name)
{
    if (kind == GS_COMM_WORLD_KIND) return 0;
    if (kind == GS_COMM_SELF_KIND) return 1;
    for (uint32_t c = 2; c < u->ncomms; c++) {
        gcomm_t *g = &u->comms[c];
        if (g->kind == kind && g->seq == seq && g->size == size &&
            memcmp(g->members, members, (size_t)size * sizeof *members) == 0)
            return c;
    }
    u->comms = realloc(u->comms, (u->ncomms + 1) * sizeof *u->comms);
    gcomm_t *g = &u->comms[u->ncomms];
    g->kind = kind;
    g->seq = seq;
    g->size = size;
    g->members = malloc((size_t)(size > 0 ? size : 1) * sizeof *members);
    memcpy(g->members, members, (size_t)size * sizeof *members);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->group = find_group(u, size, members);
    return u->ncomms++;
}

unified_t *gs_defs_new_unified(int n)
{
    unified_t *u = calloc(1, sizeof *u);
    u->nranks = n;
    u->nevents = calloc((size_t)n, sizeof *u->nevents);
    u->ngroups = 3; /* 0 locations, 1 self, 2 world */
    u->groups = calloc(3, sizeof *u->groups);
    u->groups[2].size = n;
    u->groups[2].members = malloc((size_t)n * sizeof(int64_t));
    for (int r = 0; r < n; r++) u->groups[2].members[r] = r;
    u->ncomms = 2;
    u->comms = calloc(2, sizeof *u->comms);
    snprintf(u->comms[0].name, 64, "MPI_COMM_WORLD");
    u->comms[0].group = 2;
    snprintf(u->comms[1].name, 64, "MPI_COMM_SELF");
    u->comms[1].group = 1;
    return u;
}

static void put_xdefs(blob_t *b, const gs_xdef_t *d, uint32_t n)
{
    put(b, n);
    for (uint32_t i = 0; i < n; i++) {
        put(b, d[i].comm);
        put(b, d[i].ordinal);
        put_str(b, d[i].name ? d[i].name : "");
    }
}

/* The global ref of a handle or window (comm = global communicator ref), added when new;
 * for handles `name` is the file, defined once per name. */
static uint32_t find_xdef(gxdef_t **defs, uint32_t *n, unified_t *u, uint32_t comm,
                          uint32_t ordinal, const char *name)
{
    uint32_t file = 0;
    if (name) {
        while (file < u->nfiles && strcmp(u->files[file], name)) file++;
        if (file == u->nfiles) {
            u->files = realloc(u->files, (u->nfiles + 1) * sizeof *u->files);
            u->files[u->nfiles++] = strdup(name);
        }
    }
    for (uint32_t i = 0; i < *n; i++)
        if ((*defs)[i].comm == comm && (*defs)[i].ordinal == ordinal && (*defs)[i].file == file)
            return i;
    *defs = realloc(*defs, (*n + 1) * sizeof **defs);
    (*defs)[*n] = (gxdef_t){comm, ordinal, file};
    return (*n)++;
}

/* Reads a rank's handles (files = 1) or windows from its blob at *p; keeps the mapping
 * when the rank is this one (map, nmap). */
static void unify_xdefs(const int64_t **p, unified_t *u, const uint32_t *comms, uint32_t ncomms,
                        int files, uint32_t **map, uint32_t *nmap)
{
    int64_t n = *(*p)++;
    if (map) {
        *nmap = (uint32_t)n;
        *map = malloc((size_t)(n > 0 ? n : 1) * sizeof **map);
    }
    for (int64_t i = 0; i < n; i++) {
        uint32_t comm = (uint32_t)*(*p)++, ordinal = (uint32_t)*(*p)++;
        const char *name = get_str(p);
        uint32_t g = comm < ncomms ? comms[comm] : OTF2_UNDEFINED_COMM;
        uint32_t ref = files ? find_xdef(&u->handles, &u->nhandles, u, g, ordinal, name)
                             : find_xdef(&u->wins, &u->nwins, u, g, ordinal, NULL);
        if (map) (*map)[i] = ref;
    }
}

/* This rank's contribution to the unification: event count, corrected begin and end,
 * communicators, user regions, its other threads' locations (those in the trace). */
void gs_defs_build_blob(blob_t *b, uint64_t t_begin, uint64_t t_end)
{
    uint64_t nevents = gs_run.nevents;
    if (gs_master.evt) OTF2_EvtWriter_GetNumberOfEvents(gs_master.evt, &nevents);
    put(b, (int64_t)nevents);
    put(b, (int64_t)t_begin + gs_run.offset_init.offset);
    put(b, (int64_t)t_end + (gs_run.has_fin ? gs_run.offset_fin : gs_run.offset_init).offset);
    put(b, (int64_t)gs_comm_ndefs);
    for (uint32_t i = 0; i < gs_comm_ndefs; i++) {
        gs_comm_def_t *d = &gs_comm_defs[i];
        put(b, d->kind);
        put(b, d->seq);
        put(b, d->size);
        for (int k = 0; k < d->size; k++) put(b, d->members[k]);
        put_str(b, d->name);
    }
    uint32_t nuser = gs_user_region_count();
    put(b, nuser);
    for (uint32_t i = 0; i < nuser; i++) {
        int paradigm = 0;
        const char *name = gs_user_region_name(i, &paradigm);
        put(b, paradigm);
        put_str(b, name);
    }
    put_xdefs(b, gs_file_defs, gs_file_ndefs);
    put_xdefs(b, gs_win_defs, gs_win_ndefs);
    uint32_t nthreads = gs_thread_count(), closed = 0;
    for (uint32_t i = 0; i < nthreads; i++) closed += gs_thread_closed(gs_thread(i));
    put(b, closed);
    for (uint32_t i = 0; i < nthreads; i++) {
        gs_loc_t *L = gs_thread(i);
        if (!gs_thread_closed(L)) continue;
        put(b, i + 1);
        put(b, (int64_t)L->nevents);
    }
}

void gs_defs_unify_blobs(int n, int me, const int64_t *all, const int *displs)
{
    unified_t *u = gs_defs_new_unified(n);
    int64_t begin = INT64_MAX, end = INT64_MIN;
    for (int r = 0; r < n; r++) {
        const int64_t *p = all + displs[r];
        u->nevents[r] = (uint64_t)*p++;
        int64_t tb = *p++, te = *p++;
        if (tb < begin) begin = tb;
        if (te > end) end = te;
        int64_t ncomms = *p++;
        uint32_t *comms = malloc((size_t)(ncomms > 0 ? ncomms : 1) * sizeof(uint32_t));
        if (r == me) {
            gs_run.ncomm_map = (uint32_t)ncomms;
            gs_run.comm_map = comms;
        }
        for (int64_t i = 0; i < ncomms; i++) {
            int kind = (int)*p++;
            uint32_t seq = (uint32_t)*p++;
            int size = (int)*p++;
            const int64_t *members = p;
            p += size;
            const char *name = get_str(&p);
            comms[i] = find_comm(u, kind, seq, size, members, name);
        }
        int64_t nu = *p++;
        if (r == me) {
            gs_run.nregion_map = (uint32_t)nu;
            gs_run.region_map = malloc((size_t)(nu > 0 ? nu : 1) * sizeof(uint32_t));
        }
        for (int64_t i = 0; i < nu; i++) {
            int paradigm = (int)*p++;
            const char *name = get_str(&p);
            uint32_t k = 0;
            while (k < u->nuser &&
                   (strcmp(u->user[k].name, name) || u->user[k].paradigm != paradigm))
                k++;
            if (k == u->nuser) {
                u->user = realloc(u->user, (u->nuser + 1) * sizeof *u->user);
                u->user[k].name = strdup(name);
                u->user[k].paradigm = paradigm;
                u->nuser++;
            }
            if (r == me) gs_run.region_map[i] = GS_NUM_MPI_REGIONS + k;
        }
        int mine = r == me;
        unify_xdefs(&p, u, comms, (uint32_t)ncomms, 1, mine ? &gs_run.file_map : NULL,
                    &gs_run.nfile_map);
        unify_xdefs(&p, u, comms, (uint32_t)ncomms, 0, mine ? &gs_run.win_map : NULL,
                    &gs_run.nwin_map);
        if (!mine) free(comms);
        int64_t nt = *p++;
        u->threads = realloc(u->threads, (u->nthreads + (size_t)nt + 1) * sizeof *u->threads);
        for (int64_t i = 0; i < nt; i++, p += 2)
            u->threads[u->nthreads++] = (gthread_t){r, (uint32_t)p[0], (uint64_t)p[1]};
    }
    u->global_offset = begin < 0 ? 0 : (uint64_t)begin;
    u->trace_length = (uint64_t)(end - (int64_t)u->global_offset);
    gs_run.unified = u;
}

void gs_defs_unify(MPI_Comm comm, uint64_t t_begin, uint64_t t_end)
{
    int n = gs.world_size;
    blob_t b = {0};
    gs_defs_build_blob(&b, t_begin, t_end);

    /* Everybody gets everything: each archive master writes the same global
     * definitions (parts mode), each rank reads its own mapping from the same pass. One
     * gather and one broadcast over the collector's tree (toolcoll.h). */
    (void)comm;
    char *packed = NULL;
    int plen = 0;
    gs_tc_allgather(&gs_tc_world, b.w, (int)(b.n * sizeof *b.w), &packed, &plen);
    const char **block = malloc((size_t)n * sizeof *block);
    int *lens = malloc((size_t)n * sizeof(int)), *displs = malloc((size_t)n * sizeof(int));
    gs_tc_unpack(packed, plen, n, block, lens);
    int total = 0;
    for (int r = 0; r < n; r++) {
        displs[r] = total;
        total += lens[r] / (int)sizeof(int64_t);
    }
    int64_t *all = malloc((size_t)(total > 0 ? total : 1) * sizeof *all);
    for (int r = 0; r < n; r++)
        if (lens[r]) memcpy(all + displs[r], block[r], (size_t)lens[r]);
    free(packed);
    free(block);
    free(lens);
    free(b.w);
    gs_defs_unify_blobs(n, gs.world_rank, all, displs);
    free(all);
    free(displs);
}
