"""What happened inside the timeline's zoom window (Vampir's function and process
summaries): exclusive time per region over all locations, and each location's MPI time,
from the trace's per-location segments (a segment is one call path from its start to the
next segment's start)."""

from __future__ import annotations

import os
import tempfile

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


EDGE = 1 << 62  # before and after every trace time


def totals(trace, locations, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Time (ns) inside [t0, t1] per call path over LOCATIONS, and each one's MPI and busy time."""
    ncp = len(trace.cp_paths)
    per_cp = np.zeros(ncp)
    mpi = np.zeros(len(locations), dtype=np.int64)
    busy = np.zeros(len(locations), dtype=np.int64)
    for k, loc in enumerate(locations):
        seg_time, seg_cp, _ = trace.segments(loc)
        cp, dt = clipped_segments(seg_time, seg_cp, t0, t1)
        if len(cp):
            per_cp += np.bincount(cp, weights=dt, minlength=ncp)[:ncp]
            mpi[k] = int(dt[trace.cp_is_mpi[cp]].sum())
            busy[k] = int(dt.sum())
    return per_cp, mpi, busy


def whole_run(trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """totals() of the whole run over every location, made once and kept in the dump's folder."""
    whole = getattr(trace, "_whole_run", None)
    if whole is not None:
        return whole
    path = trace.folder / "window-whole.npz"
    try:
        with np.load(path) as f:
            whole = f["per_cp"], f["mpi"], f["busy"]
    except (OSError, KeyError, ValueError):
        whole = totals(trace, range(len(trace.defs["locations"])), -EDGE, EDGE)
        try:
            fd, tmp = tempfile.mkstemp(prefix=".window-whole-", suffix=".npz", dir=trace.folder)
            with os.fdopen(fd, "wb") as f:
                np.savez(f, per_cp=whole[0], mpi=whole[1], busy=whole[2])
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache: made again next time
    trace._whole_run = whole
    return whole


def segments_inside(trace, locations, t0: int, t1: int) -> tuple[int, int]:
    """How many segment starts of LOCATIONS lie in (t0, t1), and how many entries they have in all."""
    inside = total = 0
    for loc in locations:
        seg_time, _, _ = trace.segments(loc)
        inside += int(np.searchsorted(seg_time, t1, side="left")) - int(np.searchsorted(seg_time, t0, side="right"))
        total += len(seg_time)
    return inside, total


def window_summary(trace, rows, t0: int, t1: int) -> dict:
    """Functions by exclusive time in the window (the top ones) and, per timeline row, its
    MPI and busy time there; times in s (the trace's ticks are ns).

    A window holding most of the run's segments is summed as the whole run (whole_run)
    minus what lies before t0 and after t1: the same integers, from the smaller part."""
    locs = [row.index for row in rows]
    inside, total = segments_inside(trace, locs, t0, t1)
    if t1 > t0 and 2 * inside > total:
        w_cp, w_mpi, w_busy = whole_run(trace)
        b_cp, b_mpi, b_busy = totals(trace, locs, -EDGE, t0)
        a_cp, a_mpi, a_busy = totals(trace, locs, t1, EDGE)
        per_cp = w_cp - b_cp - a_cp
        mpi_ns, busy_ns = w_mpi[locs] - b_mpi - a_mpi, w_busy[locs] - b_busy - a_busy
    else:
        per_cp, mpi_ns, busy_ns = totals(trace, locs, t0, t1)
    processes = [{"rank": row.rank, "label": row.label, "metahost": row.metahost,
                  "mpi_s": float(m) / 1e9, "busy_s": float(b) / 1e9}
                 for row, m, b in zip(rows, mpi_ns.tolist(), busy_ns.tolist())]
    order = np.argsort(-per_cp, kind="stable")[:TOP_FUNCTIONS]
    paths = trace.cp_paths
    functions = [{"name": paths[i].rsplit("/", 1)[-1], "path": paths[i], "seconds": float(per_cp[i]) / 1e9,
                  "mpi": bool(trace.cp_is_mpi[i])} for i in order if per_cp[i] > 0]
    return {"t0": t0, "t1": t1, "total_s": float(per_cp.sum()) / 1e9, "functions": functions, "processes": processes}
