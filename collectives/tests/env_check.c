/* One broadcast through the MPI_Bcast shim, to check how the library reacts to its
 * environment (ctest collectives.env.*: a bad file stops the run with one clear line, a bad value
 * gives one warning and the run goes on). */
#include <stdio.h>

#include "gridscope/coll.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) v = 42;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("env_check: %d via %s\n", v, GSColl_Last_algorithm(GSCOLL_BCAST));
    MPI_Finalize();
    return v == 42 ? 0 : 1;
}
