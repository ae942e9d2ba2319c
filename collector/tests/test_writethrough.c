/* Write-through of flushed chunks: the bytes land at consecutive offsets of the file,
 * flush after flush, without truncating it, followed by the end mark (also when they take
 * more than one system call); a file that cannot be opened is reported. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "writethrough.h"

static size_t file_bytes(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(out, 1, cap, f);
    fclose(f);
    return n;
}

int main(void)
{
    char path[] = "/tmp/gs_test_writethrough_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);

    gs_writethrough_t w = {0, -1, 0};
    char a[4] = "abcd", b[3] = "efg", c[5] = "hijkl";
    void *first[] = {a, b};
    uint64_t first_sizes[] = {4, 3};
    CHECK(gs_writethrough(&w, path, first, first_sizes, 2) == 0);
    void *second[] = {c};
    uint64_t second_sizes[] = {5};
    CHECK(gs_writethrough(&w, path, second, second_sizes, 1) == 0);
    CHECK_EQ_U64(w.offset, 12);

    char got[64];
    size_t n = file_bytes(path, got, sizeof got);
    CHECK_EQ_U64(n, 12);
    CHECK(memcmp(got, "abcdefghijkl", 12) == 0);
    gs_writethrough_close(&w);
    CHECK(w.opened == 0 && w.offset == 0);
    unlink(path);

    /* Chunks as libotf2 writes them: after each write-through the file ends with an
     * empty chunk whose first event follows the last one written, then end of file; the
     * next write-through puts its chunk where that mark was. */
    unsigned char c1[32] = {GS_OTF2_CHUNK_HEADER, 'B'}, c2[32] = {GS_OTF2_CHUNK_HEADER, 'B'};
    uint64_t n_first = 1, n_last = 7;
    memcpy(c1 + 2, &n_first, 8);
    memcpy(c1 + 10, &n_last, 8);
    n_first = 8, n_last = 9;
    memcpy(c2 + 2, &n_first, 8);
    memcpy(c2 + 10, &n_last, 8);
    char path2[] = "/tmp/gs_test_writethrough_XXXXXX";
    fd = mkstemp(path2);
    CHECK(fd >= 0);
    close(fd);
    gs_writethrough_t e = {0, -1, 0};
    void *one[] = {c1};
    uint64_t size32[] = {32};
    CHECK(gs_writethrough(&e, path2, one, size32, 1) == 0);
    unsigned char buf[128];
    CHECK_EQ_U64(file_bytes(path2, (char *)buf, sizeof buf), 32 + GS_END_MARK_SIZE);
    uint64_t mark_first, mark_last;
    memcpy(&mark_first, buf + 32 + 2, 8);
    memcpy(&mark_last, buf + 32 + 10, 8);
    CHECK(buf[32] == GS_OTF2_CHUNK_HEADER && buf[33] == 'B');
    CHECK_EQ_U64(mark_first, 8);
    CHECK_EQ_U64(mark_last, 7);
    CHECK(buf[32 + GS_OTF2_CHUNK_HEADER_SIZE] == GS_OTF2_END_OF_FILE);
    void *two[] = {c2};
    CHECK(gs_writethrough(&e, path2, two, size32, 1) == 0);
    CHECK_EQ_U64(file_bytes(path2, (char *)buf, sizeof buf), 64 + GS_END_MARK_SIZE);
    CHECK(memcmp(buf + 32, c2, 32) == 0);
    memcpy(&mark_first, buf + 64 + 2, 8);
    CHECK_EQ_U64(mark_first, 10);
    gs_writethrough_close(&e);
    unlink(path2);

    /* More chunks than one system call takes (64): each call ends with its own mark, which
     * the next call's first chunk overwrites; the file ends with the last chunk's mark. */
    enum { MANY = 70 };
    static unsigned char many[MANY][32];
    void *many_p[MANY];
    uint64_t many_sizes[MANY];
    for (int i = 0; i < MANY; i++) {
        many[i][0] = GS_OTF2_CHUNK_HEADER, many[i][1] = 'B';
        uint64_t first_event = 2 * (uint64_t)i + 1, last_event = 2 * (uint64_t)i + 2;
        memcpy(many[i] + 2, &first_event, 8);
        memcpy(many[i] + 10, &last_event, 8);
        many_p[i] = many[i], many_sizes[i] = 32;
    }
    char path3[] = "/tmp/gs_test_writethrough_XXXXXX";
    fd = mkstemp(path3);
    CHECK(fd >= 0);
    close(fd);
    gs_writethrough_t m = {0, -1, 0};
    CHECK(gs_writethrough(&m, path3, many_p, many_sizes, MANY) == 0);
    CHECK_EQ_U64(m.offset, MANY * 32);
    static unsigned char whole[MANY * 32 + 64];
    CHECK_EQ_U64(file_bytes(path3, (char *)whole, sizeof whole), MANY * 32 + GS_END_MARK_SIZE);
    int same = 1;
    for (int i = 0; i < MANY; i++) same &= memcmp(whole + 32 * i, many[i], 32) == 0;
    CHECK(same);
    memcpy(&mark_first, whole + MANY * 32 + 2, 8);
    CHECK_EQ_U64(mark_first, 2 * MANY + 1);
    CHECK(whole[MANY * 32 + GS_OTF2_CHUNK_HEADER_SIZE] == GS_OTF2_END_OF_FILE);
    gs_writethrough_close(&m);
    unlink(path3);

    gs_writethrough_t missing = {0, -1, 0};
    CHECK(gs_writethrough(&missing, "/nonexistent-dir/0.evt", first, first_sizes, 2) == -1);
    gs_writethrough_close(&missing);
    CHECK_DONE();
}
