/* See seal.h. */
#define _GNU_SOURCE
#include "seal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { END_OF_CHUNK = 0, END_OF_BUFFER = 1, TIMESTAMP = 5, ATTRIBUTE_LIST = 6 };

static uint64_t u64_at(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v); /* written by a host of the reader's endianness (repair runs
                                where the trace was written) */
    return v;
}

/* The seal after `events` whole events of the chunk whose header is `head` (a copy of a
 * sound header), the last of them ending at `keep`. */
static int seal_here(const unsigned char *head, uint64_t at, uint64_t first, uint64_t events,
                     uint64_t keep, gs_seal_plan_t *plan)
{
    uint64_t last = first + events - 1; /* first - 1 without events: an empty last chunk */
    memcpy(plan->header, head, GS_OTF2_CHUNK_HEADER_SIZE);
    memcpy(plan->header + 2, &first, sizeof first);
    memcpy(plan->header + 10, &last, sizeof last);
    plan->header_at = at;
    plan->eof_at = keep;
    return GS_SEAL_NEEDED;
}

int gs_seal_plan(const unsigned char *data, uint64_t len, uint64_t chunk, gs_seal_plan_t *plan)
{
    if (len == 0) return GS_SEAL_SOUND;
    const uint64_t head = GS_OTF2_CHUNK_HEADER_SIZE;
    uint64_t expect = 1, last_time = 0;
    for (uint64_t start = 0; start < len; start += chunk) {
        const uint64_t end = start + chunk < len ? start + chunk : len;
        const int is_last = end == len;
        if (end - start < head + 1 || data[start] != GS_OTF2_CHUNK_HEADER ||
            data[start + 1] != data[1] || u64_at(data + start + 2) != expect) {
            if (start == 0) return GS_SEAL_NOTHING_KEPT;
            if (!is_last) return GS_SEAL_DAMAGED_INSIDE;
            /* a sound chunk before: an empty last chunk after it (its header as model) */
            return seal_here(data, start, expect, 0, start + head, plan);
        }
        const uint64_t first = expect, count = u64_at(data + start + 10) - first + 1;
        uint64_t pos = start + head, keep = pos, events = 0;
        int ended = 0; /* END_OF_CHUNK (1) or END_OF_FILE (2) where the header says */
        while (pos < end) {
            const unsigned char kind = data[pos];
            if (kind == END_OF_CHUNK || kind == GS_OTF2_END_OF_FILE) {
                if (events == count) ended = kind == END_OF_CHUNK ? 1 : 2;
                break;
            }
            if (kind == END_OF_BUFFER || kind == GS_OTF2_CHUNK_HEADER) break;
            if (kind == TIMESTAMP) {
                if (pos + 9 > end) break;
                const uint64_t t = u64_at(data + pos + 1);
                if (t < last_time) break;
                last_time = t;
                pos += 9;
                continue;
            }
            if (pos + 2 > end) break;
            uint64_t length = data[pos + 1], skip = 2;
            if (length == 0xFF) {
                if (pos + 10 > end) break;
                length = u64_at(data + pos + 2), skip = 10;
            }
            if (length > end - pos - skip) break;
            pos += skip + length;
            if (kind != ATTRIBUTE_LIST) events++, keep = pos;
        }
        if (ended == 2) return GS_SEAL_SOUND; /* readers stop there, whatever follows */
        if (ended == 1 && !is_last) {
            expect = first + count;
            continue;
        }
        if (!is_last) return GS_SEAL_DAMAGED_INSIDE;
        return seal_here(data + start, start, first, events, keep, plan);
    }
    return GS_SEAL_SOUND; /* not reached: the last chunk returns */
}

int gs_seal_file(const char *path, uint64_t chunk)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -2;
    struct stat st;
    unsigned char *data = NULL;
    int rc = -2;
    if (fstat(fd, &st) != 0 || !(data = malloc((size_t)st.st_size + 1))) goto done;
    if (pread(fd, data, (size_t)st.st_size, 0) != st.st_size) goto done;
    gs_seal_plan_t plan;
    rc = gs_seal_plan(data, (uint64_t)st.st_size, chunk, &plan);
    if (rc != GS_SEAL_NEEDED) goto done;
    const unsigned char eof = GS_OTF2_END_OF_FILE;
    if (pwrite(fd, plan.header, sizeof plan.header, (off_t)plan.header_at) !=
            (ssize_t)sizeof plan.header ||
        pwrite(fd, &eof, 1, (off_t)plan.eof_at) != 1 ||
        ftruncate(fd, (off_t)plan.eof_at + 1) != 0)
        rc = -2;
done:
    free(data);
    close(fd);
    return rc;
}
