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
#include "threads.h"
#include "toolcoll.h"

/* ---------- string table (interned, in first-use order) ---------- */

typedef struct {
    char **s;
    uint32_t n, cap;
    uint32_t *hash; /* open addressing: index+1, 0 = empty */
    uint32_t hcap;
} strtab_t;

static uint32_t fnv(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void st_rehash(strtab_t *t)
{
    free(t->hash);
    t->hcap = t->hcap ? t->hcap * 2 : 1024;
    t->hash = calloc(t->hcap, sizeof *t->hash);
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t j = fnv(t->s[i]) & (t->hcap - 1);
        while (t->hash[j]) j = (j + 1) & (t->hcap - 1);
        t->hash[j] = i + 1;
    }
}

static uint32_t st_add(strtab_t *t, const char *s)
{
    if ((t->n + 1) * 2 > t->hcap) st_rehash(t);
    uint32_t j = fnv(s) & (t->hcap - 1);
    while (t->hash[j]) {
        if (strcmp(t->s[t->hash[j] - 1], s) == 0) return t->hash[j] - 1;
        j = (j + 1) & (t->hcap - 1);
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->s = realloc(t->s, t->cap * sizeof *t->s);
    }
    t->s[t->n] = strdup(s);
    t->hash[j] = t->n + 1;
    return t->n++;
}

/* Appends without interning (program arguments must keep fixed ids even if equal). */
static uint32_t st_push(strtab_t *t, const char *s)
{
    uint32_t id = st_add(t, s);
    if (id == t->n - 1) return id;
    if (t->n == t->cap) {
        t->cap = 2 * t->cap;
        t->s = realloc(t->s, t->cap * sizeof *t->s);
    }
    t->s[t->n] = strdup(s);
    return t->n++;
}

/* ---------- the unified (global) view ---------- */

typedef struct {
    int kind;
    uint32_t seq;
    int size;
    int64_t *members;
    char name[64];
    uint32_t group;
} gcomm_t;

typedef struct {
    int size;
    int64_t *members;
} ggroup_t;

typedef struct {
    char *name;
    int paradigm;
} guser_t;

/* A location of a thread other than a rank's master thread. */
typedef struct {
    int rank;
    uint32_t thread; /* its number in the rank (1, 2, ...) */
    uint64_t nevents;
} gthread_t;

/* An MPI-IO handle or RMA window: communicator (global ref), ordinal on it, file. */
typedef struct {
    uint32_t comm, ordinal, file;
} gxdef_t;

typedef struct {
    int nranks;
    uint64_t *nevents;
    gthread_t *threads; /* by rank, then thread number */
    uint32_t nthreads;
    uint64_t global_offset, trace_length;
    gcomm_t *comms;
    uint32_t ncomms;
    ggroup_t *groups;
    uint32_t ngroups;
    guser_t *user;
    uint32_t nuser;
    gxdef_t *handles, *wins; /* MPI-IO handles and RMA windows */
    uint32_t nhandles, nwins;
    char **files; /* file names, by IoRegularFile ref */
    uint32_t nfiles;
    int provisional;
} unified_t;

static unified_t *U(void)
{
    return (unified_t *)gs_run.unified;
}

void gs_defs_share_cmdline(MPI_Comm comm)
{
    int len = 0;
    char *buf = NULL;
    if (gs.world_rank == 0) {
        len = (int)strlen(gs_run.program) + 1;
        for (int i = 0; i < gs_run.nargs; i++) len += (int)strlen(gs_run.args[i]) + 1;
    }
    (void)comm;
    if (gs.world_rank == 0) {
        buf = malloc((size_t)len);
        char *p = buf;
        p = stpcpy(p, gs_run.program) + 1;
        for (int i = 0; i < gs_run.nargs; i++) p = stpcpy(p, gs_run.args[i]) + 1;
    }
    gs_tc_bcast(&gs_tc_world, &buf, &len); /* the collector's tree collectives */
    gs_run.shared_cmdline = buf;
    gs_run.shared_cmdline_len = len;
    int n = -1;
    for (int i = 0; i < len; i++)
        if (buf[i] == '\0') n++;
    gs_run.nargs_shared = n;
    gs_run.arg_refs = calloc((size_t)(n > 0 ? n : 1), sizeof(OTF2_StringRef));
    for (int i = 0; i < n; i++) gs_run.arg_refs[i] = GS_STR_ARG0 + (OTF2_StringRef)i;
}

/* The program's region, defined as Score-P defines it (SCOREP_RuntimeManagement.c,
 * define_program_begin_end_region): display name the executable's basename, canonical name
 * the program and its arguments joined by spaces, role ARTIFICIAL, paradigm
 * MEASUREMENT_SYSTEM. No event names it: readers take ProgramBegin/ProgramEnd as its Enter
 * and Leave and find it by those names (as Scalasca's PEARL does), so its id is free. */
static void program_region(OTF2_GlobalDefWriter *w, strtab_t *st, uint32_t id)
{
    const char *p = gs_run.shared_cmdline, *slash = strrchr(p, '/');
    size_t len = (size_t)gs_run.shared_cmdline_len;
    char *canonical = malloc(len > 0 ? len : 1);
    memcpy(canonical, p, len);
    for (size_t i = 0; i + 1 < len; i++)
        if (canonical[i] == '\0') canonical[i] = ' ';
    if (len == 0) canonical[0] = '\0';
    uint32_t display = st_add(st, slash ? slash + 1 : p), full = st_add(st, canonical);
    free(canonical);
    if (w)
        OTF2_GlobalDefWriter_WriteRegion(w, id, display, full, GS_STR_EMPTY,
                                         OTF2_REGION_ROLE_ARTIFICIAL,
                                         OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                         OTF2_REGION_FLAG_NONE, GS_STR_EMPTY, 0, 0);
}

/* MPI-IO (Score-P's paradigm "MPI-IO", class PARALLEL; a regular file per name, scoped
 * to the whole system; a handle per file opening, named by the file, on its
 * communicator) and RMA windows (named "Win N" as Score-P's RMA_WIN_NAME_TEMPLATE
 * property "Win ${id}"; flagged: RmaWinCreate/RmaWinDestroy events exist). */
static void emit_io_rma(OTF2_GlobalDefWriter *w, strtab_t *st, unified_t *u)
{
    if (u->nhandles) {
        uint32_t mpiio = st_add(st, "MPI-IO");
        if (w)
            OTF2_GlobalDefWriter_WriteIoParadigm(w, 0, mpiio, mpiio,
                                                 OTF2_IO_PARADIGM_CLASS_PARALLEL,
                                                 OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL,
                                                 NULL);
    }
    for (uint32_t f = 0; f < u->nfiles; f++) {
        uint32_t s = st_add(st, u->files[f]);
        if (w) OTF2_GlobalDefWriter_WriteIoRegularFile(w, f, s, 0);
    }
    for (uint32_t h = 0; h < u->nhandles; h++) {
        uint32_t s = st_add(st, u->files[u->handles[h].file]);
        if (w)
            OTF2_GlobalDefWriter_WriteIoHandle(w, h, s, u->handles[h].file, 0,
                                               OTF2_IO_HANDLE_FLAG_NONE, u->handles[h].comm,
                                               OTF2_UNDEFINED_IO_HANDLE);
    }
    for (uint32_t i = 0; i < u->nwins; i++) {
        char name[32];
        snprintf(name, sizeof name, "Win %u", i);
        uint32_t s = st_add(st, name);
        if (w)
            OTF2_GlobalDefWriter_WriteRmaWin(w, i, s, u->wins[i].comm,
                                             OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS);
    }
}

/* Emits all global definitions; with w == NULL it only interns the strings, so every
 * string can be written before the first record that references it. */
static void emit(OTF2_GlobalDefWriter *w, strtab_t *st)
{
    unified_t *u = U();
    const gs_topology_t *t = &gs_run.topo;
    int n = u->nranks;

    /* Fixed ids first: "", program, arguments (ProgramBegin refers to them). */
    st_add(st, "");
    const char *p = gs_run.shared_cmdline;
    for (int i = 0; i <= gs_run.nargs_shared; i++) {
        if (!w) st_push(st, p);
        p += strlen(p) + 1;
    }

    if (w) {
        OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000u, u->global_offset,
                                                  u->trace_length, OTF2_UNDEFINED_TIMESTAMP);
        for (uint32_t i = 0; i < st->n; i++) OTF2_GlobalDefWriter_WriteString(w, i, st->s[i]);
        OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, st_add(st, "MPI"),
                                           OTF2_PARADIGM_CLASS_PROCESS);
    } else {
        st_add(st, "MPI");
    }

    /* System tree: metacomputer -> machine per metahost -> node per host. */
    uint32_t root_name = st_add(st, "metacomputer");
    uint32_t machine_cls = st_add(st, "machine"), node_cls = st_add(st, "node");
    if (w) OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, root_name, root_name,
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int m = 0; m < t->nmetahosts; m++) {
        const char *name = gs_run.metahosts + (size_t)t->metahost_master[m] * GS_NAME_LEN;
        uint32_t s = st_add(st, name);
        if (w) OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1 + (uint32_t)m, s, machine_cls, 0);
    }
    uint32_t first_node = 1 + (uint32_t)t->nmetahosts;
    for (int d = 0; d < t->nnodes; d++) {
        int r = t->node_master[d];
        uint32_t s = st_add(st, gs_run.hosts + (size_t)r * GS_NAME_LEN);
        if (w)
            OTF2_GlobalDefWriter_WriteSystemTreeNode(w, first_node + (uint32_t)d, s, node_cls,
                                                     1 + (uint32_t)t->metahost[r]);
    }
    uint32_t master_thread = st_add(st, "Master thread");
    uint32_t *thread_names = calloc(u->nthreads ? u->nthreads : 1, sizeof *thread_names);
    for (uint32_t i = 0; i < u->nthreads; i++) {
        /* Score-P's names for threads its Pthread adapter saw start (every thread of a
         * Linux process starts as a Pthread). */
        char name[64];
        snprintf(name, sizeof name, "Pthread thread %u", u->threads[i].thread);
        thread_names[i] = st_add(st, name);
    }
    for (int r = 0; r < n; r++) {
        char name[64];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        uint32_t s = st_add(st, name);
        if (w) {
            OTF2_GlobalDefWriter_WriteLocationGroup(w, (uint32_t)r, s,
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                    first_node + (uint32_t)t->node[r],
                                                    OTF2_UNDEFINED_LOCATION_GROUP);
        }
    }
    /* Each rank's master thread, then its other threads, as Score-P orders them. */
    for (int r = 0, i = 0; r < n && w; r++) {
        OTF2_GlobalDefWriter_WriteLocation(w, gs_location_id(r, 0), master_thread,
                                           OTF2_LOCATION_TYPE_CPU_THREAD, u->nevents[r],
                                           (uint32_t)r);
        for (; i < (int)u->nthreads && u->threads[i].rank == r; i++)
            OTF2_GlobalDefWriter_WriteLocation(
                w, gs_location_id(r, u->threads[i].thread), thread_names[i],
                OTF2_LOCATION_TYPE_CPU_THREAD, u->threads[i].nevents, (uint32_t)r);
    }
    free(thread_names);

    /* Regions: the MPI functions (numbered by the generator), then user regions. */
    uint32_t mpi_file = st_add(st, "MPI"), empty = 0;
    for (uint32_t i = 0; i < GS_NUM_MPI_REGIONS; i++) {
        uint32_t s = st_add(st, gs_mpi_regions[i].name);
        if (w)
            OTF2_GlobalDefWriter_WriteRegion(w, i, s, s, empty, gs_mpi_regions[i].role,
                                             OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
                                             mpi_file, 0, 0);
    }
    for (uint32_t i = 0; i < u->nuser; i++) {
        uint32_t s = st_add(st, u->user[i].name);
        if (w)
            OTF2_GlobalDefWriter_WriteRegion(w, GS_NUM_MPI_REGIONS + i, s, s, empty,
                                             OTF2_REGION_ROLE_FUNCTION, u->user[i].paradigm,
                                             OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    program_region(w, st, GS_NUM_MPI_REGIONS + u->nuser);

    /* The attribute of receives posted with MPI_ANY_SOURCE (events.c). */
    uint32_t attr_name = st_add(st, GS_ATTR_ANY_SOURCE_NAME);
    uint32_t attr_desc = st_add(st, "the receive was posted with MPI_ANY_SOURCE");
    if (w) OTF2_GlobalDefWriter_WriteAttribute(w, GS_ATTR_ANY_SOURCE, attr_name, attr_desc, OTF2_TYPE_UINT8);

    /* Groups: all locations (rank -> location), COMM_SELF, then one per member list. */
    if (w) {
        uint64_t *locs = malloc((size_t)n * sizeof *locs);
        for (int r = 0; r < n; r++) locs[r] = (uint64_t)r;
        OTF2_GlobalDefWriter_WriteGroup(w, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)n,
                                        locs);
        free(locs);
        OTF2_GlobalDefWriter_WriteGroup(w, 1, empty, OTF2_GROUP_TYPE_COMM_SELF,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
        for (uint32_t g = 2; g < u->ngroups; g++)
            OTF2_GlobalDefWriter_WriteGroup(w, g, empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                            (uint32_t)u->groups[g].size,
                                            (const uint64_t *)u->groups[g].members);
    }
    for (uint32_t c = 0; c < u->ncomms; c++) {
        char fallback[64];
        const char *name = u->comms[c].name;
        if (!*name) {
            snprintf(fallback, sizeof fallback, "Comm %u", c);
            name = fallback;
        }
        uint32_t s = st_add(st, name);
        if (w)
            OTF2_GlobalDefWriter_WriteComm(w, c, s, u->comms[c].group,
                                           OTF2_UNDEFINED_COMM,
                                           OTF2_COMM_FLAG_NONE);
    }
    emit_io_rma(w, st, u);
}

void gs_defs_write_global(OTF2_GlobalDefWriter *w)
{
    strtab_t st;
    memset(&st, 0, sizeof st);
    emit(NULL, &st);
    emit(w, &st);
    for (uint32_t i = 0; i < st.n; i++) free(st.s[i]);
    free(st.s);
    free(st.hash);
}

/* ---------- unification ---------- */

typedef struct {
    int64_t *w;
    size_t n, cap;
} blob_t;

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

static unified_t *new_unified(int n)
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
static void build_blob(blob_t *b, uint64_t t_begin, uint64_t t_end)
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
    unified_t *u = new_unified(n);
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
    build_blob(&b, t_begin, t_end);

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

/* The host and metahost names and the command line (the archive master's part of a side
 * file, and of traces/run.gsrun). */
static void write_run_tail(FILE *f)
{
    fwrite(gs_run.hosts, GS_NAME_LEN, (size_t)gs.world_size, f);
    fwrite(gs_run.metahosts, GS_NAME_LEN, (size_t)gs.world_size, f);
    int64_t len = gs_run.shared_cmdline_len;
    fwrite(&len, sizeof len, 1, f);
    fwrite(gs_run.shared_cmdline, 1, (size_t)len, f);
}

/* After a crash no unification over MPI is possible: each rank leaves its contribution
 * next to its event file (traces/<rank>.gsunify), and gridscope-trace-repair unifies
 * them afterwards. Archive masters add the run's host and metahost names and the
 * command line, which the global definitions need. */
void gs_defs_write_crash_sidecar(const char *dir, uint64_t t_begin, uint64_t t_end)
{
    blob_t b = {0};
    build_blob(&b, t_begin, t_end);
    /* Written aside and renamed: a complete side file is the sign that the rank's
     * flush is done (peers.h). */
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/traces/%d.gsunify", dir, gs.world_rank);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(b.w);
        return;
    }
    int64_t head[8] = {GS_SIDECAR_MAGIC, gs.world_rank, gs.world_size, gs_run.at_init,
                       gs_run.offset_init.offset, gs_run.offset_init.error, (int64_t)b.n,
                       gs_run.archive_master};
    fwrite(head, sizeof head, 1, f);
    fwrite(b.w, sizeof *b.w, b.n, f);
    if (gs_run.archive_master) write_run_tail(f);
    if (fclose(f) == 0) rename(tmp, path);
    else unlink(tmp);
    free(b.w);
}

void gs_defs_write_run_info(const char *dir)
{
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/traces/" GS_RUNINFO_FILE, dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    int64_t head[2] = {GS_RUNINFO_MAGIC, gs.world_size};
    fwrite(head, sizeof head, 1, f);
    write_run_tail(f);
    if (fclose(f) == 0) rename(tmp, path);
    else unlink(tmp);
}

void gs_defs_remove_run_info(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces/" GS_RUNINFO_FILE, dir);
    unlink(path);
}

static void write_map(OTF2_DefWriter *w, OTF2_MappingType type, const uint32_t *map, uint32_t n)
{
    if (!n) return;
    OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, n);
    for (uint32_t i = 0; i < n; i++) OTF2_IdMap_AddIdPair(m, i, map[i]);
    OTF2_DefWriter_WriteMappingTable(w, type, m);
    OTF2_IdMap_Free(m);
}

void gs_defs_write_local(OTF2_DefWriter *w, int final)
{
    OTF2_DefWriter_WriteClockOffset(w, (uint64_t)gs_run.at_init, gs_run.offset_init.offset,
                                    (double)gs_run.offset_init.error);
    if (gs_run.has_fin)
        OTF2_DefWriter_WriteClockOffset(w, (uint64_t)gs_run.at_fin, gs_run.offset_fin.offset,
                                        (double)gs_run.offset_fin.error);
    OTF2_IdMap *cm;
    if (final) {
        cm = OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, gs_run.ncomm_map);
        for (uint32_t i = 0; i < gs_run.ncomm_map; i++)
            OTF2_IdMap_AddIdPair(cm, i, gs_run.comm_map[i]);
    } else {
        /* After a crash only WORLD and SELF have global ids (provisional definitions). */
        cm = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 2);
        OTF2_IdMap_AddIdPair(cm, 0, 0);
        OTF2_IdMap_AddIdPair(cm, 1, 1);
    }
    OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_COMM, cm);
    OTF2_IdMap_Free(cm);
    if (final) {
        write_map(w, OTF2_MAPPING_IO_HANDLE, gs_run.file_map, gs_run.nfile_map);
        write_map(w, OTF2_MAPPING_RMA_WIN, gs_run.win_map, gs_run.nwin_map);
    }
    if (final && gs_run.nregion_map) {
        OTF2_IdMap *rm = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, gs_run.nregion_map);
        for (uint32_t i = 0; i < gs_run.nregion_map; i++)
            OTF2_IdMap_AddIdPair(rm, GS_NUM_MPI_REGIONS + i, gs_run.region_map[i]);
        OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_REGION, rm);
        OTF2_IdMap_Free(rm);
    }
}

/* The local definitions of the rank's master location and of its other threads'
 * locations: the same clock offsets (one clock per process) and mappings. */
void gs_defs_write_local_all(OTF2_Archive *a, int rank, int final)
{
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, gs_location_id(rank, 0));
    gs_defs_write_local(w, final);
    OTF2_Archive_CloseDefWriter(a, w);
    unified_t *u = U();
    for (uint32_t i = 0; u && i < u->nthreads; i++) {
        if (u->threads[i].rank != rank) continue;
        w = OTF2_Archive_GetDefWriter(a, gs_location_id(rank, u->threads[i].thread));
        gs_defs_write_local(w, final);
        OTF2_Archive_CloseDefWriter(a, w);
    }
}

static OTF2_FlushType always_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c,
                                   bool final)
{
    (void)u, (void)t, (void)l, (void)c, (void)final;
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks gs_defs_flush_callbacks = {always_flush, NULL};

/* Global definitions known at start-up (system tree, locations, MPI regions, WORLD and
 * SELF), written at once so that a run that dies before MPI_Finalize still leaves an
 * archive OTF2 readers open. A normal finalize overwrites them with the unified ones. */
void gs_defs_write_provisional(const char *dir, MPI_Comm comm, uint64_t t_begin)
{
    int64_t mine = (int64_t)t_begin + gs_run.offset_init.offset, begin = 0;
    (void)comm;
    begin = gs_tc_allreduce_i64(&gs_tc_world, mine, 1);
    if (!gs_run.archive_master) return;
    unified_t *u = new_unified(gs.world_size);
    u->provisional = 1;
    u->global_offset = begin < 0 ? 0 : (uint64_t)begin;
    u->trace_length = UINT64_C(1) << 52; /* unknown yet: ~52 days */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/.gridscope-provisional", dir);
    OTF2_Archive *a = gs_defs_open_staging(tmp, "gridscope collector (provisional definitions)",
                                           gs_run.evt_chunk);
    if (!a) return;
    void *saved = gs_run.unified;
    gs_run.unified = u;
    gs_defs_write_global(OTF2_Archive_GetGlobalDefWriter(a));
    gs_run.unified = saved;
    OTF2_Archive_Close(a);
    gs_defs_publish_staging(tmp, dir);
}

/* A definitions-only archive in `tmp`, written beside the real one and moved into place
 * by gs_defs_publish_staging, so readers never see a half-written anchor. Its anchor
 * replaces the real one, so it declares the real event chunk size: the event files of
 * a crashed run stay as the ranks wrote them. */
OTF2_Archive *gs_defs_open_staging(const char *tmp, const char *creator, uint64_t evt_chunk)
{
    OTF2_Archive *a = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE, evt_chunk,
                                        256 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a) return NULL;
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetFlushCallbacks(a, &gs_defs_flush_callbacks, NULL);
    OTF2_Archive_SetCreator(a, creator);
    return a;
}

/* Moves the staged anchor and global definitions over the archive in `dir` and removes
 * the staging folder (per-location files must have been moved out by the caller). */
void gs_defs_publish_staging(const char *tmp, const char *dir)
{
    char from[4500], to[4500];
    const char *files[] = {"traces.def", "traces.otf2"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/%s", tmp, files[i]);
        snprintf(to, sizeof to, "%s/%s", dir, files[i]);
        rename(from, to);
    }
    snprintf(from, sizeof from, "%s/traces", tmp);
    rmdir(from);
    rmdir(tmp);
}

/* This rank's local definitions as they stand after start-up (the start-up clock offset,
 * WORLD and SELF mappings), written at once: if the process dies before it can flush,
 * readers still find them. A clean finalize or a crash flush overwrites the file. */
void gs_defs_write_provisional_local(const char *dir)
{
    char tmp[4200], from[4400], to[4400];
    int rank = gs.world_rank;
    snprintf(tmp, sizeof tmp, "%s/.gridscope-provisional-%d", dir, rank);
    OTF2_Archive *a = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE, 256 * 1024,
                                        256 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a) return;
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetFlushCallbacks(a, &gs_defs_flush_callbacks, NULL);
    OTF2_Archive_OpenDefFiles(a);
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)rank);
    gs_defs_write_local(w, 0);
    OTF2_Archive_CloseDefWriter(a, w);
    OTF2_Archive_CloseDefFiles(a);
    OTF2_Archive_Close(a);
    snprintf(to, sizeof to, "%s/traces", dir);
    mkdir(to, 0777);
    snprintf(from, sizeof from, "%s/traces/%d.def", tmp, rank);
    snprintf(to, sizeof to, "%s/traces/%d.def", dir, rank);
    rename(from, to);
    const char *leftovers[] = {"traces.otf2", "traces.def"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/%s", tmp, leftovers[i]);
        unlink(from);
    }
    snprintf(from, sizeof from, "%s/traces", tmp);
    rmdir(from);
    rmdir(tmp);
}
