"""Hierarchical clock synchronisation recovers an injected per-metahost clock offset and
drift: corrected timestamps land within the measured round-trip bound of the truth."""

from __future__ import annotations

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

N = 8
SKEW_OFFSET_S = 3.5
SKEW_DRIFT = 2e-4  # 200 ppm: 100 µs over the 0.5 s between the markers


@pytest.mark.slow
def test_skew_injection_is_recovered(build_app, two_metahost_map, tmp_path):
    out, truth = tmp_path / "trace", tmp_path / "truth"
    truth.mkdir()
    run_gridscope("record", "--metahosts", two_metahost_map, "-o", out, "--",
                  "mpirun", "-np", str(N), build_app("skew"), truth,
                  env={"GRIDSCOPE_TEST_CLOCK_SKEW": f"fzj:{SKEW_OFFSET_S}:{SKEW_DRIFT}"})
    anchor = out / "traces.otf2"
    evts = otf2text.events(anchor)
    offsets = otf2text.clock_offsets(anchor)
    for rank in range(N):
        windows = [tuple(map(int, line.split()))
                   for line in (truth / f"rank{rank}.txt").read_text().splitlines()]
        marks = [e.time for e in evts[rank]
                 if e.kind == "ENTER" and e.region() == "MPI_Comm_size"]
        assert len(marks) == len(windows) == 5
        (t0, o0, err0), (t1, o1, err1) = offsets[rank][:2]
        bound = max(err0, err1)
        if rank >= 4:  # skewed metahost: the measured offset undoes the injection
            assert abs(o0 + SKEW_OFFSET_S * 1e9) < 0.1e9 + SKEW_DRIFT * t0 * 1.01
            assert o1 != o0  # the drift was seen
        for (before, after), corrected in zip(windows, marks):
            assert before - bound <= corrected <= after + bound, (
                f"rank {rank}: corrected {corrected} outside [{before}, {after}] ± {bound}")
