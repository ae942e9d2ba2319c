/* MPI-IO file handles and RMA windows: their local definitions (unified at finalize, as
 * communicators are) and the events of their operations in Score-P's sequences
 * (docs/collector.md, "MPI-IO and RMA"). */
#ifndef GS_IORMA_H
#define GS_IORMA_H
#include <mpi.h>
#include <stdint.h>

/* A file handle or a window as this rank defined it. Identity across ranks: the
 * communicator it was created on and its ordinal among the handles (windows) this rank
 * created on that communicator (the creating calls are collective over it). */
typedef struct {
    uint32_t comm;    /* local communicator ref */
    uint32_t ordinal;
    char *name;       /* file handles: the file's name */
} gs_xdef_t;

extern gs_xdef_t *gs_file_defs, *gs_win_defs;
extern uint32_t gs_file_ndefs, gs_win_ndefs;

/* A blocking I/O operation in flight: the handle's local ref and its matching id
 * (id 0: the file is not known, nothing is recorded). */
typedef struct {
    uint32_t handle;
    uint64_t id;
} gs_io_op_t;

#define GS_FILE_KEY(f) gs_handle_key(&(f), sizeof(MPI_File))
#define GS_WIN_KEY(w) gs_handle_key(&(w), sizeof(MPI_Win))

/* MPI-IO */
void gs_io_opened(uint64_t t, MPI_Comm comm, const char *filename, int amode, MPI_File fh);
void gs_io_closed(uint64_t t, uint64_t file_key);
gs_io_op_t gs_io_begin(uint64_t t, MPI_File fh, int mode, int flags, uint64_t bytes);
void gs_io_complete(uint64_t t, gs_io_op_t op, uint64_t bytes);

/* RMA: window creation and freeing, fence, the calls that complete operations, and the
 * operations. target < 0: every target. */
void gs_rma_coll_begin(uint64_t t);
void gs_win_created(uint64_t t, int ok, MPI_Win win, MPI_Comm comm, int op);
void gs_win_freed(uint64_t t, int ok, uint64_t win_key);
void gs_win_fence(uint64_t t, MPI_Win win);
void gs_rma_sync(uint64_t t, MPI_Win win, int target);
void gs_rma_put(uint64_t t, MPI_Win win, int target, uint64_t bytes);
void gs_rma_get(uint64_t t, MPI_Win win, int target, uint64_t bytes);
void gs_rma_atomic(uint64_t t, MPI_Win win, int target, int type, uint64_t put, uint64_t get);

#endif
