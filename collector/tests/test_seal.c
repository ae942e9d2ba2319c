/* Sealing cut event files (seal.h) on small hand-made chunk series: a sound file is left
 * alone; a file cut in a record, after a stray byte, right after a whole chunk, at a
 * chunk's end without its end of file, or where time runs backwards keeps exactly its
 * whole events before the damage; a damaged first header keeps nothing; damage before the
 * last chunk is left alone. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "seal.h"

enum { CHUNK = 64, TS = 5, ENTER = 12, LEAVE = 13, EOC = 0, EOFILE = 2 };

typedef struct {
    unsigned char b[4 * CHUNK];
    uint64_t n;
} file_t;

static void header(file_t *f, uint64_t first, uint64_t last)
{
    f->b[f->n++] = GS_OTF2_CHUNK_HEADER;
    f->b[f->n++] = 0x42;
    memcpy(f->b + f->n, &first, 8);
    memcpy(f->b + f->n + 8, &last, 8);
    f->n += 16;
}

static void timestamp(file_t *f, uint64_t t)
{
    f->b[f->n++] = TS;
    memcpy(f->b + f->n, &t, 8);
    f->n += 8;
}

static void event(file_t *f, unsigned char kind, unsigned char region)
{
    f->b[f->n++] = kind;
    f->b[f->n++] = 1;
    f->b[f->n++] = region;
}

static void byte(file_t *f, unsigned char v)
{
    f->b[f->n++] = v;
}

static void pad_to(file_t *f, uint64_t at)
{
    while (f->n < at) f->b[f->n++] = 0xAB; /* the unused rest of a chunk */
}

/* Two events at t=10, 20, then END_OF_FILE (or a cut where the caller stops). */
static file_t one_chunk(uint64_t header_last)
{
    file_t f = {.n = 0};
    header(&f, 1, header_last);
    timestamp(&f, 10);
    event(&f, ENTER, 7);
    timestamp(&f, 20);
    event(&f, LEAVE, 7);
    return f;
}

static uint64_t last_of(const gs_seal_plan_t *p)
{
    uint64_t v;
    memcpy(&v, p->header + 10, 8);
    return v;
}

static uint64_t first_of(const gs_seal_plan_t *p)
{
    uint64_t v;
    memcpy(&v, p->header + 2, 8);
    return v;
}

int main(void)
{
    gs_seal_plan_t p;

    /* sound: ends with END_OF_FILE where the header says; empty: nothing to do */
    file_t f = one_chunk(2);
    byte(&f, EOFILE);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_SOUND);
    CHECK(gs_seal_plan(f.b, 0, CHUNK, &p) == GS_SEAL_SOUND);

    /* cut in the middle of the second event: the first is kept */
    f = one_chunk(2);
    const uint64_t after_first = 18 + 9 + 3;
    CHECK(gs_seal_plan(f.b, f.n - 1, CHUNK, &p) == GS_SEAL_NEEDED);
    CHECK_EQ_U64(p.header_at, 0);
    CHECK_EQ_U64(first_of(&p), 1);
    CHECK_EQ_U64(last_of(&p), 1);
    CHECK_EQ_U64(p.eof_at, after_first);
    CHECK(p.header[0] == GS_OTF2_CHUNK_HEADER && p.header[1] == 0x42);

    /* a stray timestamp byte before a timestamp record (a record written half-way): the
     * shifted bytes read as a timestamp, then as END_OF_CHUNK with an event missing */
    f = one_chunk(3);
    byte(&f, TS);
    timestamp(&f, 30);
    event(&f, ENTER, 8);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_NEEDED);
    CHECK_EQ_U64(last_of(&p), 2);
    CHECK_EQ_U64(p.eof_at, after_first + 12);

    /* the last chunk ends with END_OF_CHUNK: no next chunk to read, END_OF_FILE there */
    f = one_chunk(2);
    byte(&f, EOC);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_NEEDED);
    CHECK_EQ_U64(last_of(&p), 2);
    CHECK_EQ_U64(p.eof_at, f.n - 1);

    /* a whole first chunk, then a second cut inside its header: an empty last chunk */
    f = one_chunk(2);
    byte(&f, EOC);
    pad_to(&f, CHUNK);
    header(&f, 3, 4);
    CHECK(gs_seal_plan(f.b, CHUNK + 5, CHUNK, &p) == GS_SEAL_NEEDED);
    CHECK_EQ_U64(p.header_at, CHUNK);
    CHECK_EQ_U64(first_of(&p), 3);
    CHECK_EQ_U64(last_of(&p), 2);
    CHECK_EQ_U64(p.eof_at, CHUNK + 18);
    /* ... and a second chunk cut after one of its events keeps that event */
    timestamp(&f, 30);
    event(&f, ENTER, 8);
    timestamp(&f, 40);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_NEEDED);
    CHECK_EQ_U64(p.header_at, CHUNK);
    CHECK_EQ_U64(first_of(&p), 3);
    CHECK_EQ_U64(last_of(&p), 3);
    CHECK_EQ_U64(p.eof_at, CHUNK + 18 + 12);

    /* damage inside a chunk that others follow: left as it is (no kill does that, and
     * sealing would drop the whole chunks after it) */
    f = one_chunk(3);
    byte(&f, EOC);
    pad_to(&f, CHUNK);
    header(&f, 3, 3);
    timestamp(&f, 30);
    event(&f, ENTER, 8);
    byte(&f, EOFILE);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_DAMAGED_INSIDE);
    f = one_chunk(2); /* a damaged header with a chunk after it */
    byte(&f, EOC);
    pad_to(&f, CHUNK);
    header(&f, 3, 3);
    f.b[CHUNK] = 9;
    timestamp(&f, 30);
    event(&f, ENTER, 8);
    byte(&f, EOC);
    pad_to(&f, 2 * CHUNK);
    header(&f, 4, 3);
    byte(&f, EOFILE);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_DAMAGED_INSIDE);

    /* time running backwards: damaged from there */
    f = one_chunk(3);
    timestamp(&f, 15);
    event(&f, ENTER, 9);
    byte(&f, EOFILE);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_NEEDED);
    CHECK_EQ_U64(last_of(&p), 2);

    /* a long record (length 255, then a uint64) is skipped whole */
    f = one_chunk(3);
    const unsigned char long_head[] = {ENTER, 0xFF, 4, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    memcpy(f.b + f.n, long_head, sizeof long_head);
    f.n += sizeof long_head;
    byte(&f, EOFILE);
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_SOUND);

    /* a damaged first header: nothing can be kept */
    f = one_chunk(2);
    f.b[0] = 9;
    CHECK(gs_seal_plan(f.b, f.n, CHUNK, &p) == GS_SEAL_NOTHING_KEPT);

    /* on a file: sealed in place, then sound */
    char path[] = "/tmp/gs_test_seal_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    f = one_chunk(2);
    CHECK(write(fd, f.b, f.n - 1) == (ssize_t)(f.n - 1));
    close(fd);
    CHECK(gs_seal_file(path, CHUNK) == GS_SEAL_NEEDED);
    FILE *in = fopen(path, "rb");
    unsigned char got[CHUNK];
    size_t n = in ? fread(got, 1, sizeof got, in) : 0;
    if (in) fclose(in);
    CHECK_EQ_U64(n, after_first + 1);
    CHECK(got[after_first] == GS_OTF2_END_OF_FILE);
    CHECK(gs_seal_plan(got, n, CHUNK, &p) == GS_SEAL_SOUND);
    CHECK(gs_seal_file(path, CHUNK) == GS_SEAL_SOUND);
    unlink(path);
    CHECK(gs_seal_file(path, CHUNK) == -2);
    CHECK_DONE();
}
