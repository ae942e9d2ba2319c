/* Two transfers at once from (and into) one node: rank 0 sends BYTES to rank 1 alone, then
 * to ranks 1 and 2 at once, then receives BYTES from ranks 1 and 2 at once. Each rank on
 * its own node. With one NIC the two transfers share it (twice the time of one); with two
 * NICs they proceed side by side (about the time of one). Prints one JSON line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BYTES (8 << 20)

static double timed_sends(char *buf, int rank, int ndst)
{
  MPI_Request req[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (rank == 0) {
    for (int d = 0; d < ndst; d++)
      MPI_Isend(buf, BYTES, MPI_BYTE, 1 + d, 5, MPI_COMM_WORLD, &req[d]);
    MPI_Waitall(ndst, req, MPI_STATUSES_IGNORE);
  } else if (rank <= ndst) {
    MPI_Recv(buf, BYTES, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return MPI_Wtime() - start;
}

static double timed_receives(char *buf, char *buf2, int rank)
{
  MPI_Request req[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (rank == 0) {
    MPI_Irecv(buf, BYTES, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(buf2, BYTES, MPI_BYTE, 2, 6, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  } else if (rank <= 2) {
    MPI_Send(buf, BYTES, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
  }
  return MPI_Wtime() - start;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *buf = calloc(BYTES, 1), *buf2 = calloc(BYTES, 1);
  double one = timed_sends(buf, rank, 1);
  double two = timed_sends(buf, rank, 2);
  double in = timed_receives(buf, buf2, rank);
  if (rank == 0)
    printf("twosends {\"one_send_s\": %.9f, \"two_sends_s\": %.9f, \"two_receives_s\": %.9f}\n",
           one, two, in);
  free(buf);
  free(buf2);
  MPI_Finalize();
  return 0;
}
