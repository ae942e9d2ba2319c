/* MPI-aware adapters: read datatype sizes and MPI_IN_PLACE from a collective's arguments
 * (only where they are significant) and apply the pure rules of collbytes.c. */
#ifndef GS_MPI_BYTES_H
#define GS_MPI_BYTES_H
#include <mpi.h>
#include "collbytes.h"
#include "xferbytes.h"

gs_bytes_t gs_cb_barrier(MPI_Comm comm);
gs_bytes_t gs_cb_bcast(int count, MPI_Datatype type, int root, MPI_Comm comm);
gs_bytes_t gs_cb_reduce(const void *sendbuf, int count, MPI_Datatype type, int root,
                        MPI_Comm comm);
gs_bytes_t gs_cb_allreduce(const void *sendbuf, int count, MPI_Datatype type, MPI_Comm comm);
gs_bytes_t gs_cb_gather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                        MPI_Datatype rtype, int root, MPI_Comm comm);
gs_bytes_t gs_cb_gatherv(const void *sendbuf, int scount, MPI_Datatype stype,
                         const int *rcounts, MPI_Datatype rtype, int root, MPI_Comm comm);
gs_bytes_t gs_cb_scatter(int scount, MPI_Datatype stype, const void *recvbuf, int rcount,
                         MPI_Datatype rtype, int root, MPI_Comm comm);
gs_bytes_t gs_cb_scatterv(const int *scounts, MPI_Datatype stype, const void *recvbuf,
                          int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
gs_bytes_t gs_cb_allgather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype,
                            const int *rcounts, MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_alltoallv(const void *sendbuf, const int *scounts, MPI_Datatype stype,
                           const int *rcounts, MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_alltoallw(const void *sendbuf, const int *scounts, const MPI_Datatype *stypes,
                           const int *rcounts, const MPI_Datatype *rtypes, MPI_Comm comm);
gs_bytes_t gs_cb_reduce_scatter(const void *sendbuf, const int *rcounts, MPI_Datatype type,
                                MPI_Comm comm);
gs_bytes_t gs_cb_reduce_scatter_block(const void *sendbuf, int rcount, MPI_Datatype type,
                                      MPI_Comm comm);
gs_bytes_t gs_cb_scan(const void *sendbuf, int count, MPI_Datatype type, MPI_Comm comm);
gs_bytes_t gs_cb_exscan(int count, MPI_Datatype type, MPI_Comm comm);
/* Neighbourhood collectives (allgather shares alltoall's rule, as in Score-P). */
gs_bytes_t gs_cb_neighbor_alltoall(int scount, MPI_Datatype stype, int rcount,
                                   MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_neighbor_allgatherv(int scount, MPI_Datatype stype, const int *rcounts,
                                     MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_neighbor_alltoallv(const int *scounts, MPI_Datatype stype, const int *rcounts,
                                    MPI_Datatype rtype, MPI_Comm comm);
gs_bytes_t gs_cb_neighbor_alltoallw(const int *scounts, const MPI_Datatype *stypes,
                                    const int *rcounts, const MPI_Datatype *rtypes,
                                    MPI_Comm comm);
/* MPI-IO and RMA (xferbytes.h): count x type size; accumulates as (put, get). */
uint64_t gs_cb_count(int count, MPI_Datatype type);
gs_bytes_t gs_cb_accumulate(int origin_count, MPI_Datatype origin_type);
gs_bytes_t gs_cb_get_accumulate(int origin_count, MPI_Datatype origin_type, int result_count,
                                MPI_Datatype result_type);
/* What a completed I/O call transferred, from its status. */
uint64_t gs_cb_io_done(const MPI_Status *st, MPI_Datatype type);
#endif
