/* See writethrough.h. */
#define _GNU_SOURCE
#include "writethrough.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int write_all(int fd, const char *p, uint64_t n, uint64_t at)
{
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k, n -= (uint64_t)k, at += (uint64_t)k;
    }
    return 0;
}

void gs_end_mark(const unsigned char *last, unsigned char out[GS_END_MARK_SIZE])
{
    uint64_t last_event;
    memcpy(&last_event, last + 10, sizeof last_event); /* written by the same host */
    uint64_t first = last_event + 1;
    out[0] = GS_OTF2_CHUNK_HEADER;
    out[1] = last[1];
    memcpy(out + 2, &first, sizeof first);
    memcpy(out + 10, &last_event, sizeof last_event);
    out[GS_OTF2_CHUNK_HEADER_SIZE] = GS_OTF2_END_OF_FILE;
}

int gs_writethrough(gs_writethrough_t *w, const char *path, void *const *chunks,
                    const uint64_t *sizes, size_t n)
{
    if (!w->opened) {
        w->fd = open(path, O_WRONLY | O_CLOEXEC);
        w->opened = 1;
    }
    if (w->fd < 0) return -1;
    for (size_t i = 0; i < n; i++) {
        if (write_all(w->fd, chunks[i], sizes[i], w->offset) != 0) return -1;
        w->offset += sizes[i];
    }
    if (n == 0 || sizes[n - 1] < GS_OTF2_CHUNK_HEADER_SIZE) return 0;
    unsigned char mark[GS_END_MARK_SIZE];
    gs_end_mark(chunks[n - 1], mark);
    return write_all(w->fd, (const char *)mark, sizeof mark, w->offset);
}

void gs_writethrough_close(gs_writethrough_t *w)
{
    if (w->opened && w->fd >= 0) close(w->fd);
    w->opened = 0;
    w->fd = -1;
    w->offset = 0;
}
