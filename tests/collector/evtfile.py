"""Check an OTF2 event file's structure record by record, without libotf2.

libotf2's reader never ends on some damaged event files (a chunk cut short, a record
misparsed after a stray byte): it reads a chunk's memory again, forever. The crash tests
check every event file here first, so a damaged one fails the test with a message
instead of hanging it in otf2-print.

The layout (OTF2_Buffer.h, OTF2 3.0): the file is a series of chunks of the archive's
event chunk size, the last one written only up to its end. A chunk starts with a header
(type 3, the endianness byte, the numbers of its first and last event as uint64) and
ends with END_OF_CHUNK (0), or END_OF_FILE (2) in the last one. Between them: timestamp
records (type 5 and a uint64) and records of a type byte, a length byte (255: a uint64
length follows) and that many bytes; attribute lists (type 6) belong to the event after
them, every other record is one event.
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

END_OF_CHUNK, END_OF_BUFFER, END_OF_FILE, CHUNK_HEADER, TIMESTAMP, ATTRIBUTE_LIST = 0, 1, 2, 3, 5, 6
HEADER_SIZE = 18
LITTLE_ENDIAN = 0x42


def event_chunk_size(anchor: Path) -> int:
    """The archive's event chunk size, as `otf2-print -I` reads it from the anchor file."""
    out = subprocess.run(["otf2-print", "-I", str(anchor)], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        if line.startswith("Chunk size events"):
            return int(line.split()[-1])
    raise AssertionError(f"{anchor}: otf2-print -I shows no event chunk size")


def _chunk_problem(data: bytes, start: int, end: int, expect_first: int,
                   last_chunk: bool) -> tuple[str | None, int]:
    """What is wrong with the chunk data[start:end] (None if nothing), and its last event."""
    if end - start < HEADER_SIZE + 1 or data[start] != CHUNK_HEADER:
        return f"no chunk header at byte {start}", 0
    if data[start + 1] != LITTLE_ENDIAN:
        return f"chunk at byte {start}: not little-endian", 0
    first, last = struct.unpack_from("<QQ", data, start + 2)
    if first != expect_first:
        return f"chunk at byte {start}: first event {first}, expected {expect_first}", 0
    pos, events = start + HEADER_SIZE, 0
    while pos < end:
        kind = data[pos]
        if kind in (END_OF_CHUNK, END_OF_FILE):
            if events != last - first + 1:
                return (f"chunk at byte {start}: {events} events, its header says "
                        f"{last - first + 1}"), last
            if kind == END_OF_CHUNK and last_chunk:
                return f"the last chunk (byte {start}) does not say end of file", last
            if kind == END_OF_FILE and not last_chunk:
                return f"end of file in the chunk at byte {start}, more chunks follow", last
            return None, last
        if kind == END_OF_BUFFER or kind == CHUNK_HEADER:
            return f"record type {kind} inside the chunk at byte {start} (byte {pos})", last
        if kind == TIMESTAMP:
            pos += 9
            continue
        if pos + 2 > end:
            break
        length, head = data[pos + 1], 2
        if length == 0xFF:
            if pos + 10 > end:
                break
            length, head = struct.unpack_from("<Q", data, pos + 2)[0], 10
        pos += head + length
        events += kind != ATTRIBUTE_LIST
    return f"the chunk at byte {start} is cut (byte {end})", last


def problems(evt: Path, chunk_size: int) -> str | None:
    """What is wrong with the event file `evt` (None if its structure is sound)."""
    data = evt.read_bytes()
    if not data:
        return None  # a location that recorded nothing
    next_event = 1
    for start in range(0, len(data), chunk_size):
        end = min(start + chunk_size, len(data))
        problem, last = _chunk_problem(data, start, end, next_event, end == len(data))
        if problem:
            return f"{evt}: {problem}"
        next_event = last + 1
    return None
