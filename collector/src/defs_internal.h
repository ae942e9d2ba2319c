/* Private to the collector's definitions (defs.c: string table and global definitions;
 * defs_unify.c: unification over MPI; defs_files.c: local definitions, crash side files,
 * provisional archives and staging): the unified view and the unification blob. */
#ifndef GS_DEFS_INTERNAL_H
#define GS_DEFS_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "defs.h"

typedef struct {
    int kind;
    uint32_t seq;
    int size;
    int64_t *members;
    char name[64];
    uint32_t group;
} gcomm_t;

typedef struct {
    int size;
    int64_t *members;
} ggroup_t;

typedef struct {
    char *name;
    int paradigm;
} guser_t;

/* A location of a thread other than a rank's master thread. */
typedef struct {
    int rank;
    uint32_t thread; /* its number in the rank (1, 2, ...) */
    uint64_t nevents;
} gthread_t;

/* An MPI-IO handle or RMA window: communicator (global ref), ordinal on it, file. */
typedef struct {
    uint32_t comm, ordinal, file;
} gxdef_t;

typedef struct {
    int nranks;
    uint64_t *nevents;
    gthread_t *threads; /* by rank, then thread number */
    uint32_t nthreads;
    uint64_t global_offset, trace_length;
    gcomm_t *comms;
    uint32_t ncomms;
    ggroup_t *groups;
    uint32_t ngroups;
    guser_t *user;
    uint32_t nuser;
    gxdef_t *handles, *wins; /* MPI-IO handles and RMA windows */
    uint32_t nhandles, nwins;
    char **files; /* file names, by IoRegularFile ref */
    uint32_t nfiles;
    int provisional;
} unified_t;

static inline unified_t *U(void)
{
    return (unified_t *)gs_run.unified;
}

/* A rank's contribution to unification, as 64-bit words. */
typedef struct {
    int64_t *w;
    size_t n, cap;
} blob_t;

/* An empty global view for n ranks (defs_unify.c). */
unified_t *gs_defs_new_unified(int n);
/* This rank's contribution: communicators, groups, regions, I/O handles, windows. */
void gs_defs_build_blob(blob_t *b, uint64_t t_begin, uint64_t t_end);

#endif
