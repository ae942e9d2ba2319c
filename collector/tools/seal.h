/* Sealing an event file that a kill cut short (docs/collector.md, "Memory, flushes,
 * crashes"). A rank killed outright (SIGKILL, from the launcher too) while libotf2 writes
 * its last chunk at close leaves that chunk cut in the middle of a record; libotf2's
 * reader, finding neither the chunk's end nor a next chunk, reads the chunk's memory
 * again and never ends, and every OTF2 tool hangs or fails on the trace. Sealing keeps
 * every whole event before the cut: the chunk's header is set to count just those, and
 * an END_OF_FILE record follows the last of them.
 *
 * The layout is OTF2's (OTF2_Buffer.h) as writethrough.h describes it: chunks of the
 * archive's event chunk size, each a header (type, endianness, first and last event
 * number) and records up to END_OF_CHUNK, or END_OF_FILE in the last one; a timestamp
 * record is its type and a uint64, any other record its type, a length (one byte, or
 * 255 and a uint64) and that many bytes; an attribute list (type 6) belongs to the event
 * after it, every other record is one event. */
#ifndef GS_SEAL_H
#define GS_SEAL_H
#include <stdint.h>

#include "writethrough.h"

/* How to seal: write `header` at header_at, END_OF_FILE at eof_at, cut the file after it. */
typedef struct {
    uint64_t header_at, eof_at;
    unsigned char header[GS_OTF2_CHUNK_HEADER_SIZE];
} gs_seal_plan_t;

enum { GS_SEAL_SOUND = 0, GS_SEAL_NEEDED = 1, GS_SEAL_NOTHING_KEPT = -1, GS_SEAL_DAMAGED_INSIDE = -3 };

/* Reads the event file data[0..len) (chunks of `chunk` bytes): GS_SEAL_SOUND when it
 * reads to an end (or is empty), GS_SEAL_NEEDED with *plan filled when its last chunk does
 * not, GS_SEAL_NOTHING_KEPT when even its first chunk header is damaged,
 * GS_SEAL_DAMAGED_INSIDE when the damage lies in a chunk that others follow (a kill cuts
 * only the end; sealing there would drop the whole chunks after it). */
int gs_seal_plan(const unsigned char *data, uint64_t len, uint64_t chunk, gs_seal_plan_t *plan);

/* Seals the event file at `path` if it needs it: returns GS_SEAL_SOUND, GS_SEAL_NEEDED
 * (it was sealed), GS_SEAL_NOTHING_KEPT or GS_SEAL_DAMAGED_INSIDE (left as it is), or -2
 * when it cannot be read or written. */
int gs_seal_file(const char *path, uint64_t chunk);
#endif
