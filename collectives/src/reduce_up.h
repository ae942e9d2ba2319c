/* Shared by reduce.c and allreduce.c: the pipelined up-phase of a reduction tree. */
#ifndef GS_REDUCE_UP_H
#define GS_REDUCE_UP_H
#include "gsc_internal.h"

typedef void (*gsc_seg_done_fn)(int seg, int off, int cnt, void *ctx);

/* acc holds this rank's contribution; on return it holds, segment by segment, the
 * reduction over this rank's subtree (children combined in tree order: acc = child op acc).
 * Each finished segment is sent to the parent and passed to done (if any). Sends to the
 * parent are complete on return. */
int gsc_reduce_up(char *acc, int count, MPI_Datatype dt, MPI_Op op, const gsc_tree_t *tr, int me,
                 int seg_elems, int tag, MPI_Comm comm, gsc_seg_done_fn done, void *ctx,
                 const gsc_topo_t *t);

/* Typed copy (count elements of dt) from src to dst. */
int gsc_copy(const void *src, void *dst, int count, MPI_Datatype dt);
#endif
