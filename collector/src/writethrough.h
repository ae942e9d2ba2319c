/* Flushed event chunks reach the event file at once (docs/collector.md, "Memory,
 * flushes, crashes"). libotf2 collects what a flush writes in a 4 MiB buffer of its own
 * (OTF2_FILE_BUFFER_SIZE in OTF2_File.c) and hands it to the kernel only when that buffer
 * is full or the file is closed, so a process killed outright (SIGKILL) lost up to 4 MiB
 * of flushed events whatever GRIDSCOPE_BUFFER said. The chunks libotf2 has just written
 * are still in our memory when it gives them back (the memory callback's free_all after a
 * flush): we write the same bytes at the same offsets through a descriptor of our own.
 * libotf2's own, later write of those bytes changes nothing.
 *
 * A file cut after a whole chunk must still end the way OTF2 readers expect: libotf2's
 * reader, finding no next chunk, reads the previous chunk's memory again and never ends.
 * So each write-through is followed by an empty chunk that says "end of file" (below),
 * which the next chunk written overwrites, written in the same system call as the chunks
 * (at most 64 of them a call): a process killed between two calls still leaves a file
 * that ends with a mark. */
#ifndef GS_WRITETHROUGH_H
#define GS_WRITETHROUGH_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int opened;      /* open() was tried; fd is then the descriptor or -1 */
    int fd;
    uint64_t offset; /* bytes of the event file written so far */
} gs_writethrough_t;

/* OTF2's event file format (OTF2_Buffer.c: the chunk header, the internal record
 * types): a chunk starts with the header byte, the writer's endianness byte, and the
 * numbers of its first and last event (uint64 each); record type 2 ends the file. */
enum { GS_OTF2_CHUNK_HEADER = 3, GS_OTF2_END_OF_FILE = 2, GS_OTF2_CHUNK_HEADER_SIZE = 18 };
#define GS_END_MARK_SIZE (GS_OTF2_CHUNK_HEADER_SIZE + 1)

/* The empty last chunk that follows `last` (a flushed chunk, header complete): same
 * endianness, first event after the last one of `last`, then end of file. */
void gs_end_mark(const unsigned char *last, unsigned char out[GS_END_MARK_SIZE]);

/* Writes chunks[0..n) (sizes[i] bytes each) at the end of what was written to `path`
 * so far, each batch of them with the end mark after it; opens it on first use (libotf2 has created it by
 * then). Returns 0, or -1 when
 * the file cannot be opened or written (libotf2 then reports its own failure). */
int gs_writethrough(gs_writethrough_t *w, const char *path, void *const *chunks,
                    const uint64_t *sizes, size_t n);
void gs_writethrough_close(gs_writethrough_t *w);
#endif
