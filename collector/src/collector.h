/* Internal interface between the generated MPI wrappers and the measurement core.
 * Wrappers stay thin: they call these functions, which hold the logic. */
#ifndef GS_COLLECTOR_H
#define GS_COLLECTOR_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "reqtab.h"
#include "xferbytes.h"

/* Only the MPI wrappers and the user-region API are visible outside the library; the
 * rest is hidden (-fvisibility=hidden) so it cannot clash with the program's symbols. */
#define GS_PUBLIC __attribute__((visibility("default")))

/* A handle value and its local ref as of a table generation (iorma.c). */
typedef struct {
    uint64_t key;
    uint32_t ref, gen;
} gs_handle_cache_t;

/* What is recorded on one OTF2 location: the rank's master thread, or another thread of
 * the rank that called MPI or entered a user region (docs/collector.md, "Threads").
 * Only its own thread writes it, so none of it needs a lock. */
typedef struct {
    OTF2_EvtWriter *evt;    /* this location's event writer */
    uint64_t id;            /* OTF2 location id: rank, plus thread number << 32 */
    uint64_t next_request_id;
    gs_reqtab_t requests;   /* active requests */
    gs_reqtab_t persistent; /* persistent requests' parameters, from *_init to free */
    gs_rma_pending_t rma;   /* RMA operations not completed yet (iorma.c) */
    /* the window and file handle this thread looked up last (iorma.c), valid while the
     * process's tables keep their generation */
    gs_handle_cache_t last_win, last_file;
    int depth;              /* open regions (for closing them at the end or after a crash) */
    uint32_t stack[256];
    uint64_t nevents;       /* event count, once the writer is closed */
    int closed;             /* its events are complete (part of the trace) */
    int waiting;            /* its thread waits in MPI_Abort for the crash flush */
    /* its thread is inside an event write: a crash flush must not touch the writer now */
    volatile sig_atomic_t writing;
} gs_loc_t;

/* Measurement state of this process (one MPI rank; SMPI privatises it per rank). */
typedef struct {
    int active;            /* events are being recorded */
    int world_rank, world_size;
    int64_t skew_offset;   /* test-only clock skew (GRIDSCOPE_TEST_CLOCK_SKEW) */
    double skew_drift;
    int skewed;
} gs_state_t;

extern gs_state_t gs;
extern gs_loc_t gs_master; /* the location of the thread that initialised MPI */

/* Timestamps: simulated time under SMPI, a monotonic ns clock otherwise. */
#ifdef GS_SMPI
static inline uint64_t gs_raw_time(void)
{
    return (uint64_t)(PMPI_Wtime() * 1e9);
}
#else
#include <time.h>
static inline uint64_t gs_raw_time(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
uint64_t gs_skewed_time(uint64_t raw);
/* Time taken just before PMPI_Init; under SMPI the clock starts with MPI (0 = later). */
static inline uint64_t gs_init_time(void)
{
#ifdef GS_SMPI
    return 0;
#else
    return gs_raw_time();
#endif
}
static inline uint64_t gs_time(void)
{
    uint64_t t = gs_raw_time();
    return gs.skewed ? gs_skewed_time(t) : t;
}

/* Region ids: MPI functions are numbered by the generator (regions.h), user regions
 * follow from GS_FIRST_USER_REGION. */
#include "gs_regions.h"

#ifdef GS_SMPI
/* SMPI runs every rank as a context of one system thread: no thread locations. */
static inline gs_loc_t *gs_cur(void)
{
    return &gs_master;
}
static inline int gs_on(void)
{
    return gs.active;
}
#else
/* The calling thread's location: set for the thread that initialised MPI at MPI_Init, for
 * any other thread when it first calls a wrapper while the measurement is on (threads.c).
 * initial-exec: a single %fs-relative load (the library is loaded at start-up). */
extern __thread gs_loc_t *gs_me __attribute__((tls_model("initial-exec")));
int gs_thread_attach(void);
static inline gs_loc_t *gs_cur(void)
{
    return gs_me;
}
static inline int gs_on(void)
{
    if (__builtin_expect(gs_me != NULL, 1)) return __atomic_load_n(&gs.active, __ATOMIC_RELAXED);
    return __atomic_load_n(&gs.active, __ATOMIC_RELAXED) && gs_thread_attach();
}
#endif

/* Tables shared by the threads of a process (communicators, user and compiler regions)
 * are changed and read under this lock (threads.c). */
void gs_lock(void);
void gs_unlock(void);

/* Every event write goes through GS_EMIT: a signal that ends the program may arrive
 * while libotf2 is half-way through a record, and the crash flush, which writes to the
 * same buffer from its own thread, would then interleave its records with the half-written
 * one (readers misparse the rest of the file). The handler sees `writing` and lets the
 * write finish; gs_write_end then handles the signal (core_crash.c). */
#ifdef GS_SMPI
#define GS_EMIT(L, call) (call)
#else
extern volatile sig_atomic_t gs_signal_waiting;
void gs_take_waiting_signal(void);
static inline void gs_write_begin(gs_loc_t *L)
{
    L->writing = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void gs_write_end(gs_loc_t *L)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    L->writing = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(gs_signal_waiting != 0, 0)) gs_take_waiting_signal();
}
#define GS_EMIT(L, call)                                                                   \
    do {                                                                                   \
        gs_loc_t *gs_emit_loc_ = (L);                                                      \
        gs_write_begin(gs_emit_loc_);                                                      \
        call;                                                                              \
        gs_write_end(gs_emit_loc_);                                                        \
    } while (0)
#endif

/* Enter and Leave; events written at the same instant share one timestamp (an MpiSend
 * right after its Enter, a CollectiveEnd right before its Leave), which saves a clock
 * read and a 9-byte timestamp record each. */
static inline uint64_t gs_enter(uint32_t region)
{
    uint64_t t = gs_time();
    gs_loc_t *L = gs_cur();
    if (L->depth < 256) L->stack[L->depth] = region;
    L->depth++;
    GS_EMIT(L, OTF2_EvtWriter_Enter(L->evt, NULL, t, region));
    return t;
}

static inline void gs_leave_at(uint32_t region, uint64_t t)
{
    gs_loc_t *L = gs_cur();
    if (L->depth > 0) L->depth--;
    GS_EMIT(L, OTF2_EvtWriter_Leave(L->evt, NULL, t, region));
}

static inline void gs_leave(uint32_t region)
{
    gs_leave_at(region, gs_time());
}

/* Requests the generated Wait/Test-all/any/some wrappers handle without heap allocation. */
#define GS_STACK_REQS 64

static inline uint64_t gs_handle_key(const void *handle, size_t size)
{
    uint64_t k = 0;
    memcpy(&k, handle, size < sizeof k ? size : sizeof k);
    return k;
}
#define GS_REQ_KEY(r) gs_handle_key(&(r), sizeof(MPI_Request))

/* Communicators (comms.c) */
uint32_t gs_comm_ref(MPI_Comm comm);
void gs_comm_created(MPI_Comm newcomm);
void gs_comm_freed(MPI_Comm comm);
/* MPI_Comm_set_name: the communicator's definition takes its new name. */
void gs_comm_named(MPI_Comm comm);

/* Point-to-point events (events.c); peers are ranks in comm. */
void gs_ev_send(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type);
/* the attribute (its OTF2 ref) marking receives posted with MPI_ANY_SOURCE */
#define GS_ATTR_ANY_SOURCE 0
#define GS_ATTR_ANY_SOURCE_NAME "gridscope::mpi_any_source"
void gs_ev_recv(uint64_t t, const MPI_Status *st, MPI_Comm comm, int posted_source);
void gs_ev_isend(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type,
                 MPI_Request req);
void gs_ev_irecv_request(uint64_t t, int source, MPI_Comm comm, MPI_Request req);
void gs_ev_cancel(MPI_Request req);
/* Persistent requests: remember the parameters; each MPI_Start is a new Isend/Irecv. */
void gs_ev_persistent(MPI_Request req, int kind, int peer, int tag, MPI_Comm comm, int count,
                      MPI_Datatype type);
void gs_ev_start(uint64_t t, MPI_Request req);
void gs_ev_request_free(MPI_Request req);
/* Called after a Wait/Test family call for each request that completed: handle is the
 * request's value before the call, st its status. */
void gs_ev_complete(uint64_t t, uint64_t handle, const MPI_Status *st);
void gs_ev_request_tested(uint64_t t, uint64_t handle);

/* Collectives */
static inline void gs_coll_begin(uint64_t t)
{
    gs_loc_t *L = gs_cur();
    GS_EMIT(L, OTF2_EvtWriter_MpiCollectiveBegin(L->evt, NULL, t));
}
void gs_coll_end(uint64_t t, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent,
                 uint64_t recvd);

/* Non-blocking collectives (Score-P's sequence): NonBlockingCollectiveRequest(id) at the
 * call (Enter's time), then the request is tracked; the Wait/Test that completes it writes
 * NonBlockingCollectiveComplete(op, comm, root, sent, received, id) (gs_ev_complete). */
uint64_t gs_icoll_request(uint64_t t);
void gs_icoll_started(MPI_Request req, uint64_t id, OTF2_CollectiveOp op, MPI_Comm comm,
                      int root, uint64_t sent, uint64_t recvd);

/* Init / finalize / abort (core.c) */
void gs_measurement_init(int *argc, char ***argv, uint64_t t_begin_raw, uint32_t init_region);
void gs_measurement_finalize_begin(void);
void gs_measurement_abort(int errorcode);

/* Byte counting adapters for the generated collective wrappers (mpi_bytes.c). */
#include "gs_mpi_bytes.h"
/* MPI-IO and RMA (iorma.c) */
#include "iorma.h"

#endif
