/* One MPI_Bcast of 6 ints from rank 1; prints the result check on rank 0. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, b[6] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 1) for (int i = 0; i < 6; i++) b[i] = i + 1;
    MPI_Bcast(b, 6, MPI_INT, 1, MPI_COMM_WORLD);
    int ok = b[5] == 6, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0) printf("bcast %s\n", all ? "ok" : "wrong");
    MPI_Finalize();
    return 0;
}
