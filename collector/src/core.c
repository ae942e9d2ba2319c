/* Measurement core: start-up at MPI_Init, archive, clock sync, finalize, crash flush. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "comms.h"
#include "core_checks.h"
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
#include "writethrough.h"

gs_state_t gs;
gs_loc_t gs_master;
#ifndef GS_SMPI
pthread_t gs_main_thread;
#endif
gs_run_t gs_run;

static OTF2_Archive *archive;
/* The collector's own messages: a private copy of MPI_COMM_WORLD, except under SMPI,
 * where SimGrid makes creating a communicator cost one WAN round trip per rank
 * (Comm::init_smp): there they go over MPI_COMM_WORLD itself, with tags of their own,
 * only where no receive of the program can be pending (start-up, and finalize after a
 * barrier; see gs_measurement_finalize_begin). */
static MPI_Comm tool_comm = MPI_COMM_NULL;
static uint64_t t_program_begin;
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
static char trace_dir[4096];
static int crashed;
#ifndef GS_SMPI
/* This process flushed because another rank's process asked it to (peers.h). */
static int asked_by_peer;
#endif
/* How long a crashing process waits for the other ranks on its host to flush (peers.h),
 * and for its own flush thread; both end as soon as the work is done. */
enum { PEER_WAIT_MS = 10000, FLUSH_WAIT_MS = 2000 + PEER_WAIT_MS };

uint64_t gs_skewed_time(uint64_t raw)
{
    return (uint64_t)gs_skew_apply((int64_t)raw, gs.skew_offset, gs.skew_drift);
}

/* ---------- event buffer: bounded memory, flushed to disk when full ---------- */

typedef struct {
    void **chunks;
    uint64_t *sizes;
    size_t n, cap;
    uint64_t bytes; /* event chunks held */
#ifndef GS_SMPI
    gs_writethrough_t file; /* the location's event file (writethrough.h) */
#endif
} chunk_list_t;

/* The budget is the process's: its locations (one per recording thread) share it, so
 * the count is atomic and a flush gives back what that location held. */
static uint64_t buffer_budget, buffer_used;

static void *buf_alloc(void *u, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                       uint64_t size)
{
    (void)u, (void)loc;
    chunk_list_t *l = *per;
    /* Returning NULL makes OTF2 flush this buffer to disk and reuse its chunks; a
     * location that holds none yet gets its first one whatever the others hold. */
    if (type == OTF2_FILETYPE_EVENTS && l && l->n &&
        __atomic_load_n(&buffer_used, __ATOMIC_RELAXED) + size > buffer_budget)
        return NULL;
    if (!l) {
        *per = l = calloc(1, sizeof *l);
#ifndef GS_SMPI
        l->file.fd = -1;
#endif
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->chunks = realloc(l->chunks, l->cap * sizeof *l->chunks);
        l->sizes = realloc(l->sizes, l->cap * sizeof *l->sizes);
    }
    void *c = malloc(size);
    if (!c) return NULL;
    l->sizes[l->n] = size;
    l->chunks[l->n++] = c;
    if (type == OTF2_FILETYPE_EVENTS) {
        l->bytes += size;
        __atomic_add_fetch(&buffer_used, size, __ATOMIC_RELAXED);
    }
    return c;
}

#ifndef GS_SMPI
/* Set by pre_flush for the flush that follows on this thread: the last one of a
 * location (its writer is being closed) ends with a partly used chunk, which libotf2
 * writes itself, together with everything it still holds, when it closes the file. */
static __thread int flush_is_final;

/* After an intermediate flush: the chunks libotf2 has just written are still ours; put
 * the same bytes in the event file now (writethrough.h). */
static void write_through(chunk_list_t *l, OTF2_LocationRef loc)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces/%" PRIu64 ".evt", trace_dir, (uint64_t)loc);
    gs_writethrough(&l->file, path, l->chunks, l->sizes, l->n);
}
#endif

static void buf_free_all(void *u, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                         bool final)
{
    (void)u, (void)loc;
    chunk_list_t *l = *per;
    if (!l) return;
#ifndef GS_SMPI
    if (type == OTF2_FILETYPE_EVENTS && !final && !flush_is_final && l->n)
        write_through(l, loc);
    if (final) gs_writethrough_close(&l->file);
#endif
    for (size_t i = 0; i < l->n; i++) free(l->chunks[i]);
    if (type == OTF2_FILETYPE_EVENTS) __atomic_sub_fetch(&buffer_used, l->bytes, __ATOMIC_RELAXED);
    l->bytes = 0;
    l->n = 0;
    if (final) {
        free(l->chunks);
        free(l->sizes);
        free(l);
        *per = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = {buf_alloc, buf_free_all};

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c,
                                bool final)
{
    (void)u, (void)t, (void)l, (void)c;
#ifndef GS_SMPI
    flush_is_final = final;
#else
    (void)final;
#endif
    return OTF2_FLUSH;
}

/* OTF2 records each intermediate flush as a BufferFlush event ending at this time. */
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u, (void)t, (void)l;
    return gs_time();
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* "16M", "512K", "1G", plain bytes. Returns 0 on a bad value. */
uint64_t gs_parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0) return 0;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    return *end ? 0 : (uint64_t)v;
}

/* ---------- crash flush ---------- */


static void crash_flush_now(int exit_status)
{
    /* Signals may arrive on any thread (Open MPI runs helper threads) while the main
     * thread heads for exit: the first caller flushes, later ones wait until it is done,
     * so the process does not end half-way through writing. */
    int expected = 0;
    if (!__atomic_compare_exchange_n(&crashed, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < FLUSH_WAIT_MS && __atomic_load_n(&crashed, __ATOMIC_ACQUIRE) == 1; i++)
            usleep(1000);
        return;
    }
    if (gs.active) {
        gs.active = 0;
#ifndef GS_SMPI
        /* The launcher may have closed our stdout/stderr already: a stray message must
         * not end the process half-way through the flush. */
        signal(SIGPIPE, SIG_IGN);
#endif
        uint64_t now = gs_time();
        gs_loc_t *L = &gs_master;
        /* Close the regions still open so the trace stays well nested. */
        for (int d = L->depth; d > 0; d--)
            if (d <= 256) OTF2_EvtWriter_Leave(L->evt, NULL, now, L->stack[d - 1]);
        OTF2_EvtWriter_ProgramEnd(L->evt, NULL, now, exit_status);
        /* Events first: they matter most if the process is killed meanwhile. */
        OTF2_EvtWriter_GetNumberOfEvents(L->evt, &gs_run.nevents);
        OTF2_Archive_CloseEvtWriter(archive, L->evt);
        L->evt = NULL;
        /* Other threads may still be running: only those outside any region are
         * closed (best effort, docs/collector.md "Threads"). */
        gs_threads_close(now, 1);
        /* Local definitions stay the start-up ones; the side file lets
         * gridscope-trace-repair complete them (docs/collector.md, "Crashes"). */
        if (!gs_run.parts) gs_defs_write_crash_sidecar(trace_dir, t_program_begin, now);
#ifndef GS_SMPI
        if (!asked_by_peer) gs_peers_flush_and_wait(trace_dir, !gs_run.parts, PEER_WAIT_MS);
#endif
    }
    __atomic_store_n(&crashed, 2, __ATOMIC_RELEASE);
}

#ifdef GS_SMPI
void gs_crash_flush(int exit_status)
{
    crash_flush_now(exit_status);
}
#else
/* The flush runs on a thread of its own, started at MPI_Init and waiting on a semaphore:
 * a signal may interrupt the main thread inside malloc or stdio, and flushing from the
 * handler would then deadlock on the lock it holds. Here the handler only posts the
 * semaphore (async-signal-safe) and waits; the other thread allocates from its own
 * malloc arena. */
static sem_t flush_request;
static int flush_status, flusher_started;

static void *flusher_main(void *arg)
{
    (void)arg;
    while (sem_wait(&flush_request) != 0) {
    }
    crash_flush_now(flush_status);
    return NULL;
}

static void start_flusher(void)
{
    pthread_t t;
    pthread_attr_t attr;
    sigset_t all, old;
    if (sem_init(&flush_request, 0, 0) != 0) return;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* the flusher never takes signals */
    flusher_started = pthread_create(&t, &attr, flusher_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

void gs_crash_flush(int exit_status)
{
    if (!flusher_started) {
        crash_flush_now(exit_status);
        return;
    }
    if (__atomic_load_n(&crashed, __ATOMIC_ACQUIRE) == 0) {
        flush_status = exit_status;
        sem_post(&flush_request);
    }
    for (int i = 0; i < FLUSH_WAIT_MS && __atomic_load_n(&crashed, __ATOMIC_ACQUIRE) != 2; i++)
        usleep(1000);
}
#endif

#ifndef GS_SMPI
/* Fatal signals: flush, then hand the signal to whoever handled it before us (Open MPI
 * installs its own SIGSEGV/SIGBUS handlers in MPI_Init) or to the default action. */
static const int fatal_signals[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)
static struct sigaction previous[NFATAL];


/* The sender of the last SIGTERM that a helper thread forwarded to the main thread. */
static volatile pid_t forwarded_sender;

/* A SIGTERM from another rank's process asking for a flush (peers.h): once flushed,
 * this process waits for that one to end (the launcher then kills the job) rather than
 * end first, which would make the launcher kill ranks still flushing. */
static int peer_request(int sig, pid_t sender)
{
    if (sig != SIGTERM || sender == 0 || !gs_peers_is_peer(sender)) return 0;
    if (__atomic_load_n(&crashed, __ATOMIC_ACQUIRE) != 0) return 1; /* flushing already */
    asked_by_peer = 1;
    gs_crash_flush(128 + SIGKILL); /* what the launcher is about to do */
    for (int i = 0; i < FLUSH_WAIT_MS && kill(sender, 0) == 0; i++) usleep(1000);
    return 0;
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    pid_t sender = info && info->si_code == SI_USER ? info->si_pid : 0;
    /* Process-directed signals may land on one of the MPI library's helper threads; the
     * main thread must do the flush, or it may leave the process meanwhile. */
    if (!pthread_equal(pthread_self(), gs_main_thread)) {
        forwarded_sender = sender;
        pthread_kill(gs_main_thread, sig);
        return;
    }
    if (sender == getpid()) sender = forwarded_sender;
    if (peer_request(sig, sender)) return;
    gs_crash_flush(128 + sig);
    for (size_t i = 0; i < NFATAL; i++)
        if (fatal_signals[i] == sig) sigaction(sig, &previous[i], NULL);
    raise(sig);
}

static void on_exit_without_finalize(void)
{
    gs_crash_flush(0);
}

/* Open MPI leaves through _exit() when it learns that the job is being aborted, possibly
 * from a helper thread while the main thread is still flushing. Interposing _exit lets
 * that flush finish (or does it) first; a forked child never touches the trace. */
static pid_t measured_pid;

GS_PUBLIC void _exit(int status)
{
    if (measured_pid && getpid() == measured_pid) {
        if (pthread_equal(pthread_self(), gs_main_thread)) {
            gs_crash_flush(status);
        } else if (__atomic_load_n(&crashed, __ATOMIC_ACQUIRE) != 2) {
            /* The main thread does the flush: ask it to, wait a moment. */
            pthread_kill(gs_main_thread, SIGTERM);
            for (int i = 0; i < FLUSH_WAIT_MS && __atomic_load_n(&crashed, __ATOMIC_ACQUIRE) != 2;
                 i++)
                usleep(1000);
        }
    }
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    start_flusher();
    for (size_t i = 0; i < NFATAL; i++) sigaction(fatal_signals[i], &sa, &previous[i]);
    measured_pid = getpid();
    atexit(on_exit_without_finalize);
}
#endif

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

    /* The archive's processes: every rank, or with "%m" those of this metahost; its
     * master is the first of them. */
    char dir[4096];
    gs_trace_folder(dir, sizeof dir, metahost, &gs_run.parts);
    snprintf(trace_dir, sizeof trace_dir, "%s", dir);
    int mh = gs_run.topo.metahost[rank], nmembers = 0;
    for (int r = 0; r < size; r++)
        if (!gs_run.parts || gs_run.topo.metahost[r] == mh) ids[nmembers++] = r;
    gs_run.archive_master = ids[0] == rank;

    /* Folder (checked by each archive's master), buffer and chunk size: one agreement;
     * opening the archive: another. */
    int64_t key = -1;
    if (gs_run.archive_master && gs_check_folder(dir, err, sizeof err) != 0) key = gs_failure_key(1);
    const char *bufenv = getenv("GRIDSCOPE_BUFFER");
    buffer_budget = bufenv && *bufenv ? gs_parse_size(bufenv) : 0;
    if (key < 0 && bufenv && *bufenv && buffer_budget == 0) {
        snprintf(err, sizeof err, "GRIDSCOPE_BUFFER: bad size '%s' (want e.g. 16M)", bufenv);
        key = gs_failure_key(2);
    }
    if (!buffer_budget) buffer_budget = 16u << 20;
    /* OTF2 wants chunks of 256 KiB .. 16 MiB; at least two fit in the budget. One
     * archive has one chunk size (its anchor declares it): the smallest any rank wants,
     * agreed in the same reduction as the checks. */
    uint64_t chunk = 1u << 20;
    while (chunk > (256u << 10) && chunk * 2 > buffer_budget) chunk >>= 1;
    int64_t agreed[2] = {key < 0 ? INT64_MAX : key, (int64_t)chunk};
    gs_tc_allreduce_min(&gs_tc_world, agreed, 2);
    if (gs_agree_failure(key, agreed[0], err)) {
        free(ids);
        return;
    }
    chunk = (uint64_t)agreed[1];
    if (buffer_budget < 2 * chunk) buffer_budget = 2 * chunk;
    gs_run.evt_chunk = chunk;

    archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, chunk, 4u << 20,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    key = -1;
    if (!archive) {
        snprintf(err, sizeof err, "%s: cannot open the OTF2 archive", dir);
        key = gs_failure_key(3);
    }
    int64_t first_open = gs_tc_allreduce_i64(&gs_tc_world, key < 0 ? INT64_MAX : key, 1);
    if (gs_agree_failure(key, first_open, err)) {
        /* Left open: OTF2 aborts when an archive without collective callbacks is closed,
         * and the serial ones would write an anchor file. */
        archive = NULL;
        free(ids);
        return;
    }
    OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
    OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
#ifndef GS_SMPI
    /* Threads of the rank get writers of their own while others write (threads.c). */
    OTF2_Pthread_Archive_SetLockingCallbacks(archive, NULL);
#endif
    gs_otf2_set_collectives(archive, tool_comm, ids, nmembers, rank);
    free(ids);
    OTF2_Archive_SetCreator(archive, "gridscope collector");
    OTF2_Archive_OpenEvtFiles(archive);
    gs_master.id = gs_location_id(rank, 0);
    gs_master.evt = OTF2_Archive_GetEvtWriter(archive, gs_master.id);
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
    t_program_begin = gs.skewed ? gs_skewed_time(t_first) : t_first;
    gs_defs_write_provisional(dir, tool_comm, t_program_begin);
    gs_defs_write_provisional_local(dir);
    if (gs_run.archive_master && !gs_run.parts) gs_defs_write_run_info(dir);
    OTF2_EvtWriter_ProgramBegin(gs_master.evt, NULL, t_program_begin, GS_STR_PROGRAM,
                                (uint32_t)gs_run.nargs_shared, gs_run.arg_refs);
    OTF2_EvtWriter_Enter(gs_master.evt, NULL, t_init, init_region);
    OTF2_EvtWriter_Leave(gs_master.evt, NULL, gs_time(), init_region);
    gs_threads_start(archive, rank);
    __atomic_store_n(&gs.active, 1, __ATOMIC_RELEASE);
#ifndef GS_SMPI
    install_handlers();
#endif
}

/* Closes this rank's event writer and writes its local definitions. final: after a
 * normal finalize (mapping tables complete), else after a crash. */
static void close_local(int final)
{
    uint64_t nevents = 0;
    OTF2_EvtWriter_GetNumberOfEvents(gs_master.evt, &nevents);
    gs_run.nevents = nevents;
    OTF2_Archive_CloseEvtWriter(archive, gs_master.evt);
    gs_master.evt = NULL;
    gs_defs_write_local_all(archive, gs.world_rank, final);
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
    gs_run.offset_fin = gs_sync_clocks(tool_comm, &gs_run.topo, gs.world_rank, &gs_run.at_fin);
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

    OTF2_Archive_CloseEvtFiles(archive);
    gs_defs_unify(tool_comm, t_program_begin, t_end);
    OTF2_Archive_OpenDefFiles(archive);
    close_local(1);
    OTF2_Archive_CloseDefFiles(archive);
    if (gs_run.archive_master) gs_defs_write_global(OTF2_Archive_GetGlobalDefWriter(archive));
    OTF2_Archive_Close(archive);
    archive = NULL;
    if (gs_run.archive_master && !gs_run.parts) gs_defs_remove_run_info(trace_dir);
    __atomic_store_n(&crashed, 2, __ATOMIC_RELEASE); /* nothing left to flush at exit */
}

void gs_measurement_abort(int errorcode)
{
    if (!gs_on()) return;
    gs_enter(GS_REGION_MPI_Abort); /* on the calling thread's location */
    gs_cur()->waiting = 1;         /* it writes nothing more: the flush may close it */
    gs_crash_flush(errorcode);
}
