/* A stand-in for the topology-aware collectives library: defines GSColl_Bcast and sends
 * its messages on the user's communicator with MPI_ calls (so the collector records them
 * inside MPI_Bcast), as the collectives contract says. Built as a shared library. */
#include <mpi.h>

int GSColl_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (me == root) {
        for (int r = 0; r < n; r++)
            if (r != root) MPI_Send(buf, count, type, r, 4242, comm);
        return MPI_SUCCESS;
    }
    return MPI_Recv(buf, count, type, root, 4242, comm, MPI_STATUS_IGNORE);
}
