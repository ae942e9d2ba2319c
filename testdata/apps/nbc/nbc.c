/* The program of issue 12: rank 0 computes 2 ms before each of 20 allreduces, then all
 * ranks meet in a barrier. Every other rank waits in MPI for rank 0, so rank 0's 40 ms of
 * computation must show as time outside MPI and the others' as waiting.
 *
 *   nbc              MPI_Iallreduce + MPI_Wait, then MPI_Ibarrier + MPI_Wait (as in the issue)
 *   nbc --blocking   MPI_Allreduce, then MPI_Barrier
 *
 * The computation spins on the wall clock (not nanosleep); under SimGrid it is modelled.
 * On a shared machine a spin may end late (the rank is descheduled when its deadline
 * passes), so rank 0 prints the computation time it measured itself. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "gs_app.h"

enum { ITERATIONS = 20 };
static const double COMPUTE_S = 0.002;

/* Returns the wall time the step took. */
static double compute(double seconds)
{
  double start = MPI_Wtime();
#ifdef APP_SIMULATED
  app_compute(seconds); /* modelled: gflop at the platform's speed */
  return MPI_Wtime() - start;
#else
  double now = start;
  while (now < start + seconds) now = MPI_Wtime();
  return now - start;
#endif
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, blocking = argc > 1 && strcmp(argv[1], "--blocking") == 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double in = rank, out = 0, computed = 0;
  for (int i = 0; i < ITERATIONS; i++) {
    if (rank == 0) computed += compute(COMPUTE_S);
    if (blocking) {
      MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
      MPI_Request req;
      MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
  }
  if (blocking) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (rank == 0) printf("nbc done: sum %g, computed %.6f s\n", out, computed);
  MPI_Finalize();
  return 0;
}
