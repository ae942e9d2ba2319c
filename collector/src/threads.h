/* Locations of the threads of a rank other than the one that initialised MPI
 * (docs/collector.md, "Threads"): created on a thread's first recorded event, closed by
 * the master thread at MPI_Finalize or after a crash. */
#ifndef GS_THREADS_H
#define GS_THREADS_H
#include <otf2/otf2.h>
#include <stdint.h>

#include "collector.h"

/* OTF2 location id of thread number `thread` (0 = master) of `rank`: Score-P's layout,
 * the thread's number in its process above the rank. */
static inline uint64_t gs_location_id(int rank, uint32_t thread)
{
    return ((uint64_t)thread << 32) | (uint32_t)rank;
}

/* From MPI_Init on, threads that call a wrapper get a location in this archive. */
void gs_threads_start(OTF2_Archive *archive, int rank);
/* Thread locations created so far; thread number i + 1 is gs_thread(i). */
uint32_t gs_thread_count(void);
gs_loc_t *gs_thread(uint32_t i);
/* Closes the thread locations' writers at time t_end, after closing their open regions.
 * After a crash (idle_only) a location whose thread is inside a region (possibly inside
 * an MPI call, writing) is left open, unless it waits in MPI_Abort: its events are not
 * part of the trace. */
void gs_threads_close(uint64_t t_end, int idle_only);
/* Closed thread locations (those in the trace), for the definitions. */
int gs_thread_closed(const gs_loc_t *L);

#endif
