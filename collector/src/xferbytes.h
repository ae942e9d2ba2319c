/* Bytes of MPI-IO and one-sided (RMA) operations as Score-P records them, and the list of
 * RMA operations awaiting completion. Plain C (no MPI): unit-tested on its own
 * (tests/test_xferbytes.c); mpi_bytes.c feeds it the datatype sizes.
 *
 * Sources (docs/collector.md, "MPI-IO and RMA"): Score-P's MPI-IO wrappers (SCOREP_Mpi_Io.c:
 * IoOperationBegin requests count x type size, IoOperationComplete reports the elements
 * the status holds x type size) and its RMA wrapper tasks (wrapgen rma tasks: RmaPut /
 * RmaGet carry origin count x origin type size; accumulates put that and get nothing;
 * get-accumulates also get result count x result type size; nothing for MPI_PROC_NULL). */
#ifndef GS_XFERBYTES_H
#define GS_XFERBYTES_H
#include <stddef.h>
#include <stdint.h>

#include "collbytes.h" /* gs_bytes_t: (sent, recvd) = (put, get) for RMA atomics */

/* count elements of a type of `size` bytes (MPI_Type_size's result, which already
 * accounts for a derived type's content); 0 for a negative count or size (MPI_UNDEFINED). */
uint64_t gs_xfer_bytes(int64_t count, int64_t size);

/* Bytes an I/O call transferred: the status's element count (MPI_Get_count with the
 * call's type) x type size; when that count is undefined (a partial element) the status's
 * byte count (MPI_Get_count with MPI_BYTE) instead. `undefined` is MPI_UNDEFINED. */
uint64_t gs_io_done_bytes(int elements, int64_t size, int byte_count, int undefined);

/* MPI_Accumulate / MPI_Raccumulate: the origin data goes to the target. */
gs_bytes_t gs_rma_accumulate_bytes(int64_t origin_count, int64_t origin_size);
/* MPI_Get_accumulate / MPI_Rget_accumulate: origin data out, the target's old data back. */
gs_bytes_t gs_rma_get_accumulate_bytes(int64_t origin_count, int64_t origin_size,
                                       int64_t result_count, int64_t result_size);

/* RMA operations issued but not yet completed: (window, target, matching id) in issue
 * order. A synchronisation completes those of a window, or of one target in it. */
typedef struct {
    uint32_t win;
    int target;
    uint64_t id;
} gs_rma_op_t;

typedef struct {
    gs_rma_op_t *ops;
    size_t n, cap;
} gs_rma_pending_t;

/* Appends an operation; 0 ok, -1 no memory. */
int gs_rma_pending_add(gs_rma_pending_t *p, uint32_t win, int target, uint64_t id);
/* Removes the operations on `win` (to `target`, or to any target when target < 0), in
 * issue order, calling done(arg, op) for each; returns how many. */
size_t gs_rma_pending_complete(gs_rma_pending_t *p, uint32_t win, int target,
                               void (*done)(void *arg, const gs_rma_op_t *op), void *arg);
/* Forgets the operations on `win` without completing them (the window is freed). */
size_t gs_rma_pending_drop(gs_rma_pending_t *p, uint32_t win);
void gs_rma_pending_free(gs_rma_pending_t *p);

#endif
