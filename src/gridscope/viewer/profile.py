"""Cube-like browsing of a profile: metric tree x call tree x system tree.

Severities are exclusive in both trees (gridscope.cube convention). Like Cube, a collapsed
node shows its inclusive value (itself plus its subtree) and an expanded node its own
exclusive value; the browser does that summing for the metric and call trees from the
(metric, call path) totals sent once, and asks the server for the per-rank values of the
current selection.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gridscope.cube.model import callpath_parent, region_name, walk_metrics


def _descendants(parents: list[int]) -> list[list[int]]:
    """For every node, itself and all nodes below it (parents[i] < 0 for roots)."""
    children: list[list[int]] = [[] for _ in parents]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    out = []
    for i in range(len(parents)):
        stack, seen = [i], []
        while stack:
            j = stack.pop()
            seen.append(j)
            stack.extend(children[j])
        out.append(seen)
    return out


def _sums_in(exp, mindex: dict, cindex: dict) -> list[list]:
    """exp's exclusive (metric, call path) sums over all ranks as [metric id, call path id,
    value] in another profile's ids; what that profile lacks is left out."""
    sev = exp.severities
    frame = pd.DataFrame({"m": sev["metric"].map(mindex), "c": sev["callpath"].map(cindex),
                          "v": sev["value"].to_numpy(dtype=np.float64)}).dropna()
    sums = frame.groupby(["m", "c"], sort=True)["v"].sum()
    return [[int(m), int(c), float(v)] for (m, c), v in sums.items() if v != 0]


@dataclass
class Profile:
    metrics: list[dict]
    callpaths: list[dict]
    ranks: list[dict]
    metric_codes: np.ndarray
    callpath_codes: np.ndarray
    rank_values: np.ndarray
    values: np.ndarray
    is_diff: bool
    # a difference's BASE as exclusive (metric, call path) sums over all ranks, in this
    # profile's ids (metrics by unique name, call paths by path); empty: not known
    base_mc: list[list] = field(default_factory=list)

    @classmethod
    def from_experiment(cls, exp, is_diff: bool = False, base=None) -> "Profile":
        metrics, mindex = [], {}
        for metric, parent in walk_metrics(exp.metrics):
            mindex[metric.uniq_name] = len(metrics)
            metrics.append({"id": len(metrics), "uniq": metric.uniq_name, "name": metric.disp_name,
                            "uom": metric.uom, "descr": metric.descr,
                            "parent": mindex[parent.uniq_name] if parent is not None else -1})
        known = set(exp.callpaths)
        cindex = {p: i for i, p in enumerate(exp.callpaths)}
        callpaths = []
        for i, path in enumerate(exp.callpaths):
            parent = callpath_parent(path, known)
            callpaths.append({"id": i, "path": path, "name": region_name(path, parent),
                              "parent": cindex[parent] if parent is not None else -1})
        loc = exp.locations
        ranks = [{"rank": int(r), "metahost": str(m), "node": str(n)}
                 for r, m, n in zip(loc["rank"], loc["metahost"], loc["node"])]
        sev = exp.severities
        mcodes = sev["metric"].map(mindex)
        ccodes = sev["callpath"].map(cindex)
        ok = mcodes.notna() & ccodes.notna() & np.isfinite(sev["value"].to_numpy(dtype=np.float64))
        return cls(metrics, callpaths, ranks,
                   mcodes[ok].to_numpy(dtype=np.int32), ccodes[ok].to_numpy(dtype=np.int32),
                   sev["rank"][ok].to_numpy(dtype=np.int64), sev["value"][ok].to_numpy(dtype=np.float64),
                   is_diff, _sums_in(base, mindex, cindex) if base is not None else [])

    def _metric_sets(self):
        return _descendants([m["parent"] for m in self.metrics])

    def _callpath_sets(self):
        return _descendants([c["parent"] for c in self.callpaths])

    def overview(self) -> dict:
        """Trees plus exclusive (metric, call path) sums over all ranks, as sparse triples."""
        frame = pd.DataFrame({"m": self.metric_codes, "c": self.callpath_codes, "v": self.values})
        sums = frame.groupby(["m", "c"], sort=True)["v"].sum()
        sums = sums[sums != 0]
        return {
            "metrics": self.metrics,
            "callpaths": self.callpaths,
            "ranks": self.ranks,
            "diff": self.is_diff,
            "mc": [[int(m), int(c), float(v)] for (m, c), v in sums.items()],
            "base_mc": self.base_mc,
        }

    def rank_values_for(self, metric: int, metric_inclusive: bool, callpath: int | None,
                        callpath_inclusive: bool) -> dict[int, float]:
        """Per-rank value of a metric (node or subtree) at a call path (node or subtree, or all)."""
        if not 0 <= metric < len(self.metrics):
            raise ValueError("no such metric")
        mset = self._metric_sets()[metric] if metric_inclusive else [metric]
        mask = np.isin(self.metric_codes, mset)
        if callpath is not None:
            if not 0 <= callpath < len(self.callpaths):
                raise ValueError("no such call path")
            cset = self._callpath_sets()[callpath] if callpath_inclusive else [callpath]
            mask &= np.isin(self.callpath_codes, cset)
        ranks = self.rank_values[mask]
        vals = self.values[mask]
        out: dict[int, float] = {r["rank"]: 0.0 for r in self.ranks}
        if len(ranks):
            uniq, inv = np.unique(ranks, return_inverse=True)
            total = np.bincount(inv, weights=vals)
            for r, v in zip(uniq, total):
                out[int(r)] = float(v)
        return out
