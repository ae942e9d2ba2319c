"""summary.json: the headline figures of an analysis (shape in issue 4).

Plain Python over the few hundred severity rows (pandas took ~0.03 s for the same). The
sums are computed exactly as the earlier pandas code did, so summary.json and the Cube
values do not change by a bit: see group_sums(); totals use numpy's sum (Series.sum).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import CLASSES_BY_CODE, EngineOutput, Severity
from gridscope.analysis.metric_tree import PATTERNS


class KahanSum:
    """A running sum with compensation, step for step as pandas' groupby sum."""

    __slots__ = ("total", "compensation")

    def __init__(self) -> None:
        self.total = 0.0
        self.compensation = 0.0

    def add(self, value: float) -> None:
        if math.isnan(value):  # pandas skips missing values
            return
        y = value - self.compensation
        t = self.total + y
        self.compensation = t - self.total - y
        if self.compensation != self.compensation:  # an infinity: keep it, not NaN
            self.compensation = 0.0
        self.total = t


def group_sums(rows, key) -> dict:
    """KEY(row) -> sum of row.value, bit for bit as pandas' `groupby(sort=True).sum()`:
    when the rows come in key order and hold no NaN, numpy sums each run of equal keys
    (pandas' np.add.reduceat path); otherwise a Kahan sum in row order (its Cython kernel).
    KEY must order like pandas orders the group keys (categoricals by code).
    """
    keys = [key(r) for r in rows]
    values = np.fromiter((r.value for r in rows), dtype=np.float64, count=len(keys))
    if all(a <= b for a, b in zip(keys, keys[1:])) and not np.isnan(values).any():
        starts = [i for i in range(len(keys)) if i == 0 or keys[i] != keys[i - 1]]
        if not starts:
            return {}
        return {keys[i]: float(v) for i, v in zip(starts, np.add.reduceat(values, starts))}
    sums: dict = {}
    for k, v in zip(keys, values.tolist()):
        acc = sums.get(k)
        if acc is None:
            acc = sums[k] = KahanSum()
        acc.add(v)
    return {k: acc.total for k, acc in sums.items()}


def _by(rows: list[Severity], where, name: str) -> list[dict]:
    """Seconds per (pattern, class, WHERE(row)), largest first; ties in key order (class in code order)."""
    sums = group_sums(rows, lambda r: (r.metric, CLASSES_BY_CODE.index(r.cls), where(r)))
    ordered = sorted((k, v) for k, v in sums.items() if v > 0)
    ordered.sort(key=lambda kv: kv[1], reverse=True)  # stable: ties keep the key order
    return [{N.PATTERN: p, N.CLASS: CLASSES_BY_CODE[c], name: w, "seconds": float(v)}
            for (p, c, w), v in ordered]


def _total(rows) -> float:
    return float(np.sum(np.fromiter((r.value for r in rows), dtype=np.float64)))


def build_summary(out: EngineOutput, trace: str, rank_metahost: list[str]) -> dict:
    meta = out.meta
    time = [r for r in out.severities if r.metric == N.TIME]
    patterns = [r for r in out.severities if r.metric in PATTERNS]
    per_class = group_sums(patterns, lambda r: (r.metric, CLASSES_BY_CODE.index(r.cls)))
    pattern_totals = {p: {c: float(per_class.get((p, CLASSES_BY_CODE.index(c)), 0.0)) for c in N.CLASSES}
                      for p in PATTERNS}
    p2p = [
        {"from": r.source, "to": r.target, "bytes": int(r.bytes), "messages": int(r.messages),
         "max_rate_Bps": float(r.max_rate_Bps),
         "min_transfer_s": 0.0 if math.isnan(r.min_transfer_s) else float(r.min_transfer_s)}
        for r in out.pairs if r.messages > 0
    ]
    return {
        "trace": trace,
        "ranks": int(meta["ranks"]),
        "metahosts": dict(Counter(rank_metahost)),
        "events": int(meta["events"]),
        "total_time_s": _total(time),
        "mpi_time_s": _total(r for r in time if r.callpath in out.mpi_callpaths),
        "clock_violations": int(meta["clock_violations"]),
        "time_correction": meta["time_correction"],
        "unmatched_messages": {"sends": int(meta["unmatched_sends"]),
                               "receives": int(meta["unmatched_receives"])},
        "incomplete_collectives": int(meta["incomplete_collectives"]),
        "messages": int(meta["messages"]),
        "collectives": int(meta["collectives"]),
        # threads besides the ranks' master threads: counted, not analysed
        "unanalysed_locations": {"locations": int(meta["unanalysed_locations"]),
                                 "events": int(meta["unanalysed_location_events"])},
        # user regions repaired while reading (mis-nested, never left, stray Leaves): docs/analyzer.md
        "repaired_regions": {**{k: int(v) for k, v in meta["repaired_regions"].items()},
                             "warnings": list(meta["repair_warnings"])},
        "patterns": pattern_totals,
        "by_callpath": _by(patterns, lambda r: r.callpath, N.CALLPATH),
        "by_metahost": _by(patterns, lambda r: rank_metahost[r.rank], N.METAHOST),
        "p2p": p2p,
    }
