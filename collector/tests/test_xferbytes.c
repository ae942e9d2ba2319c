/* Byte rules of MPI-IO and RMA operations (Score-P's, xferbytes.h) and the pending RMA
 * operations a synchronisation completes. Sizes are what MPI_Type_size returns: a derived
 * type's size is the bytes of its content (a vector of 3 blocks of 2 ints: 24). */
#include "check.h"
#include "xferbytes.h"

enum { UNDEF = -32766 }; /* stands for MPI_UNDEFINED */

static uint64_t seen[8];
static int nseen;
static void note(void *arg, const gs_rma_op_t *op)
{
    (void)arg;
    seen[nseen++] = op->id;
}

int main(void)
{
    /* count x size; a derived type (24-byte vector) counts its content */
    CHECK_EQ_U64(gs_xfer_bytes(256, 4), 1024);
    CHECK_EQ_U64(gs_xfer_bytes(5, 24), 120);
    CHECK_EQ_U64(gs_xfer_bytes(0, 8), 0);
    CHECK_EQ_U64(gs_xfer_bytes(-1, 8), 0);
    CHECK_EQ_U64(gs_xfer_bytes(3, UNDEF), 0);
    CHECK_EQ_U64(gs_xfer_bytes(3000000000LL, 8), 24000000000ULL); /* no 32-bit overflow */

    /* I/O results: elements x size; a partial element falls back to the byte count */
    CHECK_EQ_U64(gs_io_done_bytes(256, 4, 1024, UNDEF), 1024);
    CHECK_EQ_U64(gs_io_done_bytes(10, 4, 37, UNDEF), 40); /* elements win when defined */
    CHECK_EQ_U64(gs_io_done_bytes(0, 4, 0, UNDEF), 0);    /* end of file */
    CHECK_EQ_U64(gs_io_done_bytes(UNDEF, 24, 30, UNDEF), 30);
    CHECK_EQ_U64(gs_io_done_bytes(UNDEF, 24, UNDEF, UNDEF), 0);

    /* atomics: accumulate puts the origin; get-accumulate also gets the result */
    gs_bytes_t a = gs_rma_accumulate_bytes(1, 4);
    CHECK_EQ_U64(a.sent, 4);
    CHECK_EQ_U64(a.recvd, 0);
    gs_bytes_t g = gs_rma_get_accumulate_bytes(2, 8, 3, 8);
    CHECK_EQ_U64(g.sent, 16);
    CHECK_EQ_U64(g.recvd, 24);
    g = gs_rma_get_accumulate_bytes(0, 8, 3, 8); /* MPI_NO_OP: a fetch only */
    CHECK_EQ_U64(g.sent, 0);
    CHECK_EQ_U64(g.recvd, 24);

    /* pending operations: per window, per target, in issue order */
    gs_rma_pending_t p = {0};
    for (int i = 0; i < 40; i++) /* past the first growth */
        CHECK(gs_rma_pending_add(&p, (uint32_t)(i % 2), i % 3, (uint64_t)i + 1) == 0);
    CHECK_EQ_U64(p.n, 40);
    /* window 1, target 2: ids i+1 for odd i with i % 3 == 2 -> i = 5, 11, 17, 23, 29, 35 */
    nseen = 0;
    CHECK_EQ_U64(gs_rma_pending_complete(&p, 1, 2, note, NULL), 6);
    CHECK_EQ_U64(nseen, 6);
    CHECK_EQ_U64(seen[0], 6);
    CHECK_EQ_U64(seen[5], 36);
    CHECK_EQ_U64(p.n, 34);
    CHECK_EQ_U64(gs_rma_pending_complete(&p, 1, 2, note, NULL), 0); /* already done */
    /* the rest of window 1 (any target): 20 odd ids minus the 6 */
    nseen = 0;
    CHECK_EQ_U64(gs_rma_pending_complete(&p, 1, -1, NULL, NULL), 14);
    CHECK_EQ_U64(nseen, 0);
    CHECK_EQ_U64(p.n, 20);
    for (size_t i = 0; i < p.n; i++) CHECK(p.ops[i].win == 0);
    CHECK_EQ_U64(p.ops[0].id, 1); /* order kept */
    CHECK_EQ_U64(p.ops[19].id, 39);
    CHECK_EQ_U64(gs_rma_pending_drop(&p, 0), 20);
    CHECK_EQ_U64(p.n, 0);
    gs_rma_pending_free(&p);
    CHECK_DONE();
}
