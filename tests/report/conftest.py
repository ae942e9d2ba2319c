import json
import sys
from pathlib import Path

import pytest

# Shared experiment builders (cube_samples.py) live in tests/cube.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cube"))

from cube_samples import analysis_folder, experiment  # noqa: E402
from gstest import run_gridscope  # noqa: E402


def compare_rows():
    rows = []
    for op in ("bcast", "allreduce", "alltoall"):
        for size in (8, 65536, 1048576):
            for placement in ("block", "cyclic"):
                vanilla = 1e-4 + size * 2e-8
                rows.append({"op": op, "bytes": size, "placement": placement,
                             "vanilla_s": vanilla, "topo_s": vanilla * 0.5,
                             "auto_s": vanilla * 0.6, "bound_s": vanilla * 0.3})
    return rows


@pytest.fixture(scope="session")
def cycles(tmp_path_factory):
    """Three optimisation cycles, a compare result and a diff folder."""
    from gridscope.diff import diff_runs

    root = tmp_path_factory.mktemp("cycles")
    runs = [analysis_folder(root / f"cycle{i}", experiment(scale=s, extra_path=i > 0))
            for i, s in enumerate((1.0, 0.45, 0.2))]
    (root / "cmp").mkdir()
    (root / "cmp" / "compare.json").write_text(json.dumps(
        {"platform": "grid5000-2", "ranks": 16, "rows": compare_rows()}))
    (root / "cmp" / "waitstates.json").write_text(json.dumps({"block": [
        {"pattern": "wait_at_nxn", "class": "grid", "vanilla_s": 21.25, "topo_s": 20.5,
         "auto_s": 19.75}]}))
    # the latest cycle also has wait-state instances (for the timeline chart)
    import pandas as pd
    pd.DataFrame({"pattern": ["late_sender", "wait_at_barrier"], "class": ["grid", "grid"],
                  "rank": [1, 2], "start_s": [0.5, 1.0], "end_s": [1.5, 3.0],
                  "severity_s": [0.75, 2.0], "callpath": ["main/cgiteration/MPI_Recv",
                                                          "main/ReadFieldsFromTrace/MPI_Barrier"]}
                 ).to_feather(runs[2] / "waitstates.feather")
    diff_runs(runs[0], runs[2], root / "diff02")
    return {"root": root, "runs": runs, "compare": root / "cmp", "diff": root / "diff02"}


@pytest.fixture(scope="session")
def demo_without_compare(tmp_path_factory):
    """One `gridscope demo --no-compare` (about 20 s) for the tests that read its output:
    (output folder, the finished command); each test checks the exit code it cares about."""
    out = tmp_path_factory.mktemp("demo") / "demo-out"
    return out, run_gridscope("demo", "--no-compare", "-o", out, check=False)
