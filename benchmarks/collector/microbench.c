/* Micro-benchmarks for the collector's overhead.
 *   microbench ITERS        pairs of ranks ping-pong one int (MPI_Send/MPI_Recv), with an
 *                           MPI_Allreduce every 10 iterations (communication-heavy);
 *   microbench ITERS rank   MPI_Comm_rank in a loop: the cost of recording alone;
 *   microbench ITERS self   Irecv + Send + Wait to itself (9 point-to-point events per
 *                           iteration, one rank: no scheduling between partners);
 *   microbench ITERS rma    rank 0: MPI_Put of one int to itself + MPI_Win_flush in a
 *                           passive-target epoch (6 events per iteration: Enter, RmaPut,
 *                           Leave; Enter, RmaOpCompleteBlocking, Leave); needs 2 ranks
 *                           (rank 1 sleeps meanwhile).
 * Prints "microbench loop_s=<seconds>" (rank 0, loop only, between barriers). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n, iters = argc > 1 ? atoi(argv[1]) : 100000;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int peer = me ^ 1, x = 0, sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int only_rank = argc > 2 && strcmp(argv[2], "rank") == 0, r;
    int to_self = argc > 2 && strcmp(argv[2], "self") == 0;
    for (int i = 0; i < iters && only_rank; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    for (int i = 0; i < iters && to_self; i++) {
        MPI_Request q;
        MPI_Irecv(&sum, 1, MPI_INT, me, 1, MPI_COMM_WORLD, &q);
        MPI_Send(&x, 1, MPI_INT, me, 1, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    int rma = argc > 2 && strcmp(argv[2], "rma") == 0;
    MPI_Win win = MPI_WIN_NULL;
    if (rma) { /* (Open MPI needs two processes for a window; rank 1 only waits) */
        MPI_Win_create(&sum, sizeof sum, sizeof sum, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_lock_all(0, win);
        t0 = MPI_Wtime();
    }
    for (int i = 0; i < iters && rma && me == 0; i++) {
        MPI_Put(&x, 1, MPI_INT, me, 0, 1, MPI_INT, win);
        MPI_Win_flush(me, win);
    }
    if (rma) {
        MPI_Win_unlock_all(win);
        /* rank 1 sleeps until rank 0 is done instead of polling for a core */
        MPI_Request done;
        int flag = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &done);
        while (me != 0 && !flag) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
        }
        if (!flag) MPI_Wait(&done, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < iters && !only_rank && !to_self && !rma; i++) {
        if (peer < n) {
            if (me % 2 == 0) {
                MPI_Send(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            }
        }
        if (i % 10 == 0) MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    if (rma) MPI_Win_free(&win);
    if (me == 0) printf("microbench loop_s=%.6f\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
