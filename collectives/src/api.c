/* Exported entry points: GSColl_<Op> has MPI_<Op>'s signature; it picks an algorithm
 * (select.c) and runs it with the re-entry guard set, or calls PMPI_<Op>. */
#include "gsc_internal.h"

#define RUN(OP, VANILLA_CALL, MEMBER, ...)                                                       \
    do {                                                                                     \
        if (gsc_in_collective) return VANILLA_CALL;                                           \
        if (bytes_ == 0 && OP != GSCOLL_BARRIER) return MPI_SUCCESS; /* nothing moves */      \
        gsc_in_collective = 1;                                                                \
        gsc_topo_t *t_ = NULL;                                                                \
        const gsc_algo_t *a_ = gsc_select(OP, comm, bytes_, &t_);                              \
        int rc_;                                                                             \
        if (a_ != &gsc_vanilla && (!a_->needs_commutative || commutative_)) {                \
            gsc_note_last(OP, a_->name);                                                      \
            /* the algorithm runs on the private duplicate (same ranks, own context) */       \
            MPI_Comm comm = t_->coll_comm;                                                   \
            rc_ = a_->fn.MEMBER(__VA_ARGS__, t_);                                            \
        } else {                                                                             \
            gsc_note_last(OP, "vanilla");                                                     \
            rc_ = VANILLA_CALL;                                                              \
        }                                                                                    \
        gsc_in_collective = 0;                                                                \
        return rc_;                                                                          \
    } while (0)

static int is_commutative(MPI_Op op)
{
    int c = 0;
    PMPI_Op_commutative(op, &c);
    return c;
}

static int comm_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

int GSColl_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    size_t bytes_ = gsc_type_bytes(count, dt);
    int commutative_ = 1;
    RUN(GSCOLL_BCAST, PMPI_Bcast(buf, count, dt, root, comm), bcast, buf, count, dt, root,
        comm);
}

int GSColl_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                  int root, MPI_Comm comm)
{
    size_t bytes_ = gsc_type_bytes(count, dt);
    int commutative_ = is_commutative(op);
    RUN(GSCOLL_REDUCE, PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm), reduce,
        sendbuf, recvbuf, count, dt, op, root, comm);
}

int GSColl_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm)
{
    size_t bytes_ = gsc_type_bytes(count, dt);
    int commutative_ = is_commutative(op);
    RUN(GSCOLL_ALLREDUCE, PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm), allreduce,
        sendbuf, recvbuf, count, dt, op, comm);
}

int GSColl_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    /* the same figure on every rank: root's receive block = everybody's send block */
    size_t bytes_ = me == root ? gsc_type_bytes(recvcount, recvtype)
                               : gsc_type_bytes(sendcount, sendtype);
    int commutative_ = 1;
    RUN(GSCOLL_GATHER,
        PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
        gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int GSColl_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    size_t bytes_ = gsc_type_bytes(recvcount, recvtype);
    int commutative_ = 1;
    RUN(GSCOLL_ALLGATHER,
        PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int GSColl_Barrier(MPI_Comm comm)
{
    size_t bytes_ = 0;
    int commutative_ = 1;
    RUN(GSCOLL_BARRIER, PMPI_Barrier(comm), barrier, comm);
}

int GSColl_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    /* each rank's whole send buffer, as the issue counts it */
    size_t bytes_ = gsc_type_bytes(recvcount, recvtype) * (size_t)comm_size(comm);
    int commutative_ = 1;
    RUN(GSCOLL_ALLTOALL,
        PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
        alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
