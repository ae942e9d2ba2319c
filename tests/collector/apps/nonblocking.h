/* Force-included (-include) into collbytes.c: every collective becomes its non-blocking
 * form completed at once by MPI_Wait, so the same program and expectations check the
 * bytes of MPI_Ireduce ... MPI_Ibcast as NonBlockingCollectiveComplete reports them. */
#include <mpi.h>
static MPI_Request nb_req;
static int nb_wait(int rc)
{
    MPI_Wait(&nb_req, MPI_STATUS_IGNORE);
    return rc;
}
#define NB(op, ...) nb_wait(MPI_I##op(__VA_ARGS__, &nb_req))
#define MPI_Reduce(...) NB(reduce, __VA_ARGS__)
#define MPI_Allreduce(...) NB(allreduce, __VA_ARGS__)
#define MPI_Gather(...) NB(gather, __VA_ARGS__)
#define MPI_Scatter(...) NB(scatter, __VA_ARGS__)
#define MPI_Allgather(...) NB(allgather, __VA_ARGS__)
#define MPI_Gatherv(...) NB(gatherv, __VA_ARGS__)
#define MPI_Scatterv(...) NB(scatterv, __VA_ARGS__)
#define MPI_Allgatherv(...) NB(allgatherv, __VA_ARGS__)
#define MPI_Reduce_scatter(...) NB(reduce_scatter, __VA_ARGS__)
#define MPI_Reduce_scatter_block(...) NB(reduce_scatter_block, __VA_ARGS__)
#define MPI_Scan(...) NB(scan, __VA_ARGS__)
#define MPI_Exscan(...) NB(exscan, __VA_ARGS__)
#define MPI_Alltoallw(...) NB(alltoallw, __VA_ARGS__)
#define MPI_Bcast(...) NB(bcast, __VA_ARGS__)
