/* Byte rules of MPI-IO and RMA operations, pending RMA operations (see xferbytes.h). */
#include <stdlib.h>

#include "xferbytes.h"

uint64_t gs_xfer_bytes(int64_t count, int64_t size)
{
    return count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
}

uint64_t gs_io_done_bytes(int elements, int64_t size, int byte_count, int undefined)
{
    if (elements != undefined) return gs_xfer_bytes(elements, size);
    return byte_count == undefined ? 0 : gs_xfer_bytes(byte_count, 1);
}

gs_bytes_t gs_rma_accumulate_bytes(int64_t origin_count, int64_t origin_size)
{
    gs_bytes_t b = {gs_xfer_bytes(origin_count, origin_size), 0};
    return b;
}

gs_bytes_t gs_rma_get_accumulate_bytes(int64_t origin_count, int64_t origin_size,
                                       int64_t result_count, int64_t result_size)
{
    gs_bytes_t b = {gs_xfer_bytes(origin_count, origin_size),
                    gs_xfer_bytes(result_count, result_size)};
    return b;
}

int gs_rma_pending_add(gs_rma_pending_t *p, uint32_t win, int target, uint64_t id)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        gs_rma_op_t *ops = realloc(p->ops, cap * sizeof *ops);
        if (!ops) return -1;
        p->ops = ops;
        p->cap = cap;
    }
    p->ops[p->n++] = (gs_rma_op_t){win, target, id};
    return 0;
}

/* Keeps the operations that do not match (in order); reports the others to done. */
static size_t sweep(gs_rma_pending_t *p, uint32_t win, int target,
                    void (*done)(void *, const gs_rma_op_t *), void *arg)
{
    size_t kept = 0, gone = 0;
    for (size_t i = 0; i < p->n; i++) {
        const gs_rma_op_t *op = &p->ops[i];
        if (op->win == win && (target < 0 || op->target == target)) {
            if (done) done(arg, op);
            gone++;
        } else {
            p->ops[kept++] = *op;
        }
    }
    p->n = kept;
    return gone;
}

size_t gs_rma_pending_complete(gs_rma_pending_t *p, uint32_t win, int target,
                               void (*done)(void *arg, const gs_rma_op_t *op), void *arg)
{
    return sweep(p, win, target, done, arg);
}

size_t gs_rma_pending_drop(gs_rma_pending_t *p, uint32_t win)
{
    return sweep(p, win, -1, NULL, NULL);
}

void gs_rma_pending_free(gs_rma_pending_t *p)
{
    free(p->ops);
    p->ops = NULL;
    p->n = p->cap = 0;
}
