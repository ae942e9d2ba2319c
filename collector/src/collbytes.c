/* Score-P byte conventions for collectives (Score-P scorep_mpi_coll_counts.inc.c):
 * tested in tests/test_collbytes.c, used by the generated wrappers via mpi_bytes.c. */
#include "collbytes.h"

gs_bytes_t gs_bytes_barrier(void)
{
    gs_bytes_t b = {0, 0};
    return b;
}

gs_bytes_t gs_bytes_all_to_one(int n, int me, int root, uint64_t send_block,
                               uint64_t recv_block, int inplace)
{
    gs_bytes_t b = {0, 0};
    if (me == root) {
        /* The root's own contribution counts as sent and received unless in place. */
        b.sent = inplace ? 0 : recv_block;
        b.recvd = (uint64_t)(inplace ? n - 1 : n) * recv_block;
    } else {
        b.sent = send_block;
    }
    return b;
}

gs_bytes_t gs_bytes_one_to_all(int n, int me, int root, uint64_t send_block,
                               uint64_t recv_block, int inplace)
{
    /* Mirror image of all-to-one. */
    gs_bytes_t m = gs_bytes_all_to_one(n, me, root, recv_block, send_block, inplace);
    gs_bytes_t b = {m.recvd, m.sent};
    return b;
}

gs_bytes_t gs_bytes_gatherv(int n, int me, int root, uint64_t send_block,
                            const uint64_t *recv_blocks, int inplace)
{
    gs_bytes_t b = {0, 0};
    if (me != root) {
        b.sent = send_block;
        return b;
    }
    for (int i = 0; i < n; i++) b.recvd += recv_blocks[i];
    if (inplace)
        b.recvd -= recv_blocks[me];
    else
        b.sent = recv_blocks[me];
    return b;
}

gs_bytes_t gs_bytes_scatterv(int n, int me, int root, const uint64_t *send_blocks,
                             uint64_t recv_block, int inplace)
{
    gs_bytes_t m = gs_bytes_gatherv(n, me, root, recv_block, send_blocks, inplace);
    gs_bytes_t b = {m.recvd, m.sent};
    return b;
}

gs_bytes_t gs_bytes_all_to_all(int n, uint64_t send_block, uint64_t recv_block, int inplace)
{
    gs_bytes_t b;
    if (inplace) {
        b.sent = b.recvd = (uint64_t)(n - 1) * recv_block;
    } else {
        b.sent = (uint64_t)n * send_block;
        b.recvd = (uint64_t)n * recv_block;
    }
    return b;
}

gs_bytes_t gs_bytes_all_to_allv(int n, int me, const uint64_t *send_blocks,
                                const uint64_t *recv_blocks, int inplace)
{
    gs_bytes_t b = {0, 0};
    for (int i = 0; i < n; i++) {
        b.recvd += recv_blocks[i];
        if (!inplace) b.sent += send_blocks[i];
    }
    if (inplace) {
        b.recvd -= recv_blocks[me];
        b.sent = b.recvd; /* pairwise exchange: as much out as in */
    }
    return b;
}

gs_bytes_t gs_bytes_allgatherv(int n, int me, uint64_t send_block,
                               const uint64_t *recv_blocks, int inplace)
{
    gs_bytes_t b = {0, 0};
    for (int i = 0; i < n; i++) b.recvd += recv_blocks[i];
    if (inplace) {
        b.recvd -= recv_blocks[me];
        b.sent = (uint64_t)(n - 1) * recv_blocks[me];
    } else {
        b.sent = (uint64_t)n * send_block;
    }
    return b;
}

gs_bytes_t gs_bytes_reduce_scatter(int n, int me, const uint64_t *recv_blocks, int inplace)
{
    gs_bytes_t b = {0, 0};
    for (int i = 0; i < n; i++) b.sent += recv_blocks[i];
    if (inplace) {
        b.sent -= recv_blocks[me];
        b.recvd = (uint64_t)(n - 1) * recv_blocks[me];
    } else {
        b.recvd = (uint64_t)n * recv_blocks[me];
    }
    return b;
}

gs_bytes_t gs_bytes_reduce_scatter_block(int n, uint64_t block, int inplace)
{
    gs_bytes_t b;
    b.sent = b.recvd = (uint64_t)(inplace ? n - 1 : n) * block;
    return b;
}

gs_bytes_t gs_bytes_scan(int n, int me, uint64_t block, int inplace)
{
    gs_bytes_t b;
    if (inplace) {
        b.sent = (uint64_t)(n - me - 1) * block;
        b.recvd = (uint64_t)me * block;
    } else {
        b.sent = (uint64_t)(n - me) * block;
        b.recvd = (uint64_t)(me + 1) * block;
    }
    return b;
}

gs_bytes_t gs_bytes_exscan(int n, int me, uint64_t block)
{
    /* Exscan never sends to itself: counted like an in-place Scan. */
    return gs_bytes_scan(n, me, block, 1);
}

gs_bytes_t gs_bytes_neighbor(int nsend, const uint64_t *send_blocks, int nrecv,
                             const uint64_t *recv_blocks)
{
    gs_bytes_t b = {0, 0};
    for (int i = 0; i < nsend; i++) b.sent += send_blocks[i];
    for (int i = 0; i < nrecv; i++) b.recvd += recv_blocks[i];
    return b;
}
