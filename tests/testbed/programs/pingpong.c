/* Ping-pong between rank 0 and rank N-1 (on different metahosts when ranks are placed
 * block-wise over two metahosts): one-way latency from 1-byte messages, bandwidth from
 * the difference between two large sizes (so the latency cancels out). Prints one JSON line.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void round_trips(char *buf, int bytes, int peer, int rank, int reps)
{
  for (int i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == peer) {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = size - 1, reps = 5;
  int sizes[3] = {1, 1 << 20, 4 << 20};
  double t[3];
  char *buf = calloc(4 << 20, 1);
  for (int s = 0; s < 3; s++) {
    round_trips(buf, sizes[s], peer, rank, 1); /* untimed: both sides start in step */
    double start = MPI_Wtime();
    round_trips(buf, sizes[s], peer, rank, reps);
    t[s] = (MPI_Wtime() - start) / (2.0 * reps);
  }
  if (rank == 0) {
    double bw = (sizes[2] - sizes[1]) / (t[2] - t[1]);
    printf("pingpong {\"latency_s\": %.9f, \"bandwidth_Bps\": %.3f}\n", t[0], bw);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
