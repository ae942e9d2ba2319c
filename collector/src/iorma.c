/* MPI-IO and RMA events (see iorma.h). Score-P's sequences (SCOREP_Mpi_Io.c and its RMA
 * wrapper tasks; docs/collector.md, "MPI-IO and RMA"):
 *   MPI_File_open   IoCreateHandle(handle, access mode, creation flags, status flags)
 *   MPI_File_close  IoDestroyHandle(handle)
 *   read / write    IoOperationBegin(handle, mode, flags, bytes requested, id) at the Enter,
 *                   IoOperationComplete(handle, bytes transferred, id) before the Leave
 *   MPI_Win_create / _allocate(_shared) / _create_dynamic
 *                   RmaCollectiveBegin, RmaWinCreate(win), RmaCollectiveEnd(CREATE_HANDLE...)
 *   MPI_Win_free    RmaCollectiveBegin, RmaWinDestroy(win), RmaCollectiveEnd(DESTROY_HANDLE)
 *   MPI_Win_fence   RmaCollectiveBegin, RmaOpCompleteBlocking(win, id) per pending
 *                   operation on the window, RmaCollectiveEnd(BARRIER, memory|process)
 *   put / get / atomic   RmaPut / RmaGet / RmaAtomic(win, target, bytes, id) at the Enter;
 *                   completed (RmaOpCompleteBlocking) by the window's next fence, unlock,
 *                   flush or complete that covers its target.
 * The tables are the process's (threads share them, under gs_lock); the pending RMA
 * operations are the issuing location's. */
#include <stdlib.h>
#include <string.h>

#include "collector.h"

gs_xdef_t *gs_file_defs, *gs_win_defs;
uint32_t gs_file_ndefs, gs_win_ndefs;
static uint32_t file_cap, win_cap;

/* Open handles: MPI handle value -> local ref (few at a time: a list). */
typedef struct {
    uint64_t key;
    uint32_t ref;
} open_t;
typedef struct {
    open_t *v;
    size_t n, cap;
    uint32_t gen; /* changes whenever a handle opens or closes (1, 2, ...: 0 is never valid) */
} openlist_t;
static openlist_t open_files = {.gen = 1}, open_wins = {.gen = 1};

static void open_add(openlist_t *l, uint64_t key, uint32_t ref)
{
    __atomic_add_fetch(&l->gen, 1, __ATOMIC_RELEASE);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (open_t){key, ref};
}

/* The ref of key (UINT32_MAX: not open); removes it when `take`. */
static uint32_t open_find(openlist_t *l, uint64_t key, int take)
{
    for (size_t i = l->n; i-- > 0;)
        if (l->v[i].key == key) {
            uint32_t ref = l->v[i].ref;
            if (take) {
                l->v[i] = l->v[--l->n];
                __atomic_add_fetch(&l->gen, 1, __ATOMIC_RELEASE);
            }
            return ref;
        }
    return UINT32_MAX;
}

/* The ref of an open handle: this thread's last lookup when the table has not changed
 * since (an operation loop on one window or file takes no lock), else under the lock. */
static uint32_t lookup(openlist_t *l, gs_handle_cache_t *c, uint64_t key)
{
    if (c->gen == __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE) && c->key == key) return c->ref;
    gs_lock();
    c->gen = l->gen;
    c->ref = open_find(l, key, 0);
    c->key = key;
    gs_unlock();
    return c->ref;
}

static uint32_t win_ref(MPI_Win win)
{
    return lookup(&open_wins, &gs_cur()->last_win, GS_WIN_KEY(win));
}

static uint32_t file_ref(MPI_File fh)
{
    return lookup(&open_files, &gs_cur()->last_file, GS_FILE_KEY(fh));
}

/* A new definition on comm: its ordinal counts the earlier ones on the same comm. */
static uint32_t define(gs_xdef_t **defs, uint32_t *n, uint32_t *cap, uint32_t comm,
                       const char *name)
{
    uint32_t ordinal = 0;
    for (uint32_t i = 0; i < *n; i++) ordinal += (*defs)[i].comm == comm;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *defs = realloc(*defs, *cap * sizeof **defs);
    }
    (*defs)[*n] = (gs_xdef_t){comm, ordinal, strdup(name ? name : "")};
    return (*n)++;
}

/* ---------- MPI-IO ---------- */

static OTF2_IoAccessMode access_mode(int amode)
{
    if (amode & MPI_MODE_RDONLY) return OTF2_IO_ACCESS_MODE_READ_ONLY;
    if (amode & MPI_MODE_WRONLY) return OTF2_IO_ACCESS_MODE_WRITE_ONLY;
    return OTF2_IO_ACCESS_MODE_READ_WRITE;
}

void gs_io_opened(uint64_t t, MPI_Comm comm, const char *filename, int amode, MPI_File fh)
{
    uint32_t c = gs_comm_ref(comm);
    gs_lock();
    uint32_t ref = define(&gs_file_defs, &gs_file_ndefs, &file_cap, c, filename);
    open_add(&open_files, GS_FILE_KEY(fh), ref);
    gs_unlock();
    OTF2_IoCreationFlag creation = OTF2_IO_CREATION_FLAG_NONE;
    if (amode & MPI_MODE_CREATE) creation |= OTF2_IO_CREATION_FLAG_CREATE;
    if (amode & MPI_MODE_EXCL) creation |= OTF2_IO_CREATION_FLAG_EXCLUSIVE;
    OTF2_IoStatusFlag status = OTF2_IO_STATUS_FLAG_NONE;
    if (amode & MPI_MODE_APPEND) status |= OTF2_IO_STATUS_FLAG_APPEND;
    gs_loc_t *L = gs_cur();
    GS_EMIT(L, OTF2_EvtWriter_IoCreateHandle(L->evt, NULL, t, ref, access_mode(amode), creation,
                                             status));
}

void gs_io_closed(uint64_t t, uint64_t file_key)
{
    gs_lock();
    uint32_t ref = open_find(&open_files, file_key, 1);
    gs_unlock();
    gs_loc_t *L = gs_cur();
    if (ref != UINT32_MAX) GS_EMIT(L, OTF2_EvtWriter_IoDestroyHandle(L->evt, NULL, t, ref));
}

gs_io_op_t gs_io_begin(uint64_t t, MPI_File fh, int mode, int flags, uint64_t bytes)
{
    gs_io_op_t op = {0, 0};
    uint32_t ref = file_ref(fh);
    if (ref == UINT32_MAX) return op;
    gs_loc_t *L = gs_cur();
    op.handle = ref;
    op.id = ++L->next_request_id;
    GS_EMIT(L, OTF2_EvtWriter_IoOperationBegin(L->evt, NULL, t, ref, (OTF2_IoOperationMode)mode,
                                               (OTF2_IoOperationFlag)flags, bytes, op.id));
    return op;
}

void gs_io_complete(uint64_t t, gs_io_op_t op, uint64_t bytes)
{
    gs_loc_t *L = gs_cur();
    if (op.id)
        GS_EMIT(L, OTF2_EvtWriter_IoOperationComplete(L->evt, NULL, t, op.handle, bytes, op.id));
}

/* ---------- RMA ---------- */

void gs_rma_coll_begin(uint64_t t)
{
    gs_loc_t *L = gs_cur();
    GS_EMIT(L, OTF2_EvtWriter_RmaCollectiveBegin(L->evt, NULL, t));
}

static void coll_end(uint64_t t, int op, OTF2_RmaSyncLevel level, uint32_t win)
{
    gs_loc_t *L = gs_cur();
    GS_EMIT(L, OTF2_EvtWriter_RmaCollectiveEnd(L->evt, NULL, t, (OTF2_CollectiveOp)op, level,
                                               win == UINT32_MAX ? OTF2_UNDEFINED_RMA_WIN : win,
                                               OTF2_UNDEFINED_UINT32, 0, 0));
}

void gs_win_created(uint64_t t, int ok, MPI_Win win, MPI_Comm comm, int op)
{
    uint32_t ref = UINT32_MAX;
    if (ok && win != MPI_WIN_NULL) {
        uint32_t c = gs_comm_ref(comm);
        gs_lock();
        ref = define(&gs_win_defs, &gs_win_ndefs, &win_cap, c, NULL);
        open_add(&open_wins, GS_WIN_KEY(win), ref);
        gs_unlock();
        gs_loc_t *L = gs_cur();
        GS_EMIT(L, OTF2_EvtWriter_RmaWinCreate(L->evt, NULL, t, ref));
    }
    coll_end(t, op, OTF2_RMA_SYNC_LEVEL_PROCESS, ref);
}

void gs_win_freed(uint64_t t, int ok, uint64_t win_key)
{
    gs_lock();
    uint32_t ref = open_find(&open_wins, win_key, ok);
    gs_unlock();
    if (ok && ref != UINT32_MAX) {
        gs_loc_t *L = gs_cur();
        gs_rma_pending_drop(&L->rma, ref);
        GS_EMIT(L, OTF2_EvtWriter_RmaWinDestroy(L->evt, NULL, t, ref));
    }
    coll_end(t, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, OTF2_RMA_SYNC_LEVEL_PROCESS, ref);
}

typedef struct {
    gs_loc_t *loc;
    uint64_t t;
} done_ctx_t;

static void complete_one(void *arg, const gs_rma_op_t *op)
{
    done_ctx_t *c = arg;
    GS_EMIT(c->loc, OTF2_EvtWriter_RmaOpCompleteBlocking(c->loc->evt, NULL, c->t, op->win, op->id));
}

void gs_rma_sync(uint64_t t, MPI_Win win, int target)
{
    uint32_t ref = win_ref(win);
    if (ref == UINT32_MAX) return;
    gs_loc_t *L = gs_cur();
    done_ctx_t c = {L, t};
    gs_rma_pending_complete(&L->rma, ref, target, complete_one, &c);
}

void gs_win_fence(uint64_t t, MPI_Win win)
{
    gs_rma_sync(t, win, -1);
    coll_end(t, OTF2_COLLECTIVE_OP_BARRIER,
             OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, win_ref(win));
}

/* The window and a fresh matching id of an operation to record (0: do not record). */
static uint64_t issue(MPI_Win win, int target, uint32_t *ref)
{
    if (target == MPI_PROC_NULL) return 0;
    *ref = win_ref(win);
    if (*ref == UINT32_MAX) return 0;
    gs_loc_t *L = gs_cur();
    uint64_t id = ++L->next_request_id;
    gs_rma_pending_add(&L->rma, *ref, target, id);
    return id;
}

void gs_rma_put(uint64_t t, MPI_Win win, int target, uint64_t bytes)
{
    uint32_t ref;
    uint64_t id = issue(win, target, &ref);
    gs_loc_t *L = gs_cur();
    if (id) GS_EMIT(L, OTF2_EvtWriter_RmaPut(L->evt, NULL, t, ref, (uint32_t)target, bytes, id));
}

void gs_rma_get(uint64_t t, MPI_Win win, int target, uint64_t bytes)
{
    uint32_t ref;
    uint64_t id = issue(win, target, &ref);
    gs_loc_t *L = gs_cur();
    if (id) GS_EMIT(L, OTF2_EvtWriter_RmaGet(L->evt, NULL, t, ref, (uint32_t)target, bytes, id));
}

void gs_rma_atomic(uint64_t t, MPI_Win win, int target, int type, uint64_t put, uint64_t get)
{
    uint32_t ref;
    uint64_t id = issue(win, target, &ref);
    gs_loc_t *L = gs_cur();
    if (id)
        GS_EMIT(L, OTF2_EvtWriter_RmaAtomic(L->evt, NULL, t, ref, (uint32_t)target,
                                            (OTF2_RmaAtomicType)type, put, get, id));
}
