/* Dies part-way: rank 1 calls MPI_Abort (or segfaults with argument "segv") after three
 * Allreduces on MPI_COMM_WORLD and one on a split communicator; the other ranks wait in a Barrier until the launcher kills them.
 * With argument "thread" every rank first runs a Pthread that calls MPI_Comm_size twice
 * (MPI_THREAD_SERIALIZED: the main thread joins it), then rank 1 aborts. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void *sizes(void *arg) {
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return arg;
}
int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int r, n; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc > 1 && strcmp(argv[1], "thread") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, sizes, NULL);
    pthread_join(t, NULL);
  }
  int x = r, y = 0;
  for (int i = 0; i < 3; i++) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  /* a communicator created after start-up, used before the failure */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
  if (r == 1) {
    if (argc > 1 && strcmp(argv[1], "segv") == 0) { volatile int *p = NULL; *p = 1; }
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
