"""When and where waiting happens: waiting time per rank and time bin, from the analysis
folder's wait-state table (one row per wait-state instance)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

BINS = 100
CHUNK = 20_000  # instances per step: bounds memory at CHUNK × (BINS + 1) floats


def waiting_matrix(ranks: np.ndarray, start: np.ndarray, seconds: np.ndarray,
                   n_ranks: int, t0: float, t1: float, bins: int = BINS) -> np.ndarray:
    """Waiting seconds per (rank, time bin) over [t0, t1].

    An instance waits from its start for its severity (the waiting sits at the start of
    the MPI call: until the partner arrives), so it adds to the bins that interval covers.
    """
    edges = np.linspace(t0, t1, bins + 1)
    out = np.zeros((n_ranks, bins))
    for lo in range(0, len(start), CHUNK):
        s = start[lo:lo + CHUNK, None]
        w = seconds[lo:lo + CHUNK, None]
        before_edge = np.clip(edges[None, :] - s, 0.0, w)    # waiting done by each edge
        per_bin = np.diff(before_edge, axis=1)
        np.add.at(out, ranks[lo:lo + CHUNK], per_bin)
    return out


def load_matrix(folder: Path, ranks_in_order: list[int]) -> dict | None:
    """The matrix for the latest run, or None when the folder has no usable wait states."""
    from gridscope.analysis.waitstates import read_waitstates
    from gridscope.errors import GridscopeError

    if not ranks_in_order:
        return None
    try:
        frame = read_waitstates(folder, columns=["rank", "start_s", "end_s", "severity_s"])
    except GridscopeError:  # a damaged optional file must not stop the report
        return None
    if frame is None or frame.empty:
        return None
    row_of = {r: i for i, r in enumerate(ranks_in_order)}
    rows = frame["rank"].map(row_of)
    frame = frame[rows.notna()]
    if frame.empty:
        return None
    t0 = float(frame["start_s"].min())
    t1 = float(max(frame["end_s"].max(), (frame["start_s"] + frame["severity_s"]).max()))
    if not t1 > t0:
        return None
    matrix = waiting_matrix(rows[rows.notna()].to_numpy(dtype=np.int64),
                            frame["start_s"].to_numpy(dtype=float),
                            frame["severity_s"].to_numpy(dtype=float),
                            len(ranks_in_order), t0, t1)
    return {"matrix": matrix, "t0": t0, "t1": t1}
