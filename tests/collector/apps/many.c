/* Many small events: MPI_Comm_rank N times (argument), to overflow a small event buffer. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n = argc > 1 ? atoi(argv[1]) : 100000;
    for (int i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Finalize();
    return 0;
}
