/* The PMPI shim: MPI_<Op> -> GSColl_<Op>, for programs run without the gridscope collector.
 * Weak, so that a tracer defining the same MPI_<Op> (and forwarding to GSColl_<Op> itself)
 * wins when both are linked into one executable (SMPI) or preloaded before this library. */
#include "gridscope/coll.h"

#define WEAK __attribute__((weak))

WEAK int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return GSColl_Bcast(buf, count, dt, root, comm);
}

WEAK int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                    int root, MPI_Comm comm)
{
    return GSColl_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
}

WEAK int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm)
{
    return GSColl_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

WEAK int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return GSColl_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

WEAK int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return GSColl_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

WEAK int MPI_Barrier(MPI_Comm comm)
{
    return GSColl_Barrier(comm);
}

WEAK int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return GSColl_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
