"""A run that dies before MPI_Finalize still leaves an archive OTF2 readers open, with
every rank's events up to the failure (MPI_Abort and a segmentation fault), including
events on a communicator created after start-up (definitions repaired from the ranks'
side files by gridscope-trace-repair)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

N = 4


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["abort", "segv", "thread"])
def test_crashed_run_is_readable(build_app, tmp_path, mode):
    out = tmp_path / "trace"
    proc = run_gridscope("record", "-o", out, "--", "mpirun", "-np", str(N),
                         build_app("crash"), mode, check=False)
    assert proc.returncode != 0
    assert "exited with status" in proc.stderr
    anchor = out / "traces.otf2"
    check = otf2text.validate(anchor)
    assert check.returncode == 0, check.stderr
    evts = otf2text.events(anchor)
    threads = [1 << 32 | r for r in range(N)] if mode == "thread" else []
    assert sorted(evts) == list(range(N)) + threads
    assert not list((out / "traces").glob("*.gsunify"))  # side files consumed
    for loc in threads:
        # the Pthread ended before the crash: its location was closed by the crash flush
        # and defined by the repair, with the rank's start-up clock offset
        assert [(e.kind, e.region()) for e in evts.pop(loc)] == \
            [("ENTER", "MPI_Comm_size"), ("LEAVE", "MPI_Comm_size")] * 2
        assert len(otf2text.clock_offsets(anchor)[loc]) == 1
    comms = {i: a for k, i, a in otf2text.definitions(anchor) if k == "COMM"}
    groups = {int(l.split()[1]): l for l in otf2text.otf2_print("-G", anchor).splitlines()
              if l.startswith("GROUP")}
    for rank, ev in evts.items():
        kinds = Counter(e.kind for e in ev)
        assert kinds["PROGRAM_BEGIN"] == kinds["PROGRAM_END"] == 1
        # The four Allreduces before the failure are there on every rank, complete.
        assert otf2text.region_counts(ev)["MPI_Allreduce"] == 4
        assert kinds["MPI_COLLECTIVE_END"] >= 4
        otf2text.check_nesting(ev)  # regions open at the crash were closed
        # The split communicator is defined: the ranks of the same parity.
        last = [e for e in ev if e.kind == "MPI_COLLECTIVE_END"][3]
        cid = int(last.attrs["Communicator"].split("<")[1].rstrip(">"))
        gid = int(comms[cid]["Group"].split("<")[1].rstrip(">"))
        members = [int(x.split(" ")[0]) for x in groups[gid].split("Members: ")[1].split(", ")]
        assert members == [r for r in range(N) if r % 2 == rank % 2]
    if mode in ("abort", "thread"):
        assert otf2text.region_counts(evts[1])["MPI_Abort"] == 1
    # Clock offsets of the start-up synchronisation are there (no finalize one).
    offsets = otf2text.clock_offsets(anchor)
    assert all(len(offsets[r]) == 1 for r in range(N))


def test_repair_tool_refuses_without_side_files(tmp_path):
    import subprocess

    from gridscope import native

    (tmp_path / "traces").mkdir()
    proc = subprocess.run([str(native.binary("gridscope-trace-repair")), str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"gridscope: {tmp_path}: cannot repair the definitions: "
                                   "no side files (traces/*.gsunify)")
    (tmp_path / "traces" / "0.gsunify").write_bytes(b"garbage!" * 8)
    bad = subprocess.run([str(native.binary("gridscope-trace-repair")), str(tmp_path)],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "damaged side file" in bad.stderr
