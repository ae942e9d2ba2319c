"""Window summaries: a window holding most of the run is summed as whole run minus the rest."""

from types import SimpleNamespace

import numpy as np

from gridscope.viewer import window


class FakeTrace:
    """Two locations: 0 = user 0-100, MPI 100-300, user 300-400; 1 = MPI 50-60, user 60-70."""

    def __init__(self, folder):
        self.folder = folder
        self.cp_paths = ["main", "main/MPI_Recv"]
        self.cp_is_mpi = np.array([False, True])
        self.defs = {"locations": [{}, {}]}
        self.seg = {0: (np.array([0, 100, 300, 400]), np.array([0, 1, 0, -1])),
                    1: (np.array([50, 60, 70]), np.array([1, 0, -1]))}

    def segments(self, loc):
        t, cp = self.seg[loc]
        return t, cp, None


ROWS = [SimpleNamespace(index=0, rank=0, label="Rank 0", metahost="a"),
        SimpleNamespace(index=1, rank=1, label="Rank 1", metahost="b")]


def test_whole_window_exact_values(tmp_path):
    got = window.window_summary(FakeTrace(tmp_path), ROWS, 0, 400)
    assert got["total_s"] == 420e-9
    assert [(f["path"], f["seconds"]) for f in got["functions"]] == [("main", 210e-9), ("main/MPI_Recv", 210e-9)]
    assert [(p["mpi_s"], p["busy_s"]) for p in got["processes"]] == [(200e-9, 400e-9), (10e-9, 20e-9)]
    assert (tmp_path / "window-whole.npz").is_file()  # kept for the next server


def test_large_windows_by_complement_equal_direct_sums(tmp_path):
    trace = FakeTrace(tmp_path)
    for t0, t1 in ((0, 400), (5, 399), (-10, 1000), (55, 350), (150, 160), (99, 101), (300, 300)):
        got = window.window_summary(trace, ROWS, t0, t1)
        per_cp, mpi, busy = window.totals(trace, [0, 1], t0, t1)
        assert got["total_s"] == float(per_cp.sum()) / 1e9, (t0, t1)
        assert [p["mpi_s"] for p in got["processes"]] == [float(m) / 1e9 for m in mpi]
        assert [p["busy_s"] for p in got["processes"]] == [float(b) / 1e9 for b in busy]


def test_segments_inside_counts(tmp_path):
    assert window.segments_inside(FakeTrace(tmp_path), [0, 1], 55, 350) == (4, 7)  # starts 100, 300 and 60, 70; 7 entries in all
