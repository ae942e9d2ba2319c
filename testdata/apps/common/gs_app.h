/* Shared helpers of the gridscope demo applications (plain C, mpicc or smpicc).
 *
 * - APP_REGION_BEGIN/END(name): user regions, so call paths such as
 *   main/timestep/cgiteration/MPI_Recv appear in traces. They map to the collector's
 *   <gridscope/user.h> when it is on the include path (gridscope cc adds it) and are
 *   no-ops otherwise.
 * - app_compute(gflop): modelled computation. Under SimGrid it is smpi_execute_flops(),
 *   so simulated time follows the host speed of the platform and runs are deterministic;
 *   under real MPI it sleeps gflop seconds (a 1 Gflop/s core), keeping small runs on an
 *   oversubscribed machine cheap.
 * - app_now(): MPI_Wtime (simulated time under SimGrid).
 */
#ifndef GS_APP_H
#define GS_APP_H

#include <mpi.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<gridscope/user.h>) && !defined(APP_NO_REGIONS)
#include <gridscope/user.h>
#define APP_HAVE_REGIONS 1
#endif
#endif

#ifdef APP_HAVE_REGIONS
#define APP_REGION_BEGIN(name) GS_REGION_BEGIN(name)
#define APP_REGION_END(name) GS_REGION_END(name)
#else
#define APP_REGION_BEGIN(name) ((void)0)
#define APP_REGION_END(name) ((void)0)
#endif

/* SimGrid's mpi.h includes smpi.h, which defines SMPI_H. */
#if defined(SMPI_H) || defined(GS_SIMULATED)
#define APP_SIMULATED 1
#endif

static inline double app_now(void) { return MPI_Wtime(); }

static inline void app_compute(double gflop)
{
  if (gflop <= 0.0)
    return;
#ifdef APP_SIMULATED
  smpi_execute_flops(gflop * 1e9);
#else
  struct timespec ts;
  ts.tv_sec = (time_t)gflop;
  ts.tv_nsec = (long)((gflop - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
#endif
}

/* Deterministic pseudo-random numbers in [0, 1) (same sequence on every platform). */
static inline double app_uniform(unsigned long long *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) / 9007199254740992.0;
}

#endif
