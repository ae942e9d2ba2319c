/* See ends.h. */
#include "ends.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/otf2.h>

enum { MAX_DEPTH = 256 };

typedef struct {
    uint64_t events, last_time;
    uint32_t stack[MAX_DEPTH];
    uint64_t entered[MAX_DEPTH];
    int depth;
    /* the regions left at the last timestamp, innermost first (the crash path and
     * MPI_Finalize close what is open at the time of ProgramEnd) */
    uint32_t closing[MAX_DEPTH];
    uint64_t closing_entered[MAX_DEPTH];
    int nclosing;
    uint64_t closing_time;
    int ended;
    int64_t status;
    uint32_t where;
    uint64_t where_entered;
} rank_end_t;

typedef struct {
    char **strings;
    uint32_t nstrings;
    uint32_t *region_name; /* region -> string */
    uint32_t nregions;
    uint64_t global_offset, resolution;
    int nranks; /* master-thread locations: ids below 2^32 are ranks */
} names_t;

static void grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    *p = realloc(*p, (size_t)n * elem);
    memset((char *)*p + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *cap = n;
}

static uint32_t strings_cap, regions_cap;

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef ref, const char *s)
{
    names_t *n = u;
    grow((void **)&n->strings, &strings_cap, ref + 1, sizeof *n->strings);
    n->strings[ref] = strdup(s);
    if (ref >= n->nstrings) n->nstrings = ref + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef ref, OTF2_StringRef name,
                                   OTF2_StringRef cn, OTF2_StringRef d, OTF2_RegionRole role,
                                   OTF2_Paradigm p, OTF2_RegionFlag f, OTF2_StringRef file,
                                   uint32_t b, uint32_t e)
{
    (void)cn, (void)d, (void)role, (void)p, (void)f, (void)file, (void)b, (void)e;
    names_t *n = u;
    grow((void **)&n->region_name, &regions_cap, ref + 1, sizeof *n->region_name);
    n->region_name[ref] = name;
    if (ref >= n->nregions) n->nregions = ref + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *u, uint64_t res, uint64_t offset, uint64_t len,
                                  uint64_t epoch)
{
    (void)len, (void)epoch;
    names_t *n = u;
    n->resolution = res;
    n->global_offset = offset;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef ref, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    (void)name, (void)type, (void)events, (void)group;
    names_t *n = u;
    if (ref < (UINT64_C(1) << 32) && (int)ref + 1 > n->nranks) n->nranks = (int)ref + 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* Counts an event; 0 where its time runs backwards: the stream is damaged from there (a
 * file cut after a whole chunk makes libotf2 read that chunk's memory again, forever), and
 * the event is not counted. */
static int seen(rank_end_t *r, uint64_t t)
{
    if (t < r->last_time) return 0;
    r->events++;
    r->last_time = t;
    return 1;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)l, (void)a;
    rank_end_t *r = u;
    if (!seen(r, t)) return OTF2_CALLBACK_INTERRUPT;
    if (r->depth < MAX_DEPTH) r->stack[r->depth] = region, r->entered[r->depth] = t;
    r->depth++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    (void)l, (void)a;
    rank_end_t *r = u;
    if (!seen(r, t)) return OTF2_CALLBACK_INTERRUPT;
    if (t != r->closing_time || r->nclosing == 0) r->nclosing = 0, r->closing_time = t;
    if (r->depth > 0) r->depth--;
    if (r->nclosing < MAX_DEPTH) {
        r->closing_entered[r->nclosing] = r->depth < MAX_DEPTH ? r->entered[r->depth] : t;
        r->closing[r->nclosing++] = region;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_program_end(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                                        OTF2_AttributeList *a, int64_t status)
{
    (void)l, (void)a;
    rank_end_t *r = u;
    if (!seen(r, t)) return OTF2_CALLBACK_INTERRUPT;
    r->ended = 1;
    r->status = status;
    if (r->nclosing && r->closing_time == t) {
        r->where = r->closing[0] + 1;
        r->where_entered = r->closing_entered[0];
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Every other event only counts. */
static OTF2_CallbackCode on_unknown(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                                    OTF2_AttributeList *a)
{
    (void)l, (void)a;
    if (!seen(u, t)) return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

#define COUNTER(name, ...)                                                                \
    static OTF2_CallbackCode name(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p,       \
                                  void *u, OTF2_AttributeList *a, __VA_ARGS__)            \
    {                                                                                     \
        (void)p;                                                                          \
        return on_unknown(l, t, u, a);                                                    \
    }

static OTF2_CallbackCode enter_cb(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)p;
    return on_enter(l, t, u, a, r);
}
static OTF2_CallbackCode leave_cb(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)p;
    return on_leave(l, t, u, a, r);
}
static OTF2_CallbackCode end_cb(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u,
                                OTF2_AttributeList *a, int64_t status)
{
    (void)p;
    return on_program_end(l, t, u, a, status);
}
static OTF2_CallbackCode unknown_cb(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u,
                                    OTF2_AttributeList *a)
{
    (void)p;
    return on_unknown(l, t, u, a);
}
COUNTER(begin_cb, OTF2_StringRef prog, uint32_t n, const OTF2_StringRef *args)

static const char *region_name(const names_t *n, uint32_t region)
{
    if (region >= n->nregions) return "?";
    uint32_t s = n->region_name[region];
    return s < n->nstrings && n->strings[s] ? n->strings[s] : "?";
}

static void print_rank(FILE *out, int rank, const rank_end_t *r, const names_t *n, int exists)
{
    const char *kind = !exists || r->events == 0 ? "none" : !r->ended ? "cut" : "flushed";
    uint32_t where = OTF2_UNDEFINED_REGION;
    uint64_t entered = 0;
    if (r->ended && r->where) where = r->where - 1, entered = r->where_entered;
    else if (!r->ended && r->depth > 0 && r->depth <= MAX_DEPTH)
        where = r->stack[r->depth - 1], entered = r->entered[r->depth - 1];
    const char *name = where == OTF2_UNDEFINED_REGION ? "-" : region_name(n, where);
    if (r->ended && strcmp(name, "MPI_Finalize") == 0 && r->status == 0) kind = "complete";
    double res = n->resolution ? (double)n->resolution : 1e9;
    double end_s = r->events && r->last_time > n->global_offset
                       ? (double)(r->last_time - n->global_offset) / res
                       : 0.0;
    fprintf(out, "%d\t%s\t%" PRIu64 "\t%.6f\t%s\t", rank, kind, r->events, end_s, name);
    if (r->ended) fprintf(out, "%" PRId64, r->status);
    else fprintf(out, "-");
    if (where == OTF2_UNDEFINED_REGION) fprintf(out, "\t-\n");
    else fprintf(out, "\t%.6f\n", entered > n->global_offset
                                       ? (double)(entered - n->global_offset) / res : 0.0);
}

int gs_trace_ends(const char *dir, FILE *out)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(path);
    if (!rd) return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    names_t n;
    memset(&n, 0, sizeof n);
    strings_cap = regions_cap = 0;
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gd) {
        OTF2_Reader_Close(rd);
        return -1;
    }
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, gcb, &n);
    uint64_t ndefs = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &ndefs);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gd);
    if (rc != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return -1;
    }
    int nranks = n.nranks;
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, enter_cb);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, leave_cb);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, end_cb);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, begin_cb);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, unknown_cb);
    for (int r = 0; r < nranks; r++) {
        rank_end_t e;
        memset(&e, 0, sizeof e);
        snprintf(path, sizeof path, "%s/traces/%d.evt", dir, r);
        int exists = access(path, F_OK) == 0;
        if (exists) {
            /* One reader per rank: a damaged stream must not stop the others. */
            snprintf(path, sizeof path, "%s/traces.otf2", dir);
            OTF2_Reader *one = OTF2_Reader_Open(path);
            if (one) {
                OTF2_Reader_SetSerialCollectiveCallbacks(one);
                OTF2_Reader_SelectLocation(one, (uint64_t)r);
                int defs = OTF2_Reader_OpenDefFiles(one) == OTF2_SUCCESS;
                OTF2_Reader_OpenEvtFiles(one);
                /* The event reader first: libotf2 attaches the local definitions read
                 * next (mapping tables, clock offsets) to it. */
                OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(one, (uint64_t)r);
                OTF2_DefReader *dr = er && defs ? OTF2_Reader_GetDefReader(one, (uint64_t)r) : NULL;
                if (dr) {
                    uint64_t nlocal = 0;
                    OTF2_Reader_ReadAllLocalDefinitions(one, dr, &nlocal);
                    OTF2_Reader_CloseDefReader(one, dr);
                }
                if (er) {
                    OTF2_Reader_RegisterEvtCallbacks(one, er, cb, &e);
                    uint64_t read = 0;
                    OTF2_Reader_ReadAllLocalEvents(one, er, &read);
                    OTF2_Reader_CloseEvtReader(one, er);
                }
                OTF2_Reader_CloseEvtFiles(one);
                if (defs) OTF2_Reader_CloseDefFiles(one);
                OTF2_Reader_Close(one);
            }
        }
        print_rank(out, r, &e, &n, exists);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    for (uint32_t i = 0; i < n.nstrings; i++) free(n.strings[i]);
    free(n.strings);
    free(n.region_name);
    OTF2_Reader_Close(rd);
    return nranks;
}
