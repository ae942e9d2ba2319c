/* Neighbourhood collectives on a non-periodic line of ranks (a 1-D Cartesian
 * communicator): the end ranks have one neighbour, the inner ranks two. Blocking
 * MPI_Neighbor_alltoall, then MPI_Ineighbor_allgather and MPI_Ineighbor_alltoallv completed
 * by one MPI_Waitall. Results are checked against sentinel-filled buffers; rank 0 prints
 * "neighbor ok" when every rank got what it should. */
#include <mpi.h>
#include <stdio.h>

#define SENT -777
static int bad;
static void expect(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "neighbor: %s: got %d want %d\n", what, got, want);
        bad = 1;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n, dims[1], periods[1] = {0}, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    dims[0] = n;
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Comm_rank(line, &me);
    int left = me - 1, right = me + 1 < n ? me + 1 : -1; /* -1: no neighbour */

    /* Neighbor_alltoall: 2 ints to each neighbour slot (left, right). */
    int out[4] = {me, me, me, me}, in[4] = {SENT, SENT, SENT, SENT};
    MPI_Neighbor_alltoall(out, 2, MPI_INT, in, 2, MPI_INT, line);
    expect(in[0], left >= 0 ? left : SENT, "alltoall left");
    expect(in[2], right >= 0 ? right : SENT, "alltoall right");

    /* Ineighbor_allgather: 3 ints from each neighbour. */
    int g[6], three[3] = {10 * me, 10 * me, 10 * me};
    for (int i = 0; i < 6; i++) g[i] = SENT;
    /* Ineighbor_alltoallv: 1 int to the left slot, 2 to the right slot; so 2 arrive in
     * the left slot (the left rank's right block) and 1 in the right slot. */
    int scounts[2] = {1, 2}, sdispls[2] = {0, 1}, vout[3] = {me, me, me}, vin[3];
    int rcounts[2] = {2, 1}, rdispls[2] = {0, 2};
    for (int i = 0; i < 3; i++) vin[i] = SENT;
    MPI_Request reqs[2];
    MPI_Ineighbor_allgather(three, 3, MPI_INT, g, 3, MPI_INT, line, &reqs[0]);
    MPI_Ineighbor_alltoallv(vout, scounts, sdispls, MPI_INT, vin, rcounts, rdispls, MPI_INT, line,
                            &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    expect(g[0], left >= 0 ? 10 * left : SENT, "allgather left");
    expect(g[3], right >= 0 ? 10 * right : SENT, "allgather right");
    expect(vin[1], left >= 0 ? left : SENT, "alltoallv left");
    expect(vin[2], right >= 0 ? right : SENT, "alltoallv right");

    int ok = !bad, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0 && all) printf("neighbor ok\n");
    MPI_Comm_free(&line);
    MPI_Finalize();
    return 0;
}
