/* Adapters from collective arguments to the byte rules in collbytes.c. */
#include <stdlib.h>

#include "gs_mpi_bytes.h"

static uint64_t tsize(MPI_Datatype t)
{
    int s = 0;
    PMPI_Type_size(t, &s);
    return (uint64_t)s;
}

static void shape(MPI_Comm comm, int *n, int *me)
{
    PMPI_Comm_size(comm, n);
    PMPI_Comm_rank(comm, me);
}

/* counts[i] * size as a fresh array (NULL when n == 0). */
static uint64_t *blocks(int n, const int *counts, uint64_t size)
{
    uint64_t *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    for (int i = 0; i < n; i++) b[i] = (uint64_t)counts[i] * size;
    return b;
}

gs_bytes_t gs_cb_barrier(MPI_Comm comm)
{
    (void)comm;
    return gs_bytes_barrier();
}

gs_bytes_t gs_cb_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    uint64_t b = (uint64_t)count * tsize(type);
    return gs_bytes_one_to_all(n, me, root, b, b, 0);
}

gs_bytes_t gs_cb_reduce(const void *sendbuf, int count, MPI_Datatype type, int root,
                        MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    uint64_t b = (uint64_t)count * tsize(type);
    return gs_bytes_all_to_one(n, me, root, b, b, me == root && sendbuf == MPI_IN_PLACE);
}

gs_bytes_t gs_cb_allreduce(const void *sendbuf, int count, MPI_Datatype type, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    uint64_t b = (uint64_t)count * tsize(type);
    return gs_bytes_all_to_all(n, b, b, sendbuf == MPI_IN_PLACE);
}

gs_bytes_t gs_cb_gather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                        MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    if (me == root) {
        uint64_t b = (uint64_t)rcount * tsize(rtype);
        return gs_bytes_all_to_one(n, me, root, b, b, sendbuf == MPI_IN_PLACE);
    }
    return gs_bytes_all_to_one(n, me, root, (uint64_t)scount * tsize(stype), 0, 0);
}

gs_bytes_t gs_cb_gatherv(const void *sendbuf, int scount, MPI_Datatype stype,
                         const int *rcounts, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    if (me != root)
        return gs_bytes_gatherv(n, me, root, (uint64_t)scount * tsize(stype), NULL, 0);
    uint64_t *b = blocks(n, rcounts, tsize(rtype));
    gs_bytes_t r = gs_bytes_gatherv(n, me, root, 0, b, sendbuf == MPI_IN_PLACE);
    free(b);
    return r;
}

gs_bytes_t gs_cb_scatter(int scount, MPI_Datatype stype, const void *recvbuf, int rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    if (me == root) {
        uint64_t b = (uint64_t)scount * tsize(stype);
        return gs_bytes_one_to_all(n, me, root, b, b, recvbuf == MPI_IN_PLACE);
    }
    return gs_bytes_one_to_all(n, me, root, 0, (uint64_t)rcount * tsize(rtype), 0);
}

gs_bytes_t gs_cb_scatterv(const int *scounts, MPI_Datatype stype, const void *recvbuf,
                          int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    if (me != root)
        return gs_bytes_scatterv(n, me, root, NULL, (uint64_t)rcount * tsize(rtype), 0);
    uint64_t *b = blocks(n, scounts, tsize(stype));
    gs_bytes_t r = gs_bytes_scatterv(n, me, root, b, 0, recvbuf == MPI_IN_PLACE);
    free(b);
    return r;
}

gs_bytes_t gs_cb_allgather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    int inplace = sendbuf == MPI_IN_PLACE;
    return gs_bytes_all_to_all(n, inplace ? 0 : (uint64_t)scount * tsize(stype),
                               (uint64_t)rcount * tsize(rtype), inplace);
}

gs_bytes_t gs_cb_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype,
                            const int *rcounts, MPI_Datatype rtype, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    int inplace = sendbuf == MPI_IN_PLACE;
    uint64_t *b = blocks(n, rcounts, tsize(rtype));
    gs_bytes_t r =
        gs_bytes_allgatherv(n, me, inplace ? 0 : (uint64_t)scount * tsize(stype), b, inplace);
    free(b);
    return r;
}

gs_bytes_t gs_cb_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    return gs_cb_allgather(sendbuf, scount, stype, rcount, rtype, comm);
}

gs_bytes_t gs_cb_alltoallv(const void *sendbuf, const int *scounts, MPI_Datatype stype,
                           const int *rcounts, MPI_Datatype rtype, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    int inplace = sendbuf == MPI_IN_PLACE;
    uint64_t *r = blocks(n, rcounts, tsize(rtype));
    uint64_t *s = inplace ? NULL : blocks(n, scounts, tsize(stype));
    gs_bytes_t b = gs_bytes_all_to_allv(n, me, s, r, inplace);
    free(r);
    free(s);
    return b;
}

gs_bytes_t gs_cb_alltoallw(const void *sendbuf, const int *scounts, const MPI_Datatype *stypes,
                           const int *rcounts, const MPI_Datatype *rtypes, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    int inplace = sendbuf == MPI_IN_PLACE;
    uint64_t *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    uint64_t *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    for (int i = 0; i < n; i++) {
        r[i] = (uint64_t)rcounts[i] * tsize(rtypes[i]);
        s[i] = inplace ? 0 : (uint64_t)scounts[i] * tsize(stypes[i]);
    }
    gs_bytes_t b = gs_bytes_all_to_allv(n, me, s, r, inplace);
    free(r);
    free(s);
    return b;
}

gs_bytes_t gs_cb_reduce_scatter(const void *sendbuf, const int *rcounts, MPI_Datatype type,
                                MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    uint64_t *b = blocks(n, rcounts, tsize(type));
    gs_bytes_t r = gs_bytes_reduce_scatter(n, me, b, sendbuf == MPI_IN_PLACE);
    free(b);
    return r;
}

gs_bytes_t gs_cb_reduce_scatter_block(const void *sendbuf, int rcount, MPI_Datatype type,
                                      MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    return gs_bytes_reduce_scatter_block(n, (uint64_t)rcount * tsize(type),
                                         sendbuf == MPI_IN_PLACE);
}

gs_bytes_t gs_cb_scan(const void *sendbuf, int count, MPI_Datatype type, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    return gs_bytes_scan(n, me, (uint64_t)count * tsize(type), sendbuf == MPI_IN_PLACE);
}

gs_bytes_t gs_cb_exscan(int count, MPI_Datatype type, MPI_Comm comm)
{
    int n, me;
    shape(comm, &n, &me);
    return gs_bytes_exscan(n, me, (uint64_t)count * tsize(type));
}
