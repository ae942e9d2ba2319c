/* Score-P byte conventions per collective, checked on every rank of small communicators
 * (style of Score-P's collectives_byte_calc_test): roots, MPI_IN_PLACE, v-variants. */
#include "check.h"
#include "collbytes.h"

#define B(expr_sent, expr_recvd, call)          \
    do {                                        \
        gs_bytes_t b_ = (call);                 \
        CHECK_EQ_U64(b_.sent, (expr_sent));     \
        CHECK_EQ_U64(b_.recvd, (expr_recvd));   \
    } while (0)

int main(void)
{
    const int n = 4;
    const uint64_t blk = 3 * 8; /* 3 doubles */

    B(0, 0, gs_bytes_barrier());

    for (int root = 0; root < n; root++)
        for (int me = 0; me < n; me++) {
            /* Bcast: root sends a copy to every rank (itself included), others receive one. */
            if (me == root)
                B(n * blk, blk, gs_bytes_one_to_all(n, me, root, blk, blk, 0));
            else
                B(0, blk, gs_bytes_one_to_all(n, me, root, blk, blk, 0));
            /* Reduce / Gather: mirror image; in place, the root's own block does not move. */
            if (me == root) {
                B(blk, n * blk, gs_bytes_all_to_one(n, me, root, blk, blk, 0));
                B(0, (n - 1) * blk, gs_bytes_all_to_one(n, me, root, blk, blk, 1));
                B((n - 1) * blk, 0, gs_bytes_one_to_all(n, me, root, blk, blk, 1));
            } else {
                B(blk, 0, gs_bytes_all_to_one(n, me, root, blk, 0, 0));
            }
        }

    /* Gatherv / Scatterv with unequal blocks 1,2,3,4 bytes. */
    uint64_t v[4] = {1, 2, 3, 4};
    B(3, 10, gs_bytes_gatherv(n, 2, 2, 3, v, 0));
    B(0, 7, gs_bytes_gatherv(n, 2, 2, 3, v, 1));
    B(2, 0, gs_bytes_gatherv(n, 1, 2, 2, NULL, 0));
    B(10, 3, gs_bytes_scatterv(n, 2, 2, v, 3, 0));
    B(7, 0, gs_bytes_scatterv(n, 2, 2, v, 3, 1));
    B(0, 4, gs_bytes_scatterv(n, 3, 2, NULL, 4, 0));

    /* Allreduce / Allgather / Alltoall. */
    B(n * blk, n * blk, gs_bytes_all_to_all(n, blk, blk, 0));
    B((n - 1) * blk, (n - 1) * blk, gs_bytes_all_to_all(n, 0, blk, 1));
    B(n * 5, n * 7, gs_bytes_all_to_all(n, 5, 7, 0));

    /* Alltoallv: send 1..4, receive 4..1 per peer. */
    uint64_t s[4] = {1, 2, 3, 4}, r[4] = {4, 3, 2, 1};
    B(10, 10, gs_bytes_all_to_allv(n, 0, s, r, 0));
    B(6, 6, gs_bytes_all_to_allv(n, 0, NULL, r, 1)); /* in place: own block 4 excluded */

    /* Allgatherv: own block counted n-1 times in place. */
    B(n * 2, 10, gs_bytes_allgatherv(n, 1, 2, v, 0));
    B((n - 1) * 2, 8, gs_bytes_allgatherv(n, 1, 0, v, 1));

    /* Reduce_scatter: blocks 1,2,3,4; rank 2 keeps 3. */
    B(10, n * 3, gs_bytes_reduce_scatter(n, 2, v, 0));
    B(7, (n - 1) * 3, gs_bytes_reduce_scatter(n, 2, v, 1));
    B(n * blk, n * blk, gs_bytes_reduce_scatter_block(n, blk, 0));
    B((n - 1) * blk, (n - 1) * blk, gs_bytes_reduce_scatter_block(n, blk, 1));

    /* Scan: rank me sends to ranks me..n-1 and receives from 0..me. */
    for (int me = 0; me < n; me++) {
        B((n - me) * blk, (me + 1) * blk, gs_bytes_scan(n, me, blk, 0));
        B((n - me - 1) * blk, me * blk, gs_bytes_scan(n, me, blk, 1));
        B((n - me - 1) * blk, me * blk, gs_bytes_exscan(n, me, blk));
    }
    /* Edge: a communicator of one. */
    B(blk, blk, gs_bytes_one_to_all(1, 0, 0, blk, blk, 0));
    B(0, 0, gs_bytes_all_to_all(1, 0, blk, 1));
    /* Neighbourhood collectives: only the blocks of existing neighbours are counted, with
     * different numbers of send and receive slots (distributed graphs). */
    {
        const uint64_t send[3] = {8, 16, 24}, recv[2] = {40, 4};
        B(48, 44, gs_bytes_neighbor(3, send, 2, recv));
        B(0, 44, gs_bytes_neighbor(0, send, 2, recv));
        B(8, 0, gs_bytes_neighbor(1, send, 0, recv));
    }
    CHECK_DONE();
}
