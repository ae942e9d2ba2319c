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

/* Which slots of a neighbourhood collective's per-neighbour arrays move data (Score-P's
 * rule, scorep_mpi_coll.inc.c): on a Cartesian communicator the 2*ndims slots (dimension
 * by dimension, negative direction first) whose neighbour exists, for sending and
 * receiving alike; on a graph its neighbours; on a distributed graph the outdegree send
 * and indegree receive slots; none without a topology. *out and *in are malloc'ed. */
static void nb_slots(MPI_Comm comm, int **out, int *nout, int **in, int *nin)
{
    int topo = MPI_UNDEFINED, indeg = 0, outdeg = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int ndims = 0;
        PMPI_Cartdim_get(comm, &ndims);
        *out = malloc((size_t)(2 * ndims + 1) * sizeof **out);
        *in = malloc((size_t)(2 * ndims + 1) * sizeof **in);
        *nout = *nin = 0;
        for (int d = 0; d < ndims; d++) {
            int nb[2];
            PMPI_Cart_shift(comm, d, 1, &nb[0], &nb[1]);
            for (int i = 0; i < 2; i++)
                if (nb[i] != MPI_PROC_NULL) {
                    (*out)[(*nout)++] = 2 * d + i;
                    (*in)[(*nin)++] = 2 * d + i;
                }
        }
        return;
    }
    if (topo == MPI_GRAPH) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors_count(comm, me, &indeg);
        outdeg = indeg;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
    }
    *out = malloc((size_t)(outdeg + 1) * sizeof **out);
    *in = malloc((size_t)(indeg + 1) * sizeof **in);
    for (int i = 0; i < outdeg; i++) (*out)[i] = i;
    for (int i = 0; i < indeg; i++) (*in)[i] = i;
    *nout = outdeg;
    *nin = indeg;
}

/* Per-slot bytes: counts (NULL = `count` for every slot) times the type's size (types
 * NULL = `type` for every slot). */
static uint64_t *nb_blocks(const int *slots, int n, const int *counts, int count,
                           const MPI_Datatype *types, MPI_Datatype type)
{
    uint64_t *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    for (int i = 0; i < n; i++) {
        int s = slots[i];
        b[i] = (uint64_t)(counts ? counts[s] : count) * tsize(types ? types[s] : type);
    }
    return b;
}

static gs_bytes_t nb_bytes(MPI_Comm comm, const int *scounts, int scount,
                           const MPI_Datatype *stypes, MPI_Datatype stype, const int *rcounts,
                           int rcount, const MPI_Datatype *rtypes, MPI_Datatype rtype)
{
    int *out, *in, nout, nin;
    nb_slots(comm, &out, &nout, &in, &nin);
    uint64_t *s = nb_blocks(out, nout, scounts, scount, stypes, stype);
    uint64_t *r = nb_blocks(in, nin, rcounts, rcount, rtypes, rtype);
    gs_bytes_t b = gs_bytes_neighbor(nout, s, nin, r);
    free(s);
    free(r);
    free(out);
    free(in);
    return b;
}

gs_bytes_t gs_cb_neighbor_alltoall(int scount, MPI_Datatype stype, int rcount,
                                   MPI_Datatype rtype, MPI_Comm comm)
{
    return nb_bytes(comm, NULL, scount, NULL, stype, NULL, rcount, NULL, rtype);
}

gs_bytes_t gs_cb_neighbor_allgatherv(int scount, MPI_Datatype stype, const int *rcounts,
                                     MPI_Datatype rtype, MPI_Comm comm)
{
    return nb_bytes(comm, NULL, scount, NULL, stype, rcounts, 0, NULL, rtype);
}

gs_bytes_t gs_cb_neighbor_alltoallv(const int *scounts, MPI_Datatype stype, const int *rcounts,
                                    MPI_Datatype rtype, MPI_Comm comm)
{
    return nb_bytes(comm, scounts, 0, NULL, stype, rcounts, 0, NULL, rtype);
}

gs_bytes_t gs_cb_neighbor_alltoallw(const int *scounts, const MPI_Datatype *stypes,
                                    const int *rcounts, const MPI_Datatype *rtypes,
                                    MPI_Comm comm)
{
    return nb_bytes(comm, scounts, 0, stypes, MPI_DATATYPE_NULL, rcounts, 0, rtypes,
                    MPI_DATATYPE_NULL);
}

uint64_t gs_cb_count(int count, MPI_Datatype type)
{
    return gs_xfer_bytes(count, (int64_t)tsize(type));
}

gs_bytes_t gs_cb_accumulate(int origin_count, MPI_Datatype origin_type)
{
    return gs_rma_accumulate_bytes(origin_count, (int64_t)tsize(origin_type));
}

gs_bytes_t gs_cb_get_accumulate(int origin_count, MPI_Datatype origin_type, int result_count,
                                MPI_Datatype result_type)
{
    return gs_rma_get_accumulate_bytes(origin_count, (int64_t)tsize(origin_type), result_count,
                                       (int64_t)tsize(result_type));
}

uint64_t gs_cb_io_done(const MPI_Status *st, MPI_Datatype type)
{
    int elements = MPI_UNDEFINED, nbytes = MPI_UNDEFINED;
    PMPI_Get_count(st, type, &elements);
    if (elements == MPI_UNDEFINED) PMPI_Get_count(st, MPI_BYTE, &nbytes);
    return gs_io_done_bytes(elements, (int64_t)tsize(type), nbytes, MPI_UNDEFINED);
}
