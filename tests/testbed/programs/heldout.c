/* Held-out test program for the simulated testbed (not one of the demo apps): a ring of
 * point-to-point messages, one timed message across the WAN, and three collectives.
 * Every rank does exactly: 1 ring MPI_Send + 1 ring MPI_Recv, MPI_Bcast, MPI_Allreduce,
 * MPI_Barrier; in addition rank 0 sends one message (tag 42) to rank N/2, which has
 * already posted the receive (rank 0 first sleeps 10 ms), so that message's duration in
 * the trace is the network latency between the two ranks' metahosts.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char ring_out[1000] = {0}, ring_in[1000];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (rank % 2 == 0) {
    MPI_Send(ring_out, sizeof ring_out, MPI_BYTE, right, 7, MPI_COMM_WORLD);
    MPI_Recv(ring_in, sizeof ring_in, MPI_BYTE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(ring_in, sizeof ring_in, MPI_BYTE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(ring_out, sizeof ring_out, MPI_BYTE, right, 7, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char probe = 1;
  if (rank == 0) {
    usleep(10000);
    MPI_Send(&probe, 1, MPI_BYTE, size / 2, 42, MPI_COMM_WORLD);
  } else if (rank == size / 2) {
    MPI_Recv(&probe, 1, MPI_BYTE, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  char table[4096] = {0};
  MPI_Bcast(table, sizeof table, MPI_BYTE, 0, MPI_COMM_WORLD);
  double local[8] = {rank, 1, 2, 3, 4, 5, 6, 7}, global[8];
  MPI_Allreduce(local, global, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("heldout: sum of ranks %.0f\n", global[0]);
  MPI_Finalize();
  return 0;
}
