/* gridscope-trace-repair [--ends] DIR: seal the event files a kill cut short (seal.h) and
 * complete the definitions of a run that died before MPI_Finalize. Each rank that flushed
 * after the failure left traces/<rank>.gsunify (its communicators, user regions, event
 * count, start-up clock offset); this program unifies
 * them as MPI_Finalize would have, rewrites the global definitions and the local
 * definitions (mapping tables) of those ranks, and removes the side files.
 * Exit 0 on success, 1 with one line on stderr otherwise (the archive is left as it was).
 * With --ends it then prints where each rank's events end (ends.h), also when there was
 * nothing to repair (no side files: every rank was killed before it could flush, or the
 * run ended normally) or the repair failed. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "defs.h"
#include "ends.h"
#include "seal.h"

typedef struct {
    int present;
    int64_t head[8];
    int64_t *blob;
} part_t;

static int fail(const char *dir, const char *what)
{
    fprintf(stderr, "gridscope: %s: cannot repair the definitions: %s\n", dir, what);
    return 1;
}

static int read_exact(FILE *f, void *p, size_t n)
{
    return fread(p, 1, n, f) == n;
}

/* The event chunk size the start-up anchor declares (the one the ranks wrote their
 * event files with); 0 if there is no readable anchor. */
static uint64_t anchor_event_chunk(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    if (access(path, R_OK) != 0) return 0;
    OTF2_Reader *r = OTF2_Reader_Open(path);
    if (!r) return 0;
    uint64_t evt = 0, def = 0;
    if (OTF2_Reader_GetChunkSize(r, &evt, &def) != OTF2_SUCCESS) evt = 0;
    OTF2_Reader_Close(r);
    return evt;
}

enum { NOTHING_TO_REPAIR = 3 };

/* name ends in `suffix` (".def", ".evt") after something */
static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

/* The host and metahost names and the command line of a run of `size` ranks. */
static int read_run_tail(FILE *f, int size)
{
    gs_run.hosts = malloc((size_t)size * GS_NAME_LEN);
    gs_run.metahosts = malloc((size_t)size * GS_NAME_LEN);
    int64_t len = 0;
    int ok = read_exact(f, gs_run.hosts, (size_t)size * GS_NAME_LEN) &&
             read_exact(f, gs_run.metahosts, (size_t)size * GS_NAME_LEN) &&
             read_exact(f, &len, sizeof len) && len > 0 && len < (1 << 24);
    if (ok) {
        gs_run.shared_cmdline = malloc((size_t)len);
        gs_run.shared_cmdline_len = (int)len;
        ok = read_exact(f, gs_run.shared_cmdline, (size_t)len);
    }
    return ok;
}

/* traces/run.gsrun, written by the archive master at start-up: 1 if read. */
static int read_run_info(const char *dir, int size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces/" GS_RUNINFO_FILE, dir);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int64_t head[2];
    int ok = read_exact(f, head, sizeof head) && head[0] == GS_RUNINFO_MAGIC && head[1] == size &&
             read_run_tail(f, size);
    fclose(f);
    return ok;
}

static int repair(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces", dir);
    DIR *d = opendir(path);
    if (!d) return fail(dir, "no traces/ folder");
    int size = -1, master = -1;
    part_t *parts = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        int rank;
        char tail[16];
        if (sscanf(e->d_name, "%d.%15s", &rank, tail) != 2) continue;
        if (strcmp(tail, "gsunify.part") == 0) { /* a rank killed while writing it */
            snprintf(path, sizeof path, "%s/traces/%s", dir, e->d_name);
            unlink(path);
            continue;
        }
        if (strcmp(tail, "gsunify")) continue;
        snprintf(path, sizeof path, "%s/traces/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        int64_t head[8];
        if (!f || !read_exact(f, head, sizeof head) || head[0] != GS_SIDECAR_MAGIC) {
            if (f) fclose(f);
            closedir(d);
            return fail(dir, "damaged side file");
        }
        if (size < 0) {
            size = (int)head[2];
            parts = calloc((size_t)size, sizeof *parts);
        }
        if (head[2] != size || head[1] < 0 || head[1] >= size) {
            fclose(f);
            closedir(d);
            return fail(dir, "side files of different runs");
        }
        part_t *p = &parts[head[1]];
        memcpy(p->head, head, sizeof head);
        p->blob = malloc((size_t)head[6] * sizeof(int64_t));
        int ok = read_exact(f, p->blob, (size_t)head[6] * sizeof(int64_t));
        if (ok && head[7]) {
            ok = read_run_tail(f, size);
            master = (int)head[1];
        }
        fclose(f);
        if (!ok) {
            closedir(d);
            return fail(dir, "truncated side file");
        }
        p->present = 1;
    }
    closedir(d);
    if (size < 0) return NOTHING_TO_REPAIR;
    /* The archive master killed before it could flush: the names from start-up. */
    if (master < 0 && !read_run_info(dir, size))
        return fail(dir, "the archive master's side file is missing");
    int known = master;  /* a rank whose side file is there */
    for (int r = 0; known < 0 && r < size; r++)
        if (parts[r].present) known = r;

    /* Ranks that never flushed contribute nothing but their place: a blob as
     * build_blob (defs.c) writes it, with event count, begin, end and no communicators,
     * user regions, I/O handles, RMA windows or thread locations. */
    enum { EMPTY_WORDS = 8 };
    int64_t empty[EMPTY_WORDS] = {0, INT64_MAX, INT64_MIN, 0, 0, 0, 0, 0};
    int *displs = calloc((size_t)size, sizeof(int));
    size_t total = 0;
    for (int r = 0; r < size; r++) total += parts[r].present ? (size_t)parts[r].head[6] : EMPTY_WORDS;
    int64_t *all = malloc(total * sizeof *all);
    size_t at = 0;
    for (int r = 0; r < size; r++) {
        displs[r] = (int)at;
        if (parts[r].present) {
            memcpy(all + at, parts[r].blob, (size_t)parts[r].head[6] * sizeof *all);
            at += (size_t)parts[r].head[6];
        } else {
            memcpy(all + at, empty, sizeof empty);
            at += EMPTY_WORDS;
        }
    }
    /* Missing ranks' begin/end must not widen the time range. */
    for (int r = 0; r < size; r++)
        if (!parts[r].present) {
            all[displs[r] + 1] = all[displs[known] + 1];
            all[displs[r] + 2] = all[displs[known] + 2];
        }

    gs.world_size = size;
    gs_topology_build(&gs_run.topo, size, gs_run.metahosts, gs_run.hosts, GS_NAME_LEN);
    int n = -1;
    for (int i = 0; i < gs_run.shared_cmdline_len; i++)
        if (gs_run.shared_cmdline[i] == '\0') n++;
    gs_run.nargs_shared = n;

    uint64_t evt_chunk = anchor_event_chunk(dir);
    if (!evt_chunk) return fail(dir, "no readable anchor (traces.otf2)");
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/.gridscope-repair", dir);
    OTF2_Archive *a = gs_defs_open_staging(
        tmp, "gridscope collector (definitions repaired after a crash)", evt_chunk);
    if (!a) return fail(dir, "cannot write a temporary archive");
    OTF2_Archive_OpenDefFiles(a);
    for (int r = 0; r < size; r++) {
        if (!parts[r].present) continue;
        gs_defs_unify_blobs(size, r, all, displs);
        gs.world_rank = r;
        gs_run.at_init = parts[r].head[3];
        gs_run.offset_init.offset = parts[r].head[4];
        gs_run.offset_init.error = parts[r].head[5];
        gs_run.has_fin = 0;
        gs_defs_write_local_all(a, r, 1);
    }
    OTF2_Archive_CloseDefFiles(a);
    gs_defs_write_global(OTF2_Archive_GetGlobalDefWriter(a));
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS) return fail(dir, "writing the definitions failed");

    /* The local definitions of every location written (ranks and their threads). */
    char from[4500], to[4500];
    snprintf(path, sizeof path, "%s/traces", tmp);
    d = opendir(path);
    while (d && (e = readdir(d))) {
        if (!has_suffix(e->d_name, ".def")) continue;
        snprintf(from, sizeof from, "%s/traces/%s", tmp, e->d_name);
        snprintf(to, sizeof to, "%s/traces/%s", dir, e->d_name);
        rename(from, to);
    }
    if (d) closedir(d);
    for (int r = 0; r < size; r++) {
        if (!parts[r].present) continue;
        snprintf(to, sizeof to, "%s/traces/%d.gsunify", dir, r);
        unlink(to);
    }
    gs_defs_publish_staging(tmp, dir);
    snprintf(to, sizeof to, "%s/traces/" GS_RUNINFO_FILE, dir);
    unlink(to);
    return 0;
}

/* Every event file of the archive, sealed where a kill cut it (seal.h); the chunk size
 * is the anchor's (nothing is sealed without a readable anchor). */
static void seal_event_files(const char *dir)
{
    uint64_t chunk = anchor_event_chunk(dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/traces", dir);
    DIR *d = chunk ? opendir(path) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!has_suffix(e->d_name, ".evt")) continue;
        snprintf(path, sizeof path, "%s/traces/%s", dir, e->d_name);
        gs_seal_file(path, chunk);
    }
    if (d) closedir(d);
}

/* libotf2 prints every error it meets; this tool reports one line itself. */
static OTF2_ErrorCode quiet(void *data, const char *file, uint64_t line, const char *func,
                            OTF2_ErrorCode code, const char *msg, va_list va)
{
    (void)data, (void)file, (void)line, (void)func, (void)msg, (void)va;
    return code;
}

int main(int argc, char **argv)
{
    OTF2_Error_RegisterCallback(quiet, NULL);
    int ends = argc == 3 && strcmp(argv[1], "--ends") == 0;
    if (argc != 2 + ends) {
        fprintf(stderr, "usage: gridscope-trace-repair [--ends] TRACE_DIR\n");
        return 2;
    }
    const char *dir = argv[1 + ends];
    seal_event_files(dir);
    int rc = repair(dir);
    if (rc == NOTHING_TO_REPAIR)
        rc = ends ? 0 : fail(dir, "no side files (traces/*.gsunify)");
    if (ends && gs_trace_ends(dir, stdout) < 0)
        rc = fail(dir, "cannot read the trace to tell where its ranks end");
    return rc;
}
