/* crashloop MODE ITERATIONS AT [VICTIM]: ITERATIONS iterations of four local MPI calls
 * (MPI_Comm_rank, MPI_Comm_size twice each: about 90 bytes of events, no waiting), with
 * an MPI_Allreduce on MPI_COMM_WORLD before every 1000th; at iteration AT (a multiple of
 * 1000) rank VICTIM (default 2) ends abnormally, after printing
 * "rank V stops at iteration AT", while the others wait in that Allreduce:
 *   abort  MPI_Abort(MPI_COMM_WORLD, 3)
 *   segv   a write through a null pointer
 *   int    raise(SIGINT) (what Ctrl-C delivers)
 *   kill   raise(SIGKILL) (no flush possible)
 *   exit   every rank calls exit(0) at AT without MPI_Finalize
 *   thread-exit  a thread of rank VICTIM calls exit(5) at AT + 1 while its main thread goes
 *          on making local MPI calls (writing events)
 *   thread-exit-finalize  the same, but the exit lingers (an exit handler that runs after the
 *          collector's) until the main thread has reached MPI_Finalize, and 1 s more: the
 *          other ranks reach MPI_Finalize too, where the collector's collectives wait for
 *          rank VICTIM, whose measurement ended at its exit
 *   none   nothing (with AT = ITERATIONS no rank stops: the run ends by itself, or as a
 *          test makes it end from the outside)
 *   run    nothing, and every iteration sleeps 1 ms (with a large ITERATIONS: runs until
 *          interrupted, without spinning or piling up events)
 * After the first Allreduce rank 0 prints "all ranks running".
 * The other ranks wait in the Allreduce until the launcher ends them. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *exit_now(void *arg) {
  (void)arg;
  exit(5);
}

static volatile int main_in_finalize;

static void linger_until_finalize(void) {
  while (!main_in_finalize) usleep(10000);
  sleep(1);
}

int main(int argc, char **argv) {
  /* (registered before MPI_Init: exit handlers run in reverse order, this one after the
   * collector's) */
  const int linger = argc > 1 && strcmp(argv[1], "thread-exit-finalize") == 0;
  if (linger) atexit(linger_until_finalize);
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: crashloop abort|segv|int|kill|exit|thread-exit|thread-exit-finalize|none|run ITERATIONS AT [VICTIM]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *mode = argv[1];
  int iterations = atoi(argv[2]), at = atoi(argv[3]);
  int victim = argc > 4 ? atoi(argv[4]) : 2;
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  long x = r, y = 0;
  for (int i = 0; i < iterations; i++) {
    if (i == at && strcmp(mode, "exit") == 0) {
      printf("rank %d stops at iteration %d\n", r, i);
      fflush(stdout);
      exit(0);
    }
    if (i == at && r == victim) {
      printf("rank %d stops at iteration %d\n", r, i);
      fflush(stdout);
      if (strcmp(mode, "segv") == 0) { volatile int *p = NULL; *p = 1; }
      if (strcmp(mode, "int") == 0) raise(SIGINT);
      if (strcmp(mode, "kill") == 0) raise(SIGKILL);
      if (strncmp(mode, "thread-exit", 11) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (i == at + 1 && r == victim && strncmp(mode, "thread-exit", 11) == 0) {
      pthread_t t; /* (after the Allreduce: the main thread is writing events) */
      pthread_create(&t, NULL, exit_now, NULL);
    }
    if (i % 1000 == 0) MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (i == 0 && r == 0) { /* every rank is measured now: a test may interrupt the run */
      printf("all ranks running\n");
      fflush(stdout);
    }
    if (strcmp(mode, "run") == 0) usleep(1000);
    for (int k = 0; k < 2; k++) {
      MPI_Comm_rank(MPI_COMM_WORLD, &r);
      MPI_Comm_size(MPI_COMM_WORLD, &n);
    }
  }
  main_in_finalize = 1;
  MPI_Finalize();
  return 0;
}
