"""`gridscope-trace-ends` on an event stream that stops after a whole chunk with no end
mark (what a process killed between writing its chunks and their end mark left): libotf2's
reader then reads the last chunk's memory again, its times run backwards, and it never
finishes. The tool stops there and reports the rank as cut, with the events before."""

from __future__ import annotations

import subprocess

from gridscope import native
from gridscope.record.ends import CUT, RankEnd, parse

CHUNK = 1 << 20  # gs-tracegen's event chunks (libotf2's default chunk size)
OTF2_CHUNK_HEADER = 3
# a guard against a hang only: the tool takes well under a second here
HANG_GUARD_S = 600


def ends(trace_dir) -> dict[int, RankEnd]:
    proc = subprocess.run([str(native.binary("gridscope-trace-ends")), str(trace_dir)], capture_output=True,
                          text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr
    return {e.rank: e for e in parse(proc.stdout)}


def test_stream_cut_after_a_whole_chunk_is_cut_not_endless(tmp_path):
    trace = tmp_path / "trace"
    subprocess.run([str(native.binary("gs-tracegen")), "--bench", "2", "20000", str(trace)], check=True,
                   capture_output=True)
    evt = trace / "traces" / "0.evt"
    data = evt.read_bytes()
    assert len(data) > 3 * CHUNK and data[2 * CHUNK] == OTF2_CHUNK_HEADER  # a chunk starts there
    whole = ends(trace)
    assert whole[0].kind == CUT and whole[0].events > 0  # (gs-tracegen writes no ProgramEnd)
    evt.write_bytes(data[: 2 * CHUNK])
    cut = ends(trace)
    assert cut[0].kind == CUT
    assert 0 < cut[0].events < whole[0].events
    assert cut[1] == whole[1]  # the other rank as before
