/* User regions (include/gridscope/user.h) and -finstrument-functions support.
 * Regions get local ids after the MPI functions; finalize unifies them by name. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "defs.h"
#include "gridscope/user.h"

typedef struct {
    char *name;
    int paradigm;
} uregion_t;

static uregion_t *regions;
static uint32_t nregions, cap;
/* name -> index+1, open addressing on the string hash */
static uint32_t *table;
static uint32_t tcap;

static uint32_t hash(const char *s, int paradigm)
{
    uint32_t h = 2166136261u ^ (uint32_t)paradigm;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void grow(void)
{
    free(table);
    tcap = tcap ? tcap * 2 : 256;
    table = calloc(tcap, sizeof *table);
    for (uint32_t i = 0; i < nregions; i++) {
        uint32_t j = hash(regions[i].name, regions[i].paradigm) & (tcap - 1);
        while (table[j]) j = (j + 1) & (tcap - 1);
        table[j] = i + 1;
    }
}

static uint32_t region_id_locked(const char *name, int paradigm)
{
    if ((nregions + 1) * 2 > tcap) grow();
    uint32_t j = hash(name, paradigm) & (tcap - 1);
    while (table[j]) {
        uregion_t *r = &regions[table[j] - 1];
        if (r->paradigm == paradigm && strcmp(r->name, name) == 0)
            return GS_NUM_MPI_REGIONS + table[j] - 1;
        j = (j + 1) & (tcap - 1);
    }
    if (nregions == cap) {
        cap = cap ? 2 * cap : 64;
        regions = realloc(regions, cap * sizeof *regions);
    }
    regions[nregions].name = strdup(name);
    regions[nregions].paradigm = paradigm;
    table[j] = ++nregions;
    return GS_NUM_MPI_REGIONS + nregions - 1;
}

/* Threads of the rank share the table. */
static uint32_t region_id(const char *name, int paradigm)
{
    gs_lock();
    uint32_t id = region_id_locked(name, paradigm);
    gs_unlock();
    return id;
}

uint32_t gs_user_region_count(void)
{
    return nregions;
}

const char *gs_user_region_name(uint32_t i, int *paradigm)
{
    *paradigm = regions[i].paradigm;
    return regions[i].name;
}

GS_PUBLIC void gs_user_region_begin(const char *name)
{
    if (gs_on()) gs_enter(region_id(name, OTF2_PARADIGM_USER));
}

GS_PUBLIC void gs_user_region_end(const char *name)
{
    if (gs_on()) gs_leave(region_id(name, OTF2_PARADIGM_USER));
}

/* ---- -finstrument-functions: names from dladdr (build the program with -rdynamic),
 * filtered by GRIDSCOPE_FILTER_INCLUDE / GRIDSCOPE_FILTER_EXCLUDE (comma-separated
 * globs; exclude wins). Functions recorded only while the measurement is on. ---- */

typedef struct {
    void *fn;
    int32_t id; /* region id, -1 filtered out, -2 unknown yet */
} fnslot_t;
static fnslot_t *fns;
static uint32_t fncap, fnused;

static int matches_list(const char *list, const char *name)
{
    if (!list || !*list) return 0;
    char *copy = strdup(list), *save = NULL;
    int hit = 0;
    for (char *g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save))
        hit = fnmatch(g, name, 0) == 0;
    free(copy);
    return hit;
}

static int32_t classify(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_sname) return -1;
    const char *name = info.dli_sname;
    const char *inc = getenv("GRIDSCOPE_FILTER_INCLUDE");
    if (inc && *inc && !matches_list(inc, name)) return -1;
    if (matches_list(getenv("GRIDSCOPE_FILTER_EXCLUDE"), name)) return -1;
    return (int32_t)region_id_locked(name, OTF2_PARADIGM_COMPILER);
}

__attribute__((no_instrument_function)) static int32_t function_region_locked(void *fn)
{
    if ((fnused + 1) * 2 > fncap) {
        fnslot_t *old = fns;
        uint32_t oldcap = fncap;
        fncap = fncap ? fncap * 2 : 1024;
        fns = calloc(fncap, sizeof *fns);
        fnused = 0;
        for (uint32_t i = 0; i < oldcap; i++) {
            if (!old[i].fn) continue;
            uint32_t j = (uint32_t)(((uintptr_t)old[i].fn >> 4) * 2654435761u) & (fncap - 1);
            while (fns[j].fn) j = (j + 1) & (fncap - 1);
            fns[j] = old[i];
            fnused++;
        }
        free(old);
    }
    uint32_t j = (uint32_t)(((uintptr_t)fn >> 4) * 2654435761u) & (fncap - 1);
    while (fns[j].fn && fns[j].fn != fn) j = (j + 1) & (fncap - 1);
    if (!fns[j].fn) {
        fns[j].fn = fn;
        fns[j].id = classify(fn); /* region_id_locked: the caller holds the lock */
        fnused++;
    }
    return fns[j].id;
}

/* Threads of the rank share the table. */
__attribute__((no_instrument_function)) static int32_t function_region(void *fn)
{
    gs_lock();
    int32_t id = function_region_locked(fn);
    gs_unlock();
    return id;
}

GS_PUBLIC __attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    if (!gs_on()) return;
    int32_t id = function_region(fn);
    if (id >= 0) gs_enter((uint32_t)id);
}

GS_PUBLIC __attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (!gs_on()) return;
    int32_t id = function_region(fn);
    if (id >= 0) gs_leave((uint32_t)id);
}
