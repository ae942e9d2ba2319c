/* Internal interface between the generated MPI wrappers and the measurement core.
 * Wrappers stay thin: they call these functions, which hold the logic. */
#ifndef GS_COLLECTOR_H
#define GS_COLLECTOR_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <stdint.h>
#include <string.h>

#include "reqtab.h"

/* Only the MPI wrappers and the user-region API are visible outside the library; the
 * rest is hidden (-fvisibility=hidden) so it cannot clash with the program's symbols. */
#define GS_PUBLIC __attribute__((visibility("default")))

/* Measurement state of this process (one MPI rank; SMPI privatises it per rank). */
typedef struct {
    int active;            /* events are being recorded */
    OTF2_EvtWriter *evt;   /* this rank's event writer */
    int world_rank, world_size;
    int64_t skew_offset;   /* test-only clock skew (GRIDSCOPE_TEST_CLOCK_SKEW) */
    double skew_drift;
    int skewed;
    uint64_t next_request_id;
    gs_reqtab_t requests;   /* active requests */
    gs_reqtab_t persistent; /* persistent requests' parameters, from *_init to free */
    int depth;             /* open regions (for closing them after a crash) */
    uint32_t stack[256];
} gs_state_t;

extern gs_state_t gs;

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
static inline int gs_on(void)
{
    return gs.active;
}
#else
#include <pthread.h>
/* Only the thread that initialised MPI is recorded (one location per rank); MPI calls
 * from other threads pass through unrecorded. */
extern pthread_t gs_main_thread;
static inline int gs_on(void)
{
    return gs.active && pthread_equal(pthread_self(), gs_main_thread);
}
#endif

/* Enter and Leave; events written at the same instant share one timestamp (an MpiSend
 * right after its Enter, a CollectiveEnd right before its Leave), which saves a clock
 * read and a 9-byte timestamp record each. */
static inline uint64_t gs_enter(uint32_t region)
{
    uint64_t t = gs_time();
    if (gs.depth < 256) gs.stack[gs.depth] = region;
    gs.depth++;
    OTF2_EvtWriter_Enter(gs.evt, NULL, t, region);
    return t;
}

static inline void gs_leave_at(uint32_t region, uint64_t t)
{
    if (gs.depth > 0) gs.depth--;
    OTF2_EvtWriter_Leave(gs.evt, NULL, t, region);
}

static inline void gs_leave(uint32_t region)
{
    gs_leave_at(region, gs_time());
}

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

/* Point-to-point events (events.c); peers are ranks in comm. */
void gs_ev_send(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type);
void gs_ev_recv(uint64_t t, const MPI_Status *st, MPI_Comm comm);
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
    OTF2_EvtWriter_MpiCollectiveBegin(gs.evt, NULL, t);
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

#endif
