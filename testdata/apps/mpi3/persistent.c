/* Persistent point-to-point requests in a ring: each rank sets up one MPI_Send_init to
 * its right and one MPI_Recv_init from its left, then runs ITERATIONS rounds of
 * MPI_Startall + MPI_Waitall (the first round) or MPI_Start + MPI_Wait each (the others),
 * and frees both requests. Prints "persistent ok" on rank 0 when every value arrived. */
#include <mpi.h>
#include <stdio.h>

enum { ITERATIONS = 5, COUNT = 16 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double out[COUNT], in[COUNT];
    MPI_Request reqs[2];
    MPI_Send_init(out, COUNT, MPI_DOUBLE, (me + 1) % n, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(in, COUNT, MPI_DOUBLE, (me + n - 1) % n, 7, MPI_COMM_WORLD, &reqs[1]);
    int bad = 0;
    for (int it = 0; it < ITERATIONS; it++) {
        for (int i = 0; i < COUNT; i++) out[i] = 100 * it + me;
        if (it == 0) {
            MPI_Startall(2, reqs);
            MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        } else {
            MPI_Start(&reqs[1]);
            MPI_Start(&reqs[0]);
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        }
        bad |= in[COUNT - 1] != 100 * it + (me + n - 1) % n;
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    int ok = !bad, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0 && all) printf("persistent ok\n");
    MPI_Finalize();
    return 0;
}
