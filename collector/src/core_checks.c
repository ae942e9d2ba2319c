/* Start-up checks of the measurement core (core.c): failures agreed over the ranks, the
 * trace folder, clock skew for tests, the command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "comms.h"
#include "defs.h"
#include "gridscope/metahost.h"
#include "otf2coll.h"
#include "peers.h"
#ifndef GS_SMPI
#include <otf2/OTF2_Pthread_Locks.h>
#endif
#include "sync.h"
#include "threads.h"
#include "toolcoll.h"
#include "writethrough.h"
#include "core_checks.h"

/* Start-up checks fail in stages (metahost, folder, buffer, archive); the first stage
 * that fails anywhere is reported by its lowest failing rank, in one line. key: this
 * rank's stage * size + rank, or -1 if it passed; returns whether any rank failed. */
int gs_agree_failure(int64_t key, int64_t first, const char *msg)
{
    if (first == INT64_MAX) return 0;
    if (key == first) {
        fprintf(stderr, "gridscope: %s; the program runs unmeasured\n", msg);
        fflush(stderr);
    }
    return 1;
}

int64_t gs_failure_key(int stage)
{
    return (int64_t)stage * gs.world_size + gs.world_rank;
}

int gs_mkdir_p(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

/* The trace folder: GRIDSCOPE_TRACE_DIR, "%m" replaced by the metahost name (one archive
 * part per metahost, for machines without a shared file system). */
int gs_trace_folder(char *out, size_t len, const char *metahost, int *parts)
{
    const char *dir = getenv("GRIDSCOPE_TRACE_DIR");
    if (!dir || !*dir) dir = "gridscope-trace";
    const char *m = strstr(dir, "%m");
    *parts = m != NULL;
    if (m)
        snprintf(out, len, "%.*s%s%s", (int)(m - dir), dir, metahost, m + 2);
    else
        snprintf(out, len, "%s", dir);
    return 0;
}

int gs_check_folder(const char *dir, char *err, size_t err_len)
{
    if (gs_mkdir_p(dir) != 0) {
        snprintf(err, err_len, "%s: cannot create trace folder: %s", dir, strerror(errno));
        return -1;
    }
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.gridscope-write-test", dir);
    FILE *f = fopen(probe, "w");
    if (!f) {
        snprintf(err, err_len, "%s: cannot write trace folder: %s", dir, strerror(errno));
        return -1;
    }
    fclose(f);
    unlink(probe);
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) == 0) {
        snprintf(err, err_len, "%s: holds a trace already (traces.otf2)", dir);
        return -1;
    }
    return 0;
}

void gs_parse_skew(const char *metahost)
{
    /* GRIDSCOPE_TEST_CLOCK_SKEW="mh:offset_seconds:drift,...", test-only. */
    const char *spec = getenv("GRIDSCOPE_TEST_CLOCK_SKEW");
    if (!spec) return;
    char *copy = strdup(spec), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char name[128];
        double off = 0, drift = 0;
        if (sscanf(item, "%127[^:]:%lf:%lf", name, &off, &drift) >= 2 &&
            strcmp(name, metahost) == 0) {
            gs.skew_offset = (int64_t)(off * 1e9);
            gs.skew_drift = drift;
            gs.skewed = 1;
        }
    }
    free(copy);
}

void gs_read_cmdline(int *argc, char ***argv, char **name, int *nargs, char ***args)
{
    if (argc && argv && *argv && *argc > 0) {
        *name = (*argv)[0];
        *nargs = *argc - 1;
        *args = *argv + 1;
        return;
    }
    static char buf[4096];
    static char *vec[64];
    int n = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[len] = '\0';
    for (size_t i = 0; i < len && n < 64; i += strlen(buf + i) + 1) vec[n++] = buf + i;
    *name = n ? vec[0] : "program";
    *nargs = n ? n - 1 : 0;
    *args = vec + 1;
}
