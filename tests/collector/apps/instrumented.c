/* Compiler instrumentation (-finstrument-functions): work() and its helpers are recorded,
 * skip_me() is filtered out with GRIDSCOPE_FILTER_EXCLUDE. */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) int skip_me(int x) { return x + 1; }
__attribute__((noinline)) int leaf(int x) { return skip_me(x) * 2; }
__attribute__((noinline)) int work(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++) s += leaf(x + i);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int s = work(me);
    if (me == 0) printf("instrumented %d\n", s);
    MPI_Finalize();
    return 0;
}
