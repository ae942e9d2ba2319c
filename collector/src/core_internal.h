/* Private to the measurement core: the state that start-up and finalize (core.c), the
 * event buffer (core_buffer.c) and the crash flush (core_crash.c) share. */
#ifndef GS_CORE_INTERNAL_H
#define GS_CORE_INTERNAL_H
#include <stdint.h>
#include <otf2/otf2.h>

/* The rank's archive, open from start-up until finalize closes it. */
extern OTF2_Archive *gs_archive;
/* The trace folder (GRIDSCOPE_TRACE_DIR, "%m" resolved). */
extern char gs_trace_dir[4096];
/* The program's begin (ProgramBegin), on the corrected clock. */
extern uint64_t gs_program_begin;
/* Crash flush state: 0 none yet, 1 flushing, 2 done (or nothing left to flush). */
extern int gs_crashed;
/* Where MPI_Finalize is while it waits in the collector's collectives, its events not yet
 * on disk: a rank that ended without MPI_Finalize leaves the others waiting there until the
 * launcher ends them, and their crash flush must still write their events. */
enum {
    GS_FIN_NONE = 0,    /* not in MPI_Finalize, or past the point where it waits */
    GS_FIN_SYNC = 1,    /* in the clock synchronisation: MPI_Finalize's Leave not written */
    GS_FIN_UNIFY = 2,   /* in the unification: every event written, the writer still open */
    GS_FIN_FLUSHED = 3  /* a crash flush took the events over */
};
extern int gs_finalize_state;

/* The event buffer (core_buffer.c): the process's budget in bytes, set at start-up, and
 * the callbacks that hold the archive's chunks in it. */
extern uint64_t gs_buffer_budget;
extern const OTF2_MemoryCallbacks gs_buffer_memory_callbacks;
extern const OTF2_FlushCallbacks gs_buffer_flush_callbacks;

#ifndef GS_SMPI
#include <pthread.h>
/* The thread that called MPI_Init: it does the crash flush. */
extern pthread_t gs_main_thread;
/* Fatal signal handlers, the flush thread, the flush at exit (core_crash.c). */
void gs_install_crash_handlers(void);
#endif

#endif
