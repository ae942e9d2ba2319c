/* Definitions: unification over MPI at finalize, global definitions (system tree with
 * metahosts, locations, regions, groups, communicators), local mapping tables and
 * clock offsets. */
#ifndef GS_DEFS_H
#define GS_DEFS_H
#include <mpi.h>
#include <otf2/otf2.h>

#include "clockmath.h"
#include "sync.h"

#define GS_NAME_LEN 128
enum { GS_STR_EMPTY = 0, GS_STR_PROGRAM = 1, GS_STR_ARG0 = 2 };

typedef struct {
    char *hosts, *metahosts; /* GS_NAME_LEN per world rank */
    gs_topology_t topo;
    int parts, archive_master;
    char *program;
    int nargs;
    char **args;
    /* rank 0's command line: every rank's ProgramBegin names these strings */
    int nargs_shared;
    OTF2_StringRef *arg_refs;
    char *shared_cmdline; /* rank 0's program and args, NUL-separated */
    int shared_cmdline_len;
    gs_offset_t offset_init, offset_fin;
    int64_t at_init, at_fin;
    int has_fin;
    uint64_t nevents;
    /* event chunk size of the archive: every anchor written for it (start-up, finalize,
     * repair) must declare it, or readers stop at the first chunk boundary */
    uint64_t evt_chunk;
    /* unification results */
    uint32_t *comm_map, ncomm_map;
    uint32_t *region_map, nregion_map;
    uint32_t *file_map, nfile_map; /* MPI-IO handles (iorma.h) */
    uint32_t *win_map, nwin_map;   /* RMA windows */
    void *unified; /* global view, built on archive masters */
} gs_run_t;

extern gs_run_t gs_run;

/* Shares rank 0's command line (collective on comm). */
void gs_defs_share_cmdline(MPI_Comm comm);
void gs_defs_write_provisional(const char *dir, MPI_Comm comm, uint64_t t_begin);
/* A definitions-only archive whose anchor declares event chunks of evt_chunk bytes. */
OTF2_Archive *gs_defs_open_staging(const char *tmp, const char *creator, uint64_t evt_chunk);
void gs_defs_publish_staging(const char *tmp, const char *dir);
void gs_defs_write_provisional_local(const char *dir);
void gs_defs_unify(MPI_Comm comm, uint64_t t_begin, uint64_t t_end);
/* The unification itself: blobs of n ranks (all + displs); mappings kept for rank me. */
void gs_defs_unify_blobs(int n, int me, const int64_t *all, const int *displs);
#define GS_SIDECAR_MAGIC 0x6773756e69667931LL
/* traces/run.gsrun: what the global definitions need from the archive master (host and
 * metahost names, the command line), written at start-up so that a crash repair does not
 * depend on the master having flushed; removed by a normal finalize and by the repair. */
#define GS_RUNINFO_MAGIC 0x677372756e696e31LL
#define GS_RUNINFO_FILE "run.gsrun"
void gs_defs_write_run_info(const char *dir);
void gs_defs_remove_run_info(const char *dir);
/* Flush callbacks for the small serial archives written outside the main one. */
extern const OTF2_FlushCallbacks gs_defs_flush_callbacks;
void gs_defs_write_crash_sidecar(const char *dir, uint64_t t_begin, uint64_t t_end);
void gs_defs_write_global(OTF2_GlobalDefWriter *w);
void gs_defs_write_local(OTF2_DefWriter *w, int final);
/* gs_defs_write_local for every location of `rank` in the unified view. */
void gs_defs_write_local_all(OTF2_Archive *a, int rank, int final);

/* User regions (user.c): local id -> name. */
uint32_t gs_user_region_count(void);
const char *gs_user_region_name(uint32_t i, int *paradigm);
uint64_t gs_parse_size(const char *s);
void gs_crash_flush(int exit_status);
#endif
