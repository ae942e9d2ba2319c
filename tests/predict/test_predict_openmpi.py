"""Issue 14: a real Open MPI recording (the collector under mpirun, not SMPI) replays on a
preset platform without error.

The program is tests/collector/apps/pattern.c (8 ranks, 2 iterations), recorded over two
metahosts named like grid5000-2's sites. Expected figures from its source: per iteration a
ring (8 Isends), 4 Sends of even to odd ranks and 8 Sendrecvs = 20 messages, and 9
collectives on MPI_COMM_WORLD; at the end one Allreduce on each half's split communicator.
Its MPI_Alltoallv (one per iteration and rank) is stated as replayed with equal blocks."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from gstest import REPO, run_gridscope

pytestmark = pytest.mark.slow

RANKS, ITERS = 8, 2
MAP = {"orsay": ["rank:0-3"], "rennes": ["rank:4-7"]}  # grid5000-2's sites


def test_openmpi_recording_predicts_on_a_preset(tmp_path):
    if shutil.which("mpicc") is None or shutil.which("mpirun") is None:
        pytest.fail("mpicc/mpirun missing (make install installs Open MPI)")
    app = tmp_path / "pattern"
    subprocess.run(["mpicc", "-O1", "-o", str(app), str(REPO / "tests" / "collector" / "apps" /
                                                         "pattern.c")], check=True)
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps(MAP))
    run_gridscope("record", "--metahosts", map_file, "-o", tmp_path / "rec", "--",
                  "mpirun", "-np", str(RANKS), app, str(ITERS))
    assert not (tmp_path / "rec" / "record.json").exists()  # not a simulated run
    proc = run_gridscope("predict", tmp_path / "rec", "-o", tmp_path / "pred",
                         "--platform", "grid5000-2")
    assert proc.stdout.splitlines()[1:2] == [
        f"approximation: MPI_Alltoallv replayed with equal blocks ({RANKS * ITERS}x)"]
    summary = json.loads((tmp_path / "pred" / "summary.json").read_text())
    pred = summary["prediction"]
    assert pred["recorded_platform"] is None and pred["computation_rescaled"] is False
    assert pred["approximations"] == {"MPI_Alltoallv replayed with equal blocks": RANKS * ITERS}
    assert summary["metahosts"] == {"orsay": 4, "rennes": 4}
    assert summary["messages"] == 20 * ITERS
    assert summary["collectives"] == 9 * ITERS + 2
    assert summary["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert summary["incomplete_collectives"] == 0
