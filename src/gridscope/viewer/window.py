"""What happened inside the timeline's zoom window (Vampir's function and process
summaries): exclusive time per region over all locations, and each location's MPI time,
from the trace's per-location segments (a segment is one call path from its start to the
next segment's start)."""

from __future__ import annotations

import numpy as np

TOP_FUNCTIONS = 15


def clipped_segments(seg_time: np.ndarray, seg_cp: np.ndarray, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """(call path, time inside [t0, t1]) of one location's segments that overlap the window."""
    n = len(seg_time)
    if n < 2 or t1 <= t0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    i0 = max(int(np.searchsorted(seg_time, t0, side="right")) - 1, 0)
    i1 = min(int(np.searchsorted(seg_time, t1, side="left")), n - 1)
    if i1 <= i0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    start = np.maximum(seg_time[i0:i1].astype(np.int64), t0)
    end = np.minimum(seg_time[i0 + 1:i1 + 1].astype(np.int64), t1)
    cp = seg_cp[i0:i1].astype(np.int64)
    keep = (cp >= 0) & (end > start)
    return cp[keep], (end - start)[keep]


def window_summary(trace, rows, t0: int, t1: int) -> dict:
    """Functions by exclusive time in the window (the top ones) and, per timeline row, its
    MPI and busy time there; times in s (the trace's ticks are ns)."""
    ncp = len(trace.cp_paths)
    per_cp = np.zeros(ncp)
    processes = []
    for row in rows:
        seg_time, seg_cp, _ = trace.segments(row.index)
        cp, dt = clipped_segments(seg_time, seg_cp, t0, t1)
        if len(cp):
            per_cp += np.bincount(cp, weights=dt, minlength=ncp)[:ncp]
        mpi = float(dt[trace.cp_is_mpi[cp]].sum()) if len(cp) else 0.0
        processes.append({"rank": row.rank, "label": row.label, "metahost": row.metahost,
                          "mpi_s": mpi / 1e9, "busy_s": float(dt.sum()) / 1e9})
    order = np.argsort(-per_cp, kind="stable")[:TOP_FUNCTIONS]
    paths = trace.cp_paths
    functions = [{"name": paths[i].rsplit("/", 1)[-1], "path": paths[i], "seconds": float(per_cp[i]) / 1e9,
                  "mpi": bool(trace.cp_is_mpi[i])} for i in order if per_cp[i] > 0]
    return {"t0": t0, "t1": t1, "total_s": float(per_cp.sum()) / 1e9, "functions": functions, "processes": processes}
