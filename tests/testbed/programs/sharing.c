/* Two flows out of one node at once, one to a node of the same metahost and one across the
 * WAN: rank 0 sends BYTES to rank 1 (its own metahost) and to rank 2 (the other one), whose
 * receives are posted before a barrier, and times each send's completion from the barrier.
 * Both flows leave through rank 0's one link, so how they share it decides which finishes
 * when (the platform's flow_fairness). Prints one JSON line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BYTES (8 << 20)

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *buf = calloc(BYTES, 1);
  MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (rank == 1 || rank == 2) MPI_Irecv(buf, BYTES, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req[0]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double start = MPI_Wtime(), done[2];
    for (int d = 0; d < 2; d++) MPI_Isend(buf, BYTES, MPI_BYTE, 1 + d, 7, MPI_COMM_WORLD, &req[d]);
    for (int k = 0; k < 2; k++) {
      int which;
      MPI_Waitany(2, req, &which, MPI_STATUS_IGNORE);
      done[which] = MPI_Wtime() - start;
    }
    printf("sharing {\"local_s\": %.9f, \"remote_s\": %.9f}\n", done[0], done[1]);
  } else if (rank <= 2) {
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
