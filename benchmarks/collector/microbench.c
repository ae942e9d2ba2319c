/* Micro-benchmarks for the collector's overhead.
 *   microbench ITERS        pairs of ranks ping-pong one int (MPI_Send/MPI_Recv), with an
 *                           MPI_Allreduce every 10 iterations (communication-heavy);
 *   microbench ITERS rank   MPI_Comm_rank in a loop: the cost of recording alone;
 *   microbench ITERS self   Irecv + Send + Wait to itself (9 point-to-point events per
 *                           iteration, one rank: no scheduling between partners).
 * Prints "microbench loop_s=<seconds>" (rank 0, loop only, between barriers). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    for (int i = 0; i < iters && !only_rank && !to_self; i++) {
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
    if (me == 0) printf("microbench loop_s=%.6f\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
