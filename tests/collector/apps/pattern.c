/* Known communication pattern for the 8-rank recording test (test_record.py computes
 * the expected events and bytes from the same description). Usage: pattern ITER */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 2;
    double ring_out[16], ring_in[16], a[10], b[10], r4[4], r4out[4];
    int ints[5] = {1, 2, 3, 4, 5}, pair[3] = {7, 8, 9}, g[2] = {rank, rank};
    int *gall = malloc(2 * size * sizeof(int)), *ag = malloc(size * sizeof(int));
    int *ata = malloc(size * sizeof(int)), *ata_in = malloc(size * sizeof(int));
    int *sc = malloc(3 * size * sizeof(int)), scin[3];
    int *scount = malloc(size * sizeof(int)), *sdispl = malloc(size * sizeof(int));
    int *rcount = malloc(size * sizeof(int)), *rdispl = malloc(size * sizeof(int));
    int *vout = malloc(3 * size * sizeof(int)), *vin = malloc(3 * size * sizeof(int));
    char chars_out[7] = "abcdef", chars_in[7];
    for (int i = 0; i < 16; i++) ring_out[i] = i;
    for (int i = 0; i < 10; i++) a[i] = rank + i;
    for (int i = 0; i < 4; i++) r4[i] = i;
    for (int j = 0, off = 0; j < size; j++) {
        scount[j] = rcount[j] = (rank + j) % 3 + 1;
        sdispl[j] = rdispl[j] = off;
        off += 3;
        ata[j] = rank;
    }
    for (int i = 0; i < 3 * size; i++) sc[i] = vout[i] = i;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int it = 0; it < iters; it++) {
        MPI_Request req[2];
        MPI_Irecv(ring_in, 16, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(ring_out, 16, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        if (rank % 2 == 0)
            MPI_Send(pair, 3, MPI_INT, rank + 1, 2, MPI_COMM_WORLD);
        else
            MPI_Recv(pair, 3, MPI_INT, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(chars_out, 7, MPI_CHAR, rank ^ 4, 3, chars_in, 7, MPI_CHAR, rank ^ 4, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(a, b, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(ints, 5, MPI_INT, 3, MPI_COMM_WORLD);
        MPI_Reduce(r4, r4out, 4, MPI_DOUBLE, MPI_SUM, 5, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Gather(g, 2, MPI_INT, gall, 2, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Allgather(&rank, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Alltoall(ata, 1, MPI_INT, ata_in, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Alltoallv(vout, scount, sdispl, MPI_INT, vin, rcount, rdispl, MPI_INT,
                      MPI_COMM_WORLD);
        MPI_Scatter(sc, 3, MPI_INT, scin, 3, MPI_INT, 7, MPI_COMM_WORLD);
    }
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    int one = 1;
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_free(&half);
    if (rank == 0) printf("pattern done\n");
    MPI_Finalize();
    return 0;
}
