/* Communicators created behind the collector's back (PMPI_), user regions whose first
 * use differs between ranks, MPI_Cart_create, Waitany/Testsome, persistent requests and a cancelled receive. */
#include <gridscope/user.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    /* A library's private communicator: created through PMPI, used through MPI. */
    MPI_Comm hidden;
    PMPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &hidden);
    MPI_Barrier(hidden);
    PMPI_Comm_free(&hidden);

    /* User regions, first seen in a rank-dependent order. */
    if (me % 2) { GS_REGION_BEGIN("phase B"); GS_REGION_END("phase B"); }
    GS_REGION_BEGIN("phase A");
    GS_REGION_BEGIN("phase B");
    GS_REGION_END("phase B");
    GS_REGION_END("phase A");

    int dims[1] = {0}, periods[1] = {1};
    MPI_Dims_create(n, 1, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Barrier(cart);
    MPI_Comm_free(&cart);

    /* Waitany / Testsome on a ring exchange. */
    int out = me, in = -1, right = (me + 1) % n, left = (me + n - 1) % n, idx, cnt, ids[2];
    MPI_Request r[2];
    MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &r[1]);
    MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
    do MPI_Testsome(2, r, &cnt, ids, MPI_STATUSES_IGNORE);
    while (cnt != MPI_UNDEFINED && (r[0] != MPI_REQUEST_NULL || r[1] != MPI_REQUEST_NULL));

    /* Persistent ring exchange, started twice. */
    MPI_Request pr[2];
    MPI_Recv_init(&in, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &pr[0]);
    MPI_Send_init(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &pr[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, pr);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);

    /* A receive nobody matches, cancelled. */
    MPI_Request lost;
    MPI_Status st;
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &lost);
    MPI_Cancel(&lost);
    MPI_Wait(&lost, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    if (me == 0) printf("extras done cancelled=%d\n", cancelled);
    MPI_Finalize();
    return 0;
}
