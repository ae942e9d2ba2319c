/* Thread locations (threads.h) and the lock of the tables threads share. */
#include <pthread.h>
#include <stdlib.h>

#include "collector.h"
#include "threads.h"

#ifdef GS_SMPI
/* One system thread runs every rank, and an MPI call may switch ranks: no locking. */
void gs_lock(void) {}
void gs_unlock(void) {}
void gs_threads_start(OTF2_Archive *archive, int rank)
{
    (void)archive, (void)rank;
}
uint32_t gs_thread_count(void)
{
    return 0;
}
gs_loc_t *gs_thread(uint32_t i)
{
    (void)i;
    return NULL;
}
void gs_threads_close(uint64_t t_end, int idle_only)
{
    (void)t_end, (void)idle_only;
}
int gs_thread_closed(const gs_loc_t *L)
{
    (void)L;
    return 0;
}
#else
__thread gs_loc_t *gs_me __attribute__((tls_model("initial-exec")));

static pthread_mutex_t tables = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static OTF2_Archive *archive;
static int my_rank;
static gs_loc_t **threads;
static uint32_t nthreads, cap;

void gs_lock(void)
{
    pthread_mutex_lock(&tables);
}

void gs_unlock(void)
{
    pthread_mutex_unlock(&tables);
}

void gs_threads_start(OTF2_Archive *a, int rank)
{
    pthread_mutex_lock(&registry);
    archive = a;
    my_rank = rank;
    pthread_mutex_unlock(&registry);
}

/* A thread whose location could not be created runs unmeasured. */
static __thread int unmeasured __attribute__((tls_model("initial-exec")));

int gs_thread_attach(void)
{
    if (unmeasured) return 0;
    pthread_mutex_lock(&registry);
    /* Checked again under the lock: MPI_Finalize closes the archive holding it. */
    if (!__atomic_load_n(&gs.active, __ATOMIC_ACQUIRE) || !archive) {
        pthread_mutex_unlock(&registry);
        return 0;
    }
    gs_loc_t *L = calloc(1, sizeof *L);
    if (L && nthreads == cap) {
        gs_loc_t **grown = realloc(threads, (cap ? 2 * cap : 8) * sizeof *threads);
        if (grown) {
            threads = grown;
            cap = cap ? 2 * cap : 8;
        }
    }
    if (L && nthreads < cap) {
        L->id = gs_location_id(my_rank, nthreads + 1);
        /* The archive's locking callbacks (core.c) make this safe next to the other
         * threads' writing. */
        L->evt = OTF2_Archive_GetEvtWriter(archive, L->id);
    }
    if (!L || !L->evt || gs_reqtab_init(&L->requests, 64) || gs_reqtab_init(&L->persistent, 16)) {
        pthread_mutex_unlock(&registry);
        unmeasured = 1; /* a writer that was handed out stays unused: no events */
        return 0;
    }
    threads[nthreads++] = L;
    pthread_mutex_unlock(&registry);
    gs_me = L;
    return 1;
}

uint32_t gs_thread_count(void)
{
    pthread_mutex_lock(&registry);
    uint32_t n = nthreads;
    pthread_mutex_unlock(&registry);
    return n;
}

gs_loc_t *gs_thread(uint32_t i)
{
    pthread_mutex_lock(&registry);
    gs_loc_t *L = i < nthreads ? threads[i] : NULL;
    pthread_mutex_unlock(&registry);
    return L;
}

void gs_threads_close(uint64_t t_end, int idle_only)
{
    pthread_mutex_lock(&registry);
    for (uint32_t i = 0; i < nthreads; i++) {
        gs_loc_t *L = threads[i];
        if (!L->evt || (idle_only && ((L->depth > 0 && !L->waiting) || L->writing))) continue;
        /* Regions a thread left open (it ended inside a user region) end with the
         * measurement, as the master thread's do. */
        for (int d = L->depth; d > 0; d--)
            if (d <= 256) OTF2_EvtWriter_Leave(L->evt, NULL, t_end, L->stack[d - 1]);
        L->depth = 0;
        OTF2_EvtWriter_GetNumberOfEvents(L->evt, &L->nevents);
        OTF2_Archive_CloseEvtWriter(archive, L->evt);
        L->evt = NULL;
        L->closed = 1;
    }
    archive = NULL; /* no more thread locations */
    pthread_mutex_unlock(&registry);
}

int gs_thread_closed(const gs_loc_t *L)
{
    return L->closed;
}
#endif
