/* Score-P's byte conventions for MPI collectives, as pure functions of sizes.
 * n = communicator size, me = own rank, root = root rank, *size = datatype sizes in
 * bytes, inplace = MPI_IN_PLACE given where it is significant. Intra-communicators only.
 * Each writes the bytes this rank sends (*sent) and receives (*recvd). */
#ifndef GS_COLLBYTES_H
#define GS_COLLBYTES_H
#include <stdint.h>

typedef struct {
    uint64_t sent, recvd;
} gs_bytes_t;

gs_bytes_t gs_bytes_barrier(void);
/* Gather / Reduce (all-to-one): block = bytes one rank contributes. */
gs_bytes_t gs_bytes_all_to_one(int n, int me, int root, uint64_t send_block,
                               uint64_t recv_block, int inplace);
/* Bcast / Scatter (one-to-all). */
gs_bytes_t gs_bytes_one_to_all(int n, int me, int root, uint64_t send_block,
                               uint64_t recv_block, int inplace);
/* Gatherv: recv_blocks[i] = bytes root receives from rank i (significant at root). */
gs_bytes_t gs_bytes_gatherv(int n, int me, int root, uint64_t send_block,
                            const uint64_t *recv_blocks, int inplace);
gs_bytes_t gs_bytes_scatterv(int n, int me, int root, const uint64_t *send_blocks,
                             uint64_t recv_block, int inplace);
/* Alltoall / Allgather / Allreduce (blocks per peer). */
gs_bytes_t gs_bytes_all_to_all(int n, uint64_t send_block, uint64_t recv_block, int inplace);
/* Alltoallv / Alltoallw: per-peer byte counts. */
gs_bytes_t gs_bytes_all_to_allv(int n, int me, const uint64_t *send_blocks,
                                const uint64_t *recv_blocks, int inplace);
gs_bytes_t gs_bytes_allgatherv(int n, int me, uint64_t send_block,
                               const uint64_t *recv_blocks, int inplace);
/* Reduce_scatter: recv_blocks[i] = bytes of rank i's result block. */
gs_bytes_t gs_bytes_reduce_scatter(int n, int me, const uint64_t *recv_blocks, int inplace);
gs_bytes_t gs_bytes_reduce_scatter_block(int n, uint64_t block, int inplace);
gs_bytes_t gs_bytes_scan(int n, int me, uint64_t block, int inplace);
gs_bytes_t gs_bytes_exscan(int n, int me, uint64_t block);
/* Neighbourhood collectives: the blocks sent to and received from the neighbours that
 * exist (which ones is the topology's business, see mpi_bytes.c), summed. */
gs_bytes_t gs_bytes_neighbor(int nsend, const uint64_t *send_blocks, int nrecv,
                             const uint64_t *recv_blocks);

#endif
