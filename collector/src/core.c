/* Measurement core: start-up at MPI_Init, archive, clock sync, finalize, abort. The event
 * buffer is in core_buffer.c, the crash flush in core_crash.c. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "comms.h"
#include "core_checks.h"
#include "core_internal.h"
#include "defs.h"
#include "gridscope/metahost.h"
#include "otf2coll.h"
#include "peers.h"
#ifndef GS_SMPI
#include <otf2/OTF2_Pthread_Locks.h>
#endif
#include "sync.h"
#include "threads.h"
#include "toolcoll.h"

gs_state_t gs;
gs_loc_t gs_master;
#ifndef GS_SMPI
pthread_t gs_main_thread;
#endif
gs_run_t gs_run;

OTF2_Archive *gs_archive;
/* The collector's own messages: a private copy of MPI_COMM_WORLD, except under SMPI,
 * where SimGrid makes creating a communicator cost one WAN round trip per rank
 * (Comm::init_smp): there they go over MPI_COMM_WORLD itself, with tags of their own,
 * only where no receive of the program can be pending (start-up, and finalize after a
 * barrier; see gs_measurement_finalize_begin). */
static MPI_Comm tool_comm = MPI_COMM_NULL;
uint64_t gs_program_begin;
#ifndef GS_SMPI
/* The program's begin is the earliest time the measurement has: when the dynamic loader
 * runs this library's constructors, before main. Under SMPI the simulated clock only
 * starts with MPI, so there the program begins at MPI_Init. */
static uint64_t t_loaded;
__attribute__((constructor)) static void note_load_time(void)
{
    t_loaded = gs_raw_time();
}
#endif
char gs_trace_dir[4096];

uint64_t gs_skewed_time(uint64_t raw)
{
    return (uint64_t)gs_skew_apply((int64_t)raw, gs.skew_offset, gs.skew_drift);
}


/* Under SMPI every rank reads the same simulated clock: the true offset is zero. The
 * synchronisation still runs (and costs simulated time, as on a real machine); only its
 * rounding noise is dropped, keeping the measured error bound. */
static void simulated_clock_is_global(gs_offset_t *o)
{
#ifdef GS_SMPI
    o->offset = 0;
#else
    (void)o;
#endif
}

/* SimGrid (3.3x) learns MPI_COMM_WORLD's node layout on its first MPI_Bcast, with a ring
 * allgather of the node leaders (Comm::init_smp): one step after the other across the WAN,
 * 2.06 s of simulated time on asym-3 with 64 ranks, 0.76 s on grid5000-3, while the first
 * MPI_Allreduce or MPI_Barrier take their usual time (at 256 ranks and more the first
 * MPI_Allreduce sets it up too). A real MPI learns the layout from its launcher. One
 * broadcast before MPI_Init's Enter, where the program begins, keeps that cost out of the
 * program's first collective and out of MPI_Init, the same for every collective mode: the
 * simulated program starts, as a real one does, with an MPI that knows its layout. The
 * trace's global offset shows its time (benchmarks/collector/startup.py reports it). */
#ifdef GS_SMPI
static void simulator_world_setup(void)
{
    int unused = 0;
    PMPI_Bcast(&unused, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
#endif

/* ---------- start-up ---------- */

void gs_measurement_init(int *argc, char ***argv, uint64_t t_begin_raw, uint32_t init_region)
{
    memset(&gs, 0, sizeof gs);
    memset(&gs_master, 0, sizeof gs_master);
    memset(&gs_run, 0, sizeof gs_run);
#ifdef GS_SMPI
    simulator_world_setup();
    t_begin_raw = gs_raw_time();
#endif
    if (!t_begin_raw) t_begin_raw = gs_raw_time();
#ifndef GS_SMPI
    gs_main_thread = pthread_self();
#endif
    PMPI_Comm_rank(MPI_COMM_WORLD, &gs.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &gs.world_size);
#ifdef GS_SMPI
    tool_comm = MPI_COMM_WORLD;
#else
    PMPI_Comm_dup(MPI_COMM_WORLD, &tool_comm);
#endif
    int rank = gs.world_rank, size = gs.world_size;
    int *ids = malloc((size_t)size * sizeof(int));
    for (int r = 0; r < size; r++) ids[r] = r;
    gs_tc_group_init(&gs_tc_world, tool_comm, ids, size, rank);

    /* Who am I: host and metahost, gathered everywhere (system tree, sync topology) with
     * whether this rank resolved its metahost: one gather and one broadcast. */
    char host[GS_NAME_LEN] = "", metahost[GS_NAME_LEN] = "", err[8192] = "";
    int len = 0;
    char procname[MPI_MAX_PROCESSOR_NAME] = "";
    PMPI_Get_processor_name(procname, &len);
    snprintf(host, sizeof host, "%s", procname);
    int bad = gs_metahost_resolve(rank, host, metahost, sizeof metahost, err, sizeof err) != 0;
    char mine[1 + 2 * GS_NAME_LEN];
    mine[0] = (char)bad;
    size_t hl = strlen(host) + 1, ml = strlen(metahost) + 1;
    memcpy(mine + 1, host, hl);
    memcpy(mine + 1 + hl, metahost, ml);
    char *all = NULL;
    int alen = 0;
    gs_tc_allgather(&gs_tc_world, mine, (int)(1 + hl + ml), &all, &alen);
    const char **block = malloc((size_t)size * sizeof *block);
    int *lens = malloc((size_t)size * sizeof(int));
    gs_tc_unpack(all, alen, size, block, lens);
    gs_run.hosts = calloc((size_t)size, GS_NAME_LEN);
    gs_run.metahosts = calloc((size_t)size, GS_NAME_LEN);
    int64_t first = INT64_MAX;
    for (int r = 0; r < size; r++) {
        if (!block[r] || lens[r] < 3) continue;
        if (block[r][0] && first == INT64_MAX) first = r;
        const char *h = block[r] + 1, *m = h + strlen(h) + 1;
        snprintf(gs_run.hosts + (size_t)r * GS_NAME_LEN, GS_NAME_LEN, "%s", h);
        snprintf(gs_run.metahosts + (size_t)r * GS_NAME_LEN, GS_NAME_LEN, "%s", m);
    }
    free(all), free(block), free(lens);
    if (gs_agree_failure(bad ? rank : -1, first, err)) {
        free(ids);
        return;
    }
    gs_topology_build(&gs_run.topo, size, gs_run.metahosts, gs_run.hosts, GS_NAME_LEN);
    gs_peers_init(tool_comm, rank, size, gs_run.hosts, GS_NAME_LEN);
    gs_parse_skew(metahost);
    /* (the variable is the job's: every rank decides alike whether clocks are shared) */
    gs_run.topo.skewed = getenv("GRIDSCOPE_TEST_CLOCK_SKEW") != NULL;

    /* The archive's processes: every rank, or with "%m" those of this metahost; its
     * master is the first of them. */
    char dir[4096];
    gs_trace_folder(dir, sizeof dir, metahost, &gs_run.parts);
    snprintf(gs_trace_dir, sizeof gs_trace_dir, "%s", dir);
    int mh = gs_run.topo.metahost[rank], nmembers = 0;
    for (int r = 0; r < size; r++)
        if (!gs_run.parts || gs_run.topo.metahost[r] == mh) ids[nmembers++] = r;
    gs_run.archive_master = ids[0] == rank;

    /* Folder (checked by each archive's master), buffer and chunk size: one agreement;
     * opening the archive: another. */
    int64_t key = -1;
    if (gs_run.archive_master && gs_check_folder(dir, err, sizeof err) != 0) key = gs_failure_key(1);
    const char *bufenv = getenv("GRIDSCOPE_BUFFER");
    gs_buffer_budget = bufenv && *bufenv ? gs_parse_size(bufenv) : 0;
    if (key < 0 && bufenv && *bufenv && gs_buffer_budget == 0) {
        snprintf(err, sizeof err, "GRIDSCOPE_BUFFER: bad size '%s' (want e.g. 16M)", bufenv);
        key = gs_failure_key(2);
    }
    if (!gs_buffer_budget) gs_buffer_budget = 16u << 20;
    /* OTF2 wants chunks of 256 KiB .. 16 MiB; at least two fit in the budget. One
     * archive has one chunk size (its anchor declares it): the smallest any rank wants,
     * agreed in the same reduction as the checks. */
    uint64_t chunk = 1u << 20;
    while (chunk > (256u << 10) && chunk * 2 > gs_buffer_budget) chunk >>= 1;
    int64_t agreed[2] = {key < 0 ? INT64_MAX : key, (int64_t)chunk};
    gs_tc_allreduce_min(&gs_tc_world, agreed, 2);
    if (gs_agree_failure(key, agreed[0], err)) {
        free(ids);
        return;
    }
    chunk = (uint64_t)agreed[1];
    if (gs_buffer_budget < 2 * chunk) gs_buffer_budget = 2 * chunk;
    gs_run.evt_chunk = chunk;

    gs_archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, chunk, 4u << 20,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    key = -1;
    if (!gs_archive) {
        snprintf(err, sizeof err, "%s: cannot open the OTF2 archive", dir);
        key = gs_failure_key(3);
    }
    int64_t first_open = gs_tc_allreduce_i64(&gs_tc_world, key < 0 ? INT64_MAX : key, 1);
    if (gs_agree_failure(key, first_open, err)) {
        /* Left open: OTF2 aborts when an archive without collective callbacks is closed,
         * and the serial ones would write an anchor file. */
        gs_archive = NULL;
        free(ids);
        return;
    }
    OTF2_Archive_SetFlushCallbacks(gs_archive, &gs_buffer_flush_callbacks, NULL);
    OTF2_Archive_SetMemoryCallbacks(gs_archive, &gs_buffer_memory_callbacks, NULL);
#ifndef GS_SMPI
    /* Threads of the rank get writers of their own while others write (threads.c). */
    OTF2_Pthread_Archive_SetLockingCallbacks(gs_archive, NULL);
#endif
    gs_otf2_set_collectives(gs_archive, tool_comm, ids, nmembers, rank);
    free(ids);
    OTF2_Archive_SetCreator(gs_archive, "gridscope collector");
    OTF2_Archive_OpenEvtFiles(gs_archive);
    gs_master.id = gs_location_id(rank, 0);
    gs_master.evt = OTF2_Archive_GetEvtWriter(gs_archive, gs_master.id);
    gs_reqtab_init(&gs_master.requests, 64);
    gs_reqtab_init(&gs_master.persistent, 16);
#ifndef GS_SMPI
    gs_me = &gs_master;
#endif
    gs_comms_init(rank, size);

    char *prog = NULL, **args = NULL;
    int nargs = 0;
    gs_read_cmdline(argc, argv, &prog, &nargs, &args);
    gs_run.program = strdup(prog);
    gs_run.nargs = nargs;
    gs_run.args = calloc((size_t)(nargs > 0 ? nargs : 1), sizeof(char *));
    for (int i = 0; i < nargs; i++) gs_run.args[i] = strdup(args[i]);
    gs_defs_share_cmdline(tool_comm);

    gs_run.offset_init = gs_sync_clocks(tool_comm, &gs_run.topo, rank, &gs_run.at_init);
    simulated_clock_is_global(&gs_run.offset_init);

    uint64_t t_init = gs.skewed ? gs_skewed_time(t_begin_raw) : t_begin_raw;
    uint64_t t_first = t_begin_raw;
#ifndef GS_SMPI
    if (t_loaded && t_loaded < t_first) t_first = t_loaded;
#endif
    gs_program_begin = gs.skewed ? gs_skewed_time(t_first) : t_first;
    gs_defs_write_provisional(dir, tool_comm, gs_program_begin);
    gs_defs_write_provisional_local(dir);
    if (gs_run.archive_master && !gs_run.parts) gs_defs_write_run_info(dir);
    OTF2_EvtWriter_ProgramBegin(gs_master.evt, NULL, gs_program_begin, GS_STR_PROGRAM,
                                (uint32_t)gs_run.nargs_shared, gs_run.arg_refs);
    OTF2_EvtWriter_Enter(gs_master.evt, NULL, t_init, init_region);
    OTF2_EvtWriter_Leave(gs_master.evt, NULL, gs_time(), init_region);
    gs_threads_start(gs_archive, rank);
    __atomic_store_n(&gs.active, 1, __ATOMIC_RELEASE);
#ifndef GS_SMPI
    gs_install_crash_handlers();
#endif
}

/* Closes this rank's event writer and writes its local definitions. final: after a
 * normal finalize (mapping tables complete), else after a crash. */
static void close_local(int final)
{
    uint64_t nevents = 0;
    OTF2_EvtWriter_GetNumberOfEvents(gs_master.evt, &nevents);
    gs_run.nevents = nevents;
    OTF2_Archive_CloseEvtWriter(gs_archive, gs_master.evt);
    gs_master.evt = NULL;
    gs_defs_write_local_all(gs_archive, gs.world_rank, final);
}

/* After a wait of MPI_Finalize in the collector's collectives (gs_finalize_state): 1 if
 * finalize goes on writing, 0 if a crash flush has taken its events over meanwhile. */
static int finalize_goes_on(int state)
{
    return __atomic_compare_exchange_n(&gs_finalize_state, &state, GS_FIN_NONE, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

void gs_measurement_finalize_begin(void)
{
    if (!gs.active) return;
    gs_loc_t *L = &gs_master;
    OTF2_EvtWriter_Enter(L->evt, NULL, gs_time(), GS_REGION_MPI_Finalize);
    __atomic_store_n(&gs.active, 0, __ATOMIC_RELEASE);
#ifdef GS_SMPI
    /* The collector's messages go over MPI_COMM_WORLD here: once every rank is in
     * MPI_Finalize no receive of the program is pending that could take one of them. A
     * barrier is a collective, so it cannot take a program's message either. */
    PMPI_Barrier(MPI_COMM_WORLD);
#endif
    __atomic_store_n(&gs_finalize_state, GS_FIN_SYNC, __ATOMIC_RELEASE);
    gs_run.offset_fin = gs_sync_clocks(tool_comm, &gs_run.topo, gs.world_rank, &gs_run.at_fin);
    if (!finalize_goes_on(GS_FIN_SYNC)) return;
    simulated_clock_is_global(&gs_run.offset_fin);
    gs_run.has_fin = 1;
    uint64_t t_end = gs_time();
    OTF2_EvtWriter_Leave(L->evt, NULL, t_end, GS_REGION_MPI_Finalize);
    /* User or compiler regions still open end with the measurement. */
    for (int d = L->depth; d > 0; d--)
        if (d <= 256) OTF2_EvtWriter_Leave(L->evt, NULL, t_end, L->stack[d - 1]);
    L->depth = 0;
    OTF2_EvtWriter_ProgramEnd(L->evt, NULL, t_end, 0);
    /* The other threads have finished their MPI calls (MPI_Finalize requires it). */
    gs_threads_close(t_end, 0);

    OTF2_Archive_CloseEvtFiles(gs_archive);
    __atomic_store_n(&gs_finalize_state, GS_FIN_UNIFY, __ATOMIC_RELEASE);
    gs_defs_unify(tool_comm, gs_program_begin, t_end);
    if (!finalize_goes_on(GS_FIN_UNIFY)) return;
    OTF2_Archive_OpenDefFiles(gs_archive);
    close_local(1);
    OTF2_Archive_CloseDefFiles(gs_archive);
    if (gs_run.archive_master) gs_defs_write_global(OTF2_Archive_GetGlobalDefWriter(gs_archive));
    OTF2_Archive_Close(gs_archive);
    gs_archive = NULL;
    if (gs_run.archive_master && !gs_run.parts) gs_defs_remove_run_info(gs_trace_dir);
    __atomic_store_n(&gs_crashed, 2, __ATOMIC_RELEASE); /* nothing left to flush at exit */
}

void gs_measurement_abort(int errorcode)
{
    if (!gs_on()) return;
    gs_enter(GS_REGION_MPI_Abort); /* on the calling thread's location */
    gs_cur()->waiting = 1;         /* it writes nothing more: the flush may close it */
    gs_crash_flush(errorcode);
}
