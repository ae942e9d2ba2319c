"""How an Experiment maps onto Cube's numbering: cnode ids, regions, location order.

Checks the experiment on the way (bad input is a GridscopeError naming WHERE), so the
writer and the algebra work on a consistent picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gridscope.cube.model import (CALLPATH, METAHOST, METRIC, NODE, RANK, VALUE, Experiment,
                                  Metric, callpath_parent, region_name, walk_metrics)
from gridscope.errors import GridscopeError


@dataclass(frozen=True)
class CubeLayout:
    metrics: tuple[Metric, ...]          # depth-first pre-order = metric ids
    callpaths: tuple[str, ...]           # depth-first pre-order = cnode ids
    cnode_parent: tuple[int | None, ...]
    cnode_region: tuple[int, ...]
    regions: tuple[str, ...]
    system: tuple[tuple[str, tuple[tuple[str, tuple[int, ...]], ...]], ...]
    location_ranks: tuple[int, ...]      # rank of each location column, system-tree order

    def dense(self, severities: pd.DataFrame) -> dict[str, np.ndarray]:
        """Per metric uniq_name a (cnodes × locations) float64 array of SEVERITIES."""
        shape = (len(self.callpaths), len(self.location_ranks))
        out = {m.uniq_name: np.zeros(shape) for m in self.metrics}
        if severities.empty:
            return out
        # hash look-ups of whole columns (a dict per row took ten times longer on 1024 ranks)
        rows = pd.Index(self.callpaths, dtype=object).get_indexer(severities[CALLPATH])
        cols = pd.Index(self.location_ranks).get_indexer(severities[RANK])
        if (rows < 0).any() or (cols < 0).any():  # layout_of checks severities first: a bug if so
            raise ValueError("severities name a call path or rank outside the layout")
        values = severities[VALUE].to_numpy(dtype="float64")
        for name, positions in severities.groupby(METRIC, sort=False).indices.items():
            np.add.at(out[name], (rows[positions], cols[positions]), values[positions])
        return out


def layout_of(exp: Experiment, where) -> CubeLayout:
    metrics = tuple(m for m, _ in walk_metrics(exp.metrics))
    names = [m.uniq_name for m in metrics]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise GridscopeError(where, f"metric names listed twice: {', '.join(dup)}")
    if not metrics:
        raise GridscopeError(where, "experiment has no metrics")
    callpaths, parents = order_callpaths(exp.callpaths, where)
    regions: dict[str, int] = {}
    cnode_region = []
    for path, parent in zip(callpaths, parents):
        name = region_name(path, None if parent is None else callpaths[parent])
        cnode_region.append(regions.setdefault(name, len(regions)))
    system, location_ranks = _system(exp.locations, where)
    _check_severities(exp.severities, set(names), set(callpaths), set(location_ranks), where)
    return CubeLayout(metrics=metrics, callpaths=callpaths, cnode_parent=parents,
                      cnode_region=tuple(cnode_region), regions=tuple(regions),
                      system=system, location_ranks=location_ranks)


def order_callpaths(paths: tuple[str, ...], where):
    if not paths:
        raise GridscopeError(where, "experiment has no call paths")
    seen: dict[str, int] = {}
    children: dict[str | None, list[str]] = {None: []}
    for position, path in enumerate(paths):
        if not isinstance(path, str) or not path:
            raise GridscopeError(where, f"call path #{position} is empty or not a string")
        if path in seen:
            raise GridscopeError(where, f"call path listed twice: {path!r}")
        parent = callpath_parent(path, seen)
        if parent is None and callpath_parent(path, set(paths)) is not None:
            raise GridscopeError(where, f"call path {path!r} is listed before its parent")
        seen[path] = position
        children.setdefault(parent, []).append(path)
        children[path] = []
    order: list[str] = []
    parents: list[int | None] = []
    stack: list[tuple[str, int | None]] = [(p, None) for p in reversed(children[None])]
    while stack:
        path, parent_id = stack.pop()
        own_id = len(order)
        order.append(path)
        parents.append(parent_id)
        stack.extend((c, own_id) for c in reversed(children[path]))
    return tuple(order), tuple(parents)


def _system(locations: pd.DataFrame, where):
    missing = [c for c in (RANK, METAHOST, NODE) if c not in locations.columns]
    if missing:
        raise GridscopeError(where, f"locations lack column(s) {', '.join(missing)}")
    if locations.empty:
        raise GridscopeError(where, "experiment has no locations")
    ranks = locations[RANK].astype("int64")
    if ranks.duplicated().any():
        raise GridscopeError(where, f"rank listed twice in locations: "
                                    f"{int(ranks[ranks.duplicated()].iloc[0])}")
    metahosts: dict[str, dict[str, list[int]]] = {}
    for rank, metahost, node in sorted(zip(ranks, locations[METAHOST].astype(str),
                                           locations[NODE].astype(str))):
        metahosts.setdefault(metahost, {}).setdefault(node, []).append(int(rank))
    system = tuple((mh, tuple((node, tuple(r)) for node, r in nodes.items()))
                   for mh, nodes in metahosts.items())
    order = tuple(r for _, nodes in system for _, rs in nodes for r in rs)
    return system, order


def _check_severities(sev: pd.DataFrame, metrics: set, callpaths: set, ranks: set, where):
    missing = [c for c in (METRIC, CALLPATH, RANK, VALUE) if c not in sev.columns]
    if missing:
        raise GridscopeError(where, f"severities lack column(s) {', '.join(missing)}")
    for column, known, what in ((METRIC, metrics, "metric"), (CALLPATH, callpaths, "call path"),
                                (RANK, ranks, "rank")):
        unknown = set(sev[column].unique()) - known
        if unknown:
            raise GridscopeError(where, f"severities name an unknown {what}: "
                                        f"{sorted(map(str, unknown))[0]!r}")
    values = sev[VALUE].to_numpy(dtype="float64")
    if not np.all(np.isfinite(values)):
        raise GridscopeError(where, "severities hold a value that is not a finite number")
