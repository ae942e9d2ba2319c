"""Level of detail: what the timeline needs to draw a time window at a given pixel width.

The server never sends the whole trace. Per location it sends either the exact segments
in the window (when there are about as few as pixels) or one sample per pixel: the call
path active at the pixel's centre plus the exact fraction of the pixel's time spent in
MPI (from the cumulative MPI time the dump stores per segment). Messages and wait states
are thinned to one per (row, row, pixel) when there are too many to draw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class RowDetail:
    exact: bool
    start: np.ndarray      # exact: segment starts (ns); binned: bin left edges
    end: np.ndarray        # exact: segment ends
    cp: np.ndarray         # call path id per segment / bin (-1: outside any region)
    mpi_fraction: np.ndarray | None = None  # binned only: share of the bin spent in MPI


def cumulative_mpi(t: np.ndarray, seg_time: np.ndarray, seg_cp: np.ndarray,
                   seg_mpicum: np.ndarray, cp_is_mpi: np.ndarray) -> np.ndarray:
    """MPI time (ns) spent on one location before each time in `t`."""
    if len(seg_time) == 0:
        return np.zeros(len(t), dtype=np.int64)
    j = np.searchsorted(seg_time, t, side="right") - 1
    before = j < 0
    j = np.clip(j, 0, len(seg_time) - 1)
    cp = seg_cp[j]
    in_mpi = (cp >= 0) & cp_is_mpi[np.clip(cp, 0, None)] if len(cp_is_mpi) else np.zeros(len(j), bool)
    partial = np.where(in_mpi, t - seg_time[j], 0)
    out = seg_mpicum[j] + partial
    return np.where(before, 0, out)


def row_detail(seg_time: np.ndarray, seg_cp: np.ndarray, seg_mpicum: np.ndarray,
               cp_is_mpi: np.ndarray, t0: int, t1: int, width: int,
               exact_factor: float = 1.0) -> RowDetail:
    """Segments of one location in [t0, t1) or, if more than width*exact_factor, per-pixel bins."""
    n = len(seg_time)
    if n == 0 or t1 <= t0:
        empty = np.zeros(0, dtype=np.int64)
        return RowDetail(True, empty, empty, np.zeros(0, dtype=np.int32))
    i0 = max(int(np.searchsorted(seg_time, t0, side="right")) - 1, 0)
    i1 = int(np.searchsorted(seg_time, t1, side="left"))
    # the last entry of a location is its terminator (no region after it)
    i1 = min(i1, n - 1)
    count = i1 - i0
    if count <= width * exact_factor:
        starts = np.asarray(seg_time[i0:i1], dtype=np.int64)
        ends = np.asarray(seg_time[i0 + 1:i1 + 1], dtype=np.int64)
        cps = np.asarray(seg_cp[i0:i1], dtype=np.int32)
        keep = cps >= 0
        return RowDetail(True, starts[keep], ends[keep], cps[keep])
    edges = t0 + (np.arange(width + 1, dtype=np.float64) * ((t1 - t0) / width))
    edges = edges.astype(np.int64)
    centres = (edges[:-1] + edges[1:]) // 2
    j = np.searchsorted(seg_time, centres, side="right") - 1
    cps = np.where(j >= 0, seg_cp[np.clip(j, 0, n - 1)], -1).astype(np.int32)
    cps = np.where(j >= n - 1, -1, cps)  # after the terminator
    cum = cumulative_mpi(edges, seg_time, seg_cp, seg_mpicum, cp_is_mpi)
    widths = np.maximum(np.diff(edges), 1)
    frac = np.clip(np.diff(cum) / widths, 0.0, 1.0)
    return RowDetail(False, edges[:-1], edges[1:], cps, frac)


def rows_detail(seg_time: np.ndarray, seg_cp: np.ndarray, seg_mpicum: np.ndarray, offsets: list[tuple[int, int]],
                cp_is_mpi: np.ndarray, t0: int, t1: int, width: int) -> list[RowDetail]:
    """row_detail of many locations at once (same answers): OFFSETS are the [a, b) of each
    location in the flat columns. Per location only the binary searches run in Python; the
    per-pixel call paths and MPI shares of all binned locations are one numpy pass."""
    out: list[RowDetail | None] = [None] * len(offsets)
    seg_time, seg_cp, seg_mpicum = np.asarray(seg_time), np.asarray(seg_cp), np.asarray(seg_mpicum)
    if t1 <= t0:
        return [row_detail(seg_time[a:b], seg_cp[a:b], seg_mpicum[a:b], cp_is_mpi, t0, t1, width)
                for a, b in offsets]
    edges = (t0 + (np.arange(width + 1, dtype=np.float64) * ((t1 - t0) / width))).astype(np.int64)
    centres = (edges[:-1] + edges[1:]) // 2
    query = np.empty(2 * width + 1, dtype=np.int64)  # edge, centre, edge, ..., edge: ascending
    query[0::2], query[1::2] = edges, centres
    binned, local = [], []
    for k, (a, b) in enumerate(offsets):
        times = seg_time[a:b]
        n = b - a
        if n == 0:
            out[k] = row_detail(times, seg_cp[a:b], seg_mpicum[a:b], cp_is_mpi, t0, t1, width)
            continue
        i0 = max(int(np.searchsorted(times, t0, side="right")) - 1, 0)
        i1 = min(int(np.searchsorted(times, t1, side="left")), n - 1)
        if i1 - i0 <= width:
            out[k] = row_detail(times, seg_cp[a:b], seg_mpicum[a:b], cp_is_mpi, t0, t1, width)
            continue
        binned.append(k)
        local.append(np.searchsorted(times, query, side="right") - 1)
    if not binned:
        return out
    local = np.asarray(local)                                   # rows x (2 width + 1)
    first = np.asarray([offsets[k][0] for k in binned], dtype=np.int64)[:, None]
    count = np.asarray([offsets[k][1] - offsets[k][0] for k in binned], dtype=np.int64)[:, None]
    where = first + np.clip(local, 0, count - 1)                # index into the flat columns
    cp_at = seg_cp[where]
    jc, cc = local[:, 1::2], cp_at[:, 1::2]                     # at the pixels' centres
    cps = np.where((jc >= 0) & (jc < count - 1), cc, -1).astype(np.int32)
    je, ce, we = local[:, 0::2], cp_at[:, 0::2], where[:, 0::2]  # at the pixels' edges
    is_mpi = cp_is_mpi[np.clip(ce, 0, None)] if len(cp_is_mpi) else np.zeros(ce.shape, bool)
    in_mpi = (ce >= 0) & is_mpi
    cum = seg_mpicum[we] + np.where(in_mpi, edges[None, :] - seg_time[we], 0)
    cum = np.where(je < 0, 0, cum)
    frac = np.clip(np.diff(cum, axis=1) / np.maximum(np.diff(edges), 1)[None, :], 0.0, 1.0)
    for r, k in enumerate(binned):
        out[k] = RowDetail(False, edges[:-1], edges[1:], cps[r], frac[r])
    return out


def in_window(start: np.ndarray, end: np.ndarray, longest: int, t0: int, t1: int) -> tuple[np.ndarray, int, int]:
    """Items sorted by `start` whose [start, end] overlaps [t0, t1], without looking at those
    that start inside the window: the indices of the ones that start before t0 and still
    run at t0, and the range [mid, hi) of those that start in [t0, t1]."""
    lo = int(np.searchsorted(start, t0 - longest, side="left"))
    mid = int(np.searchsorted(start, t0, side="left"))
    hi = max(int(np.searchsorted(start, t1, side="right")), mid)
    head = np.arange(lo, mid, dtype=np.int64)
    return head[np.asarray(end[lo:mid]) >= t0], mid, hi


def even_sample(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions 0..n-1 when n <= m, else m positions spread evenly over them; and how many
    positions each one stands for (itself and those before the next one)."""
    if n <= m:
        return np.arange(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    pos = (np.arange(m, dtype=np.int64) * n) // m
    return pos, np.diff(np.append(pos, n))


def sample_items(head: np.ndarray, mid: int, hi: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """even_sample over the items `head` followed by mid..hi-1 (in_window's answer): their
    indices and how many items each stands for. Costs O(m), whatever the number of items."""
    pos, weight = even_sample(len(head) + hi - mid, m)
    in_head = pos < len(head)
    idx = mid + pos - len(head)
    if len(head):
        idx = np.where(in_head, head[np.minimum(pos, len(head) - 1)], idx)
    return idx, weight


def window_sample(head: np.ndarray, mid: int, hi: int, m: int, keep=None) -> tuple[np.ndarray, np.ndarray]:
    """The items of in_window's answer as an even sample of at most m: their indices and how
    many items each stands for. `keep(indices) -> mask` restricts them first (to the rows
    asked for; None: every item counts, and the sample costs O(m))."""
    if keep is None:
        return sample_items(head, mid, hi, m)
    idx = np.concatenate([head, np.arange(mid, hi, dtype=np.int64)])
    idx = idx[keep(idx)]
    pos, weight = even_sample(len(idx), m)
    return idx[pos], weight


def thin(keys_a: np.ndarray, keys_b: np.ndarray, times: np.ndarray, t0: int, t1: int,
         width: int, limit: int, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Keep one item per (a, b, pixel of time) when there are more than `limit`.

    Returns the kept positions and how many items each one stands for (with `weights`:
    the sum of the weights of the items it stands for, e.g. an even_sample's).
    """
    n = len(times)
    if n <= limit:
        return np.arange(n), (np.ones(n, dtype=np.int64) if weights is None else np.asarray(weights, np.int64))
    pixel = np.clip(((times - t0) * width) // max(t1 - t0, 1), 0, width - 1).astype(np.int64)
    key = (keys_a.astype(np.int64) * (int(keys_b.max(initial=0)) + 1) + keys_b) * width + pixel
    if weights is None:
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
    else:
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        counts = np.bincount(inverse, weights=weights).astype(np.int64)
    order = np.argsort(first, kind="stable")
    first, counts = first[order], counts[order]
    if len(first) > limit:  # still too many: an even sample, each standing for its stride
        group = np.arange(len(first)) * limit // len(first)
        keep = np.concatenate([[0], np.nonzero(np.diff(group))[0] + 1])
        counts = np.add.reduceat(counts, keep)
        first = first[keep]
    return first, counts
