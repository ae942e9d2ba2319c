/* One-sided communication in fence epochs: each rank exposes a window of N ints, puts its
 * rank into slot `me` of its right neighbour's window (epoch 1), gets what its left
 * neighbour received in epoch 1 (epoch 2), accumulates 1 into slot n-1 of rank 0 (epoch 3),
 * and frees the window. Four MPI_Win_fence calls delimit the three epochs.
 * Prints "rma ok" on rank 0 when every value is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *mem = calloc((size_t)n, sizeof *mem);
    MPI_Win win;
    MPI_Win_create(mem, (MPI_Aint)(n * sizeof *mem), sizeof *mem, MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    int right = (me + 1) % n, left = (me + n - 1) % n, got = -1, one = 1;
    MPI_Win_fence(0, win);
    MPI_Put(&me, 1, MPI_INT, right, me, 1, MPI_INT, win); /* epoch 1 */
    MPI_Win_fence(0, win);
    MPI_Get(&got, 1, MPI_INT, left, left == 0 ? n - 1 : left - 1, 1, MPI_INT, win); /* 2 */
    MPI_Win_fence(0, win);
    int bad = mem[left] != left; /* epoch 1 arrived */
    MPI_Accumulate(&one, 1, MPI_INT, 0, n - 1, 1, MPI_INT, MPI_SUM, win); /* epoch 3 */
    MPI_Win_fence(0, win);
    bad |= got != (left + n - 1) % n; /* what left's left put into left's window */
    if (me == 0) bad |= mem[n - 1] != n - 1 + n; /* rank n-1's put plus n accumulates */
    MPI_Win_free(&win);
    free(mem);
    int ok = !bad, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0 && all) printf("rma ok\n");
    MPI_Finalize();
    return 0;
}
