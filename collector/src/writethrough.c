/* See writethrough.h. */
#define _GNU_SOURCE
#include "writethrough.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* iov[0..n) at `at` in one call (the rest after a short write, which only a full disk or an
 * error makes). */
static int writev_all(int fd, struct iovec *iov, int n, uint64_t at)
{
    while (n > 0) {
        ssize_t k = pwritev(fd, iov, n, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        at += (uint64_t)k;
        while (n > 0 && (size_t)k >= iov->iov_len) k -= (ssize_t)iov->iov_len, iov++, n--;
        if (n > 0) iov->iov_base = (char *)iov->iov_base + k, iov->iov_len -= (size_t)k;
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
    /* A batch of chunks and the end mark after it go in one system call: a process killed
     * between two writes (SIGKILL from the launcher) left chunks without their mark, which
     * libotf2's reader never finishes. */
    enum { BATCH = 64 };
    for (size_t i = 0; i < n;) {
        struct iovec iov[BATCH + 1];
        int k = 0;
        uint64_t bytes = 0;
        for (; k < BATCH && i + (size_t)k < n; k++) {
            iov[k].iov_base = chunks[i + (size_t)k];
            iov[k].iov_len = (size_t)sizes[i + (size_t)k];
            bytes += sizes[i + (size_t)k];
        }
        const size_t last = i + (size_t)k - 1;
        unsigned char mark[GS_END_MARK_SIZE];
        const int marked = sizes[last] >= GS_OTF2_CHUNK_HEADER_SIZE;
        if (marked) {
            gs_end_mark(chunks[last], mark);
            iov[k].iov_base = mark;
            iov[k].iov_len = sizeof mark;
        }
        if (writev_all(w->fd, iov, k + marked, w->offset) != 0) return -1;
        w->offset += bytes;
        i += (size_t)k;
    }
    return 0;
}

void gs_writethrough_close(gs_writethrough_t *w)
{
    if (w->opened && w->fd >= 0) close(w->fd);
    w->opened = 0;
    w->fd = -1;
    w->offset = 0;
}
