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
