/* Event buffer of the measurement core: bounded memory, flushed to disk when full (OTF2
 * memory and flush callbacks of the rank's archive), and the buffer size parser. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector.h"
#include "core_internal.h"
#include "defs.h"
#include "writethrough.h"

typedef struct {
    void **chunks;
    uint64_t *sizes;
    size_t n, cap;
    uint64_t bytes; /* event chunks held */
#ifndef GS_SMPI
    gs_writethrough_t file; /* the location's event file (writethrough.h) */
#endif
} chunk_list_t;

/* The budget is the process's: its locations (one per recording thread) share it, so
 * the count is atomic and a flush gives back what that location held. */
uint64_t gs_buffer_budget;
static uint64_t buffer_used;

static void *buf_alloc(void *u, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                       uint64_t size)
{
    (void)u, (void)loc;
    chunk_list_t *l = *per;
    /* Returning NULL makes OTF2 flush this buffer to disk and reuse its chunks; a
     * location that holds none yet gets its first one whatever the others hold. */
    if (type == OTF2_FILETYPE_EVENTS && l && l->n &&
        __atomic_load_n(&buffer_used, __ATOMIC_RELAXED) + size > gs_buffer_budget)
        return NULL;
    if (!l) {
        *per = l = calloc(1, sizeof *l);
#ifndef GS_SMPI
        l->file.fd = -1;
#endif
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->chunks = realloc(l->chunks, l->cap * sizeof *l->chunks);
        l->sizes = realloc(l->sizes, l->cap * sizeof *l->sizes);
    }
    void *c = malloc(size);
    if (!c) return NULL;
    l->sizes[l->n] = size;
    l->chunks[l->n++] = c;
    if (type == OTF2_FILETYPE_EVENTS) {
        l->bytes += size;
        __atomic_add_fetch(&buffer_used, size, __ATOMIC_RELAXED);
    }
    return c;
}

#ifndef GS_SMPI
/* Set by pre_flush for the flush that follows on this thread: the last one of a
 * location (its writer is being closed) ends with a partly used chunk, which libotf2
 * writes itself, together with everything it still holds, when it closes the file. */
static __thread int flush_is_final;

/* After an intermediate flush: the chunks libotf2 has just written are still ours; put
 * the same bytes in the event file now (writethrough.h). */
static void write_through(chunk_list_t *l, OTF2_LocationRef loc)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/traces/%" PRIu64 ".evt", gs_trace_dir, (uint64_t)loc);
    gs_writethrough(&l->file, path, l->chunks, l->sizes, l->n);
}
#endif

static void buf_free_all(void *u, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                         bool final)
{
    (void)u, (void)loc;
    chunk_list_t *l = *per;
    if (!l) return;
#ifndef GS_SMPI
    if (type == OTF2_FILETYPE_EVENTS && !final && !flush_is_final && l->n)
        write_through(l, loc);
    if (final) gs_writethrough_close(&l->file);
#endif
    for (size_t i = 0; i < l->n; i++) free(l->chunks[i]);
    if (type == OTF2_FILETYPE_EVENTS) __atomic_sub_fetch(&buffer_used, l->bytes, __ATOMIC_RELAXED);
    l->bytes = 0;
    l->n = 0;
    if (final) {
        free(l->chunks);
        free(l->sizes);
        free(l);
        *per = NULL;
    }
}

const OTF2_MemoryCallbacks gs_buffer_memory_callbacks = {buf_alloc, buf_free_all};

#ifndef GS_SMPI
/* Test-only: GRIDSCOPE_TEST_SIGNAL_IN_FLUSH="RANK:N" makes that rank's main thread raise
 * SIGTERM inside its Nth intermediate flush, that is half-way through writing an event
 * (collector.h, GS_EMIT; tests/collector/test_crash_long.py). */
static void test_signal_in_flush(void)
{
    static int rank = -2, at;
    static int flushes;
    if (rank == -2) {
        const char *spec = getenv("GRIDSCOPE_TEST_SIGNAL_IN_FLUSH");
        if (!spec || sscanf(spec, "%d:%d", &rank, &at) != 2) rank = -1;
    }
    if (rank == gs.world_rank && gs_cur() == &gs_master && ++flushes == at) raise(SIGTERM);
}
#endif

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c,
                                bool final)
{
    (void)u, (void)t, (void)l, (void)c;
#ifndef GS_SMPI
    flush_is_final = final;
    if (!final && t == OTF2_FILETYPE_EVENTS) test_signal_in_flush();
#else
    (void)final;
#endif
    return OTF2_FLUSH;
}

/* OTF2 records each intermediate flush as a BufferFlush event ending at this time. */
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u, (void)t, (void)l;
    return gs_time();
}

const OTF2_FlushCallbacks gs_buffer_flush_callbacks = {pre_flush, post_flush};

/* "16M", "512K", "1G", plain bytes. Returns 0 on a bad value. */
uint64_t gs_parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0) return 0;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    return *end ? 0 : (uint64_t)v;
}
