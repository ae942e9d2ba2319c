"""`gridscope-trace-ends` on an event stream that stops after a whole chunk with no end
mark (what a process killed between writing its chunks and their end mark left): libotf2's
reader then reads the last chunk's memory again, its times run backwards, and it never
finishes. The tool stops there and reports the rank as cut, with the events before."""

from __future__ import annotations

import subprocess

from gridscope import native

CHUNK = 1 << 20  # gs-tracegen's event chunks (libotf2's default chunk size)
OTF2_CHUNK_HEADER = 3
# a guard against a hang only: the tool takes well under a second here
HANG_GUARD_S = 600


def ends(trace_dir) -> dict[int, list[str]]:
    proc = subprocess.run([str(native.binary("gridscope-trace-ends")), str(trace_dir)], capture_output=True,
                          text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr
    return {int(line.split("\t")[0]): line.split("\t") for line in proc.stdout.splitlines()}


def test_stream_cut_after_a_whole_chunk_is_cut_not_endless(tmp_path):
    trace = tmp_path / "trace"
    subprocess.run([str(native.binary("gs-tracegen")), "--bench", "2", "20000", str(trace)], check=True,
                   capture_output=True)
    evt = trace / "traces" / "0.evt"
    data = evt.read_bytes()
    assert len(data) > 3 * CHUNK and data[2 * CHUNK] == OTF2_CHUNK_HEADER  # a chunk starts there
    whole = ends(trace)
    assert whole[0][1] == "cut" and int(whole[0][2]) > 0  # (gs-tracegen writes no ProgramEnd)
    evt.write_bytes(data[: 2 * CHUNK])
    cut = ends(trace)
    assert cut[0][1] == "cut"
    assert 0 < int(cut[0][2]) < int(whole[0][2])
    assert cut[1] == whole[1]  # the other rank as before
