"""A run that dies before MPI_Finalize still leaves an archive OTF2 readers open, with
every rank's events up to the failure (MPI_Abort and a segmentation fault)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

N = 4


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["abort", "segv"])
def test_crashed_run_is_readable(build_app, tmp_path, mode):
    out = tmp_path / "trace"
    proc = run_gridscope("record", "-o", out, "--", "mpirun", "-np", str(N),
                         build_app("crash"), mode, check=False, timeout=120)
    assert proc.returncode != 0
    assert "exited with status" in proc.stderr
    anchor = out / "traces.otf2"
    check = otf2text.validate(anchor)
    assert check.returncode == 0, check.stderr
    evts = otf2text.events(anchor)
    assert sorted(evts) == list(range(N))
    for rank, ev in evts.items():
        kinds = Counter(e.kind for e in ev)
        assert kinds["PROGRAM_BEGIN"] == kinds["PROGRAM_END"] == 1
        # The three Allreduces before the failure are there on every rank, complete.
        assert otf2text.region_counts(ev)["MPI_Allreduce"] == 3
        assert kinds["MPI_COLLECTIVE_END"] >= 3
        otf2text.check_nesting(ev)  # regions open at the crash were closed
    if mode == "abort":
        assert otf2text.region_counts(evts[1])["MPI_Abort"] == 1
    # Clock offsets of the start-up synchronisation are there (no finalize one).
    offsets = otf2text.clock_offsets(anchor)
    assert all(len(offsets[r]) == 1 for r in range(N))
