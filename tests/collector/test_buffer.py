"""Bounded event memory: a full buffer is flushed to disk and recorded like Score-P does
(BufferFlush events); no event is lost."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

CALLS = 120000  # 240k events, about 2.5 MB per rank


@pytest.mark.slow
def test_small_buffer_flushes_without_losing_events(build_app, tmp_path):
    out = tmp_path / "trace"
    run_gridscope("record", "--buffer", "512K", "-o", out, "--", "mpirun", "-np", "2",
                  build_app("many"), str(CALLS))
    anchor = out / "traces.otf2"
    assert otf2text.validate(anchor).returncode == 0
    evts = otf2text.events(anchor)
    for ev in evts.values():
        kinds = Counter(e.kind for e in ev)
        assert kinds["BUFFER_FLUSH"] >= 3
        assert otf2text.region_counts(ev)["MPI_Comm_rank"] == CALLS
        assert kinds["ENTER"] == kinds["LEAVE"] == CALLS + 2  # + MPI_Init, MPI_Finalize


def test_bad_buffer_size_runs_unmeasured(build_app, tmp_path):
    import subprocess

    from gridscope import native
    from gstest import gridscope_env

    env = gridscope_env({"GRIDSCOPE_TRACE_DIR": str(tmp_path / "t"), "GRIDSCOPE_BUFFER": "huge",
                         "LD_PRELOAD": str(native.library("libgridscope_collector.so"))})
    proc = subprocess.run(["mpirun", "-np", "2", "-x", "GRIDSCOPE_TRACE_DIR", "-x",
                           "GRIDSCOPE_BUFFER", "-x", "LD_PRELOAD", build_app("many"), "10"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0
    lines = [l for l in proc.stderr.splitlines() if l.startswith("gridscope:")]
    assert lines == ["gridscope: GRIDSCOPE_BUFFER: bad size 'huge' (want e.g. 16M); "
                     "the program runs unmeasured"]
