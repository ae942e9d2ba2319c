"""Cube algebra: difference and sum of experiments (Song, Wolf et al., ICPP 2004).

As in cubelib's ``cube_diff``: the metric trees are merged by unique name, the call
trees by call path and the system trees by rank; an entry missing on one side counts as
zero; the operation then runs per (metric, call path, rank). Because the model keeps
values exclusive in both trees, that is a row-wise sum of signed severity tables. Inputs
are never changed: every step builds new frames and tuples.
"""

from __future__ import annotations

import pandas as pd

from gridscope.cube.layout import order_callpaths
from gridscope.cube.model import (CALLPATH, METAHOST, METRIC, NODE, RANK, VALUE, Experiment,
                                  Metric, make_locations, typed_severities, walk_metrics)

ALL_RANKS = "all ranks"  # metahost and node name of the single collapsed location
OPERATION_ATTR = "gridscope::operation"


def merge_metric_trees(first: tuple[Metric, ...], second: tuple[Metric, ...],
                       dtype: str | None = None) -> tuple[Metric, ...]:
    """FIRST's tree plus SECOND's metrics it lacks, placed under the same parent name.

    DTYPE, when given, replaces every metric's data type (a difference of counts can be
    negative, so it is stored as DOUBLE).
    """
    fields: dict[str, Metric] = {}
    children: dict[str | None, list[str]] = {None: []}
    for tree in (first, second):
        for metric, parent in walk_metrics(tree):
            if metric.uniq_name in fields:
                continue
            fields[metric.uniq_name] = metric
            parent_name = parent.uniq_name if parent is not None else None
            children.setdefault(parent_name if parent_name in fields else None, []).append(
                metric.uniq_name)
            children.setdefault(metric.uniq_name, [])

    def build(name: str) -> Metric:
        m = fields[name]
        return Metric(m.uniq_name, m.disp_name, m.uom, m.descr, m.url,
                      dtype or m.dtype, tuple(build(c) for c in children[name]))

    return tuple(build(name) for name in children[None])


def merge_callpaths(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """Union of both call trees, parents before children (depth-first, FIRST's order)."""
    union = tuple(dict.fromkeys(first + second))
    ordered, _ = order_callpaths(union, where="merged call tree")
    return ordered


def merge_locations(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """Union by rank; where both name a rank, FIRST's metahost and node win."""
    both = pd.concat([first[[RANK, METAHOST, NODE]], second[[RANK, METAHOST, NODE]]],
                     ignore_index=True)
    both = both.drop_duplicates(RANK, keep="first")
    return make_locations(both[RANK], both[METAHOST], both[NODE])


def collapse_system(exp: Experiment) -> Experiment:
    """EXP with the system dimension summed into one location (rank 0, "all ranks")."""
    sev = exp.severities
    summed = sev.groupby([METRIC, CALLPATH], as_index=False, sort=False)[VALUE].sum()
    summed[RANK] = 0
    return Experiment(exp.metrics, exp.callpaths, make_locations([0], [ALL_RANKS], [ALL_RANKS]),
                      typed_severities(summed), dict(exp.attrs))


def combine(first: Experiment, second: Experiment, sign: float, *,
            collapse: bool = False, dtype: str | None = None, label: str = "") -> Experiment:
    """FIRST + SIGN × SECOND on the unified trees (SIGN = −1: difference)."""
    if collapse:
        first, second = collapse_system(first), collapse_system(second)
    rows = pd.concat([first.severities[[METRIC, CALLPATH, RANK, VALUE]],
                      second.severities[[METRIC, CALLPATH, RANK, VALUE]].assign(
                          **{VALUE: second.severities[VALUE] * sign})], ignore_index=True)
    summed = rows.groupby([METRIC, CALLPATH, RANK], as_index=False, sort=False)[VALUE].sum()
    summed = summed[summed[VALUE] != 0]
    attrs = {**second.attrs, **first.attrs}
    if label:
        attrs[OPERATION_ATTR] = label
    return Experiment(
        metrics=merge_metric_trees(first.metrics, second.metrics, dtype),
        callpaths=merge_callpaths(first.callpaths, second.callpaths),
        locations=merge_locations(first.locations, second.locations),
        severities=typed_severities(summed),
        attrs=attrs,
    )


def subtract(minuend: Experiment, subtrahend: Experiment, *,
             collapse: bool = False) -> Experiment:
    """MINUEND − SUBTRAHEND (e.g. NEW − BASE: gains are negative). Values become DOUBLE."""
    return combine(minuend, subtrahend, -1.0, collapse=collapse, dtype="DOUBLE",
                   label="difference")


def add(first: Experiment, second: Experiment, *, collapse: bool = False) -> Experiment:
    """FIRST + SECOND on the unified trees."""
    return combine(first, second, 1.0, collapse=collapse, label="sum")
