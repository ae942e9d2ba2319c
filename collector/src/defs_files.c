/* Definition unification and writing (see defs.h). The system tree follows
 * docs/metahosts.md: metacomputer -> machine (metahost) -> node (host) -> MPI Rank N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "comms.h"
#include "iorma.h"
#include "defs.h"
#include "defs_internal.h"
#include "threads.h"
#include "toolcoll.h"

/* The host and metahost names and the command line (the archive master's part of a side
 * file, and of traces/run.gsrun). */
static void write_run_tail(FILE *f)
{
    fwrite(gs_run.hosts, GS_NAME_LEN, (size_t)gs.world_size, f);
    fwrite(gs_run.metahosts, GS_NAME_LEN, (size_t)gs.world_size, f);
    int64_t len = gs_run.shared_cmdline_len;
    fwrite(&len, sizeof len, 1, f);
    fwrite(gs_run.shared_cmdline, 1, (size_t)len, f);
}

/* After a crash no unification over MPI is possible: each rank leaves its contribution
 * next to its event file (traces/<rank>.gsunify), and gridscope-trace-repair unifies
 * them afterwards. Archive masters add the run's host and metahost names and the
 * command line, which the global definitions need. */
void gs_defs_write_crash_sidecar(const char *dir, uint64_t t_begin, uint64_t t_end)
{
    blob_t b = {0};
    gs_defs_build_blob(&b, t_begin, t_end);
    /* Written aside and renamed: a complete side file is the sign that the rank's
     * flush is done (peers.h). */
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/traces/%d.gsunify", dir, gs.world_rank);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(b.w);
        return;
    }
    int64_t head[8] = {GS_SIDECAR_MAGIC, gs.world_rank, gs.world_size, gs_run.at_init,
                       gs_run.offset_init.offset, gs_run.offset_init.error, (int64_t)b.n,
                       gs_run.archive_master};
    fwrite(head, sizeof head, 1, f);
    fwrite(b.w, sizeof *b.w, b.n, f);
    if (gs_run.archive_master) write_run_tail(f);
    if (fclose(f) == 0) rename(tmp, path);
    else unlink(tmp);
    free(b.w);
}

void gs_defs_write_run_info(const char *dir)
{
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/traces/" GS_RUNINFO_FILE, dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    int64_t head[2] = {GS_RUNINFO_MAGIC, gs.world_size};
    fwrite(head, sizeof head, 1, f);
    write_run_tail(f);
    if (fclose(f) == 0) rename(tmp, path);
    else unlink(tmp);
}

void gs_defs_remove_run_info(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces/" GS_RUNINFO_FILE, dir);
    unlink(path);
}

static void write_map(OTF2_DefWriter *w, OTF2_MappingType type, const uint32_t *map, uint32_t n)
{
    if (!n) return;
    OTF2_IdMap *m = OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, n);
    for (uint32_t i = 0; i < n; i++) OTF2_IdMap_AddIdPair(m, i, map[i]);
    OTF2_DefWriter_WriteMappingTable(w, type, m);
    OTF2_IdMap_Free(m);
}

void gs_defs_write_local(OTF2_DefWriter *w, int final)
{
    OTF2_DefWriter_WriteClockOffset(w, (uint64_t)gs_run.at_init, gs_run.offset_init.offset,
                                    (double)gs_run.offset_init.error);
    if (gs_run.has_fin)
        OTF2_DefWriter_WriteClockOffset(w, (uint64_t)gs_run.at_fin, gs_run.offset_fin.offset,
                                        (double)gs_run.offset_fin.error);
    OTF2_IdMap *cm;
    if (final) {
        cm = OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, gs_run.ncomm_map);
        for (uint32_t i = 0; i < gs_run.ncomm_map; i++)
            OTF2_IdMap_AddIdPair(cm, i, gs_run.comm_map[i]);
    } else {
        /* After a crash only WORLD and SELF have global ids (provisional definitions). */
        cm = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 2);
        OTF2_IdMap_AddIdPair(cm, 0, 0);
        OTF2_IdMap_AddIdPair(cm, 1, 1);
    }
    OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_COMM, cm);
    OTF2_IdMap_Free(cm);
    if (final) {
        write_map(w, OTF2_MAPPING_IO_HANDLE, gs_run.file_map, gs_run.nfile_map);
        write_map(w, OTF2_MAPPING_RMA_WIN, gs_run.win_map, gs_run.nwin_map);
    }
    if (final && gs_run.nregion_map) {
        OTF2_IdMap *rm = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, gs_run.nregion_map);
        for (uint32_t i = 0; i < gs_run.nregion_map; i++)
            OTF2_IdMap_AddIdPair(rm, GS_NUM_MPI_REGIONS + i, gs_run.region_map[i]);
        OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_REGION, rm);
        OTF2_IdMap_Free(rm);
    }
}

/* The local definitions of the rank's master location and of its other threads'
 * locations: the same clock offsets (one clock per process) and mappings. */
void gs_defs_write_local_all(OTF2_Archive *a, int rank, int final)
{
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, gs_location_id(rank, 0));
    gs_defs_write_local(w, final);
    OTF2_Archive_CloseDefWriter(a, w);
    unified_t *u = U();
    for (uint32_t i = 0; u && i < u->nthreads; i++) {
        if (u->threads[i].rank != rank) continue;
        w = OTF2_Archive_GetDefWriter(a, gs_location_id(rank, u->threads[i].thread));
        gs_defs_write_local(w, final);
        OTF2_Archive_CloseDefWriter(a, w);
    }
}

static OTF2_FlushType always_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c,
                                   bool final)
{
    (void)u, (void)t, (void)l, (void)c, (void)final;
    return OTF2_FLUSH;
}
const OTF2_FlushCallbacks gs_defs_flush_callbacks = {always_flush, NULL};

/* Global definitions known at start-up (system tree, locations, MPI regions, WORLD and
 * SELF), written at once so that a run that dies before MPI_Finalize still leaves an
 * archive OTF2 readers open. A normal finalize overwrites them with the unified ones. */
void gs_defs_write_provisional(const char *dir, MPI_Comm comm, uint64_t t_begin)
{
    int64_t mine = (int64_t)t_begin + gs_run.offset_init.offset, begin = 0;
    (void)comm;
    begin = gs_tc_allreduce_i64(&gs_tc_world, mine, 1);
    if (!gs_run.archive_master) return;
    unified_t *u = gs_defs_new_unified(gs.world_size);
    u->provisional = 1;
    u->global_offset = begin < 0 ? 0 : (uint64_t)begin;
    u->trace_length = UINT64_C(1) << 52; /* unknown yet: ~52 days */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/.gridscope-provisional", dir);
    OTF2_Archive *a = gs_defs_open_staging(tmp, "gridscope collector (provisional definitions)",
                                           gs_run.evt_chunk);
    if (!a) return;
    void *saved = gs_run.unified;
    gs_run.unified = u;
    gs_defs_write_global(OTF2_Archive_GetGlobalDefWriter(a));
    gs_run.unified = saved;
    OTF2_Archive_Close(a);
    gs_defs_publish_staging(tmp, dir);
}

/* A definitions-only archive in `tmp`, written beside the real one and moved into place
 * by gs_defs_publish_staging, so readers never see a half-written anchor. Its anchor
 * replaces the real one, so it declares the real event chunk size: the event files of
 * a crashed run stay as the ranks wrote them. */
OTF2_Archive *gs_defs_open_staging(const char *tmp, const char *creator, uint64_t evt_chunk)
{
    OTF2_Archive *a = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE, evt_chunk,
                                        256 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a) return NULL;
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetFlushCallbacks(a, &gs_defs_flush_callbacks, NULL);
    OTF2_Archive_SetCreator(a, creator);
    return a;
}

/* Moves the staged anchor and global definitions over the archive in `dir` and removes
 * the staging folder (per-location files must have been moved out by the caller). */
void gs_defs_publish_staging(const char *tmp, const char *dir)
{
    char from[4500], to[4500];
    const char *files[] = {"traces.def", "traces.otf2"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/%s", tmp, files[i]);
        snprintf(to, sizeof to, "%s/%s", dir, files[i]);
        rename(from, to);
    }
    snprintf(from, sizeof from, "%s/traces", tmp);
    rmdir(from);
    rmdir(tmp);
}

/* This rank's local definitions as they stand after start-up (the start-up clock offset,
 * WORLD and SELF mappings), written at once: if the process dies before it can flush,
 * readers still find them. A clean finalize or a crash flush overwrites the file. */
void gs_defs_write_provisional_local(const char *dir)
{
    char tmp[4200], from[4400], to[4400];
    int rank = gs.world_rank;
    snprintf(tmp, sizeof tmp, "%s/.gridscope-provisional-%d", dir, rank);
    OTF2_Archive *a = OTF2_Archive_Open(tmp, "traces", OTF2_FILEMODE_WRITE, 256 * 1024,
                                        256 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a) return;
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetFlushCallbacks(a, &gs_defs_flush_callbacks, NULL);
    OTF2_Archive_OpenDefFiles(a);
    OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)rank);
    gs_defs_write_local(w, 0);
    OTF2_Archive_CloseDefWriter(a, w);
    OTF2_Archive_CloseDefFiles(a);
    OTF2_Archive_Close(a);
    snprintf(to, sizeof to, "%s/traces", dir);
    mkdir(to, 0777);
    snprintf(from, sizeof from, "%s/traces/%d.def", tmp, rank);
    snprintf(to, sizeof to, "%s/traces/%d.def", dir, rank);
    rename(from, to);
    const char *leftovers[] = {"traces.otf2", "traces.def"};
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/%s", tmp, leftovers[i]);
        unlink(from);
    }
    snprintf(from, sizeof from, "%s/traces", tmp);
    rmdir(from);
    rmdir(tmp);
}
