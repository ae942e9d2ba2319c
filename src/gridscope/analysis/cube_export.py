"""The Cube experiment of an analysis.

Presentation of the grid/local split: every pattern metric gets two children,
``<pattern>_grid`` and ``<pattern>_local``, that carry all of its severity (the pattern
node itself is 0 exclusive, so its inclusive value is the pattern total). Late Sender
also keeps its child Messages in Wrong Order beside the two. `time` is exclusive of `mpi`
and `mpi` exclusive of the wait states below it, as in Scalasca's tree.

The root-cause trees (docs/root-causes.md) sit beside it: delay costs and wait-state
classes split grid/local like the patterns (as the engine charged them), the critical-path
profile with its imbalance child (the node keeps the rest, so collapsed it shows the
profile), and the performance-impact metrics derived in critical_path.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridscope.analysis import names as N
from gridscope.analysis.critical_path import DERIVED, IMBALANCE, CallpathRankValues, metrics
from gridscope.analysis.engine_files import CLASSES_BY_CODE, EngineOutput
from gridscope.analysis.metric_tree import ENGINE_METRICS, METRICS, PATTERNS, MetricDecl
from gridscope.analysis.sums import group_sums


def class_metric(pattern: str, cls: str) -> str:
    return f"{pattern}_{cls}"


# Cube metrics of the rows cube_severities makes, and the engine's codes mapped onto them.
COUNTS = (N.VISITS, N.BYTES_SENT, N.BYTES_RECEIVED, *N.TRANSFER_BYTES)
# Root-cause metrics the engine splits grid/local like the patterns: delay costs, wait classes
SPLIT_ROOT_CAUSE = tuple(m.id for m in METRICS if m.kind in ("delay", "waitclass") and m.grid_split)
SPLIT = (*PATTERNS, *SPLIT_ROOT_CAUSE)
CUBE_METRICS = (N.TIME, N.MPI, *COUNTS, *(class_metric(p, c) for p in SPLIT for c in CLASSES_BY_CODE),
                N.CRITICAL_PATH, *DERIVED)
COUNT_CODES = [ENGINE_METRICS.index(m) for m in COUNTS]
SPLIT_CODES = [ENGINE_METRICS.index(m) for m in SPLIT_ROOT_CAUSE]
ENGINE_CUBE_CODE = np.asarray([CUBE_METRICS.index(m) if m in COUNTS else -1 for m in ENGINE_METRICS])
CLASS_METRIC_CODE = np.asarray([[CUBE_METRICS.index(class_metric(m, c)) if m in SPLIT else -1
                                 for c in CLASSES_BY_CODE] for m in ENGINE_METRICS])  # [metric code, class code]


def metric_roots():
    """The metric tree (gridscope.cube.Metric roots) generated from patterns.toml."""
    from gridscope.cube import Metric

    children: dict[str, list[MetricDecl]] = {}
    for m in METRICS:
        children.setdefault(m.parent, []).append(m)

    def build(decl: MetricDecl) -> Metric:
        kids = []
        if decl.grid_split:
            for cls in N.CLASSES:
                kids.append(Metric(class_metric(decl.id, cls), f"{cls.capitalize()}", decl.unit,
                                   descr=f"{decl.display}: {cls} part ("
                                   + ("crossing metahosts" if cls == N.GRID else "within one metahost") + ")"))
        kids += [build(c) for c in children.get(decl.id, [])]
        dtype = "UINT64" if decl.unit in ("occ", "bytes") else "DOUBLE"
        return Metric(decl.id, decl.display, decl.unit, descr=decl.description, dtype=dtype, children=tuple(kids))

    return tuple(build(m) for m in children[""])


def cube_severities(out: EngineOutput) -> pd.DataFrame:
    """Exclusive values per (metric, call path, rank), following the module docstring."""
    from gridscope.analysis.summary import IS_PATTERN, TIME_CODE

    sev = out.severities
    patterns = sev.take(IS_PATTERN[sev.metric])
    time = sev.take(sev.metric == TIME_CODE)
    # two call paths of one name path (regions of the same name, e.g. from two source files)
    # are one Cube call path: their times add up, as in summary.json
    waiting_first, waiting = group_sums((out.callpath_order[patterns.callpath], patterns.rank), patterns.value)
    time_first, timed = group_sums((out.callpath_order[time.callpath], time.rank), time.value)
    # every (call path, rank) with time or waiting, in (call path string, rank) order
    waiting_key = _callpath_rank_key(out, patterns.callpath[waiting_first], patterns.rank[waiting_first])
    time_key = _callpath_rank_key(out, time.callpath[time_first], time.rank[time_first])
    keys, where = np.unique(np.concatenate((time_key, waiting_key)), return_index=True)
    callpath = np.concatenate((time.callpath[time_first], patterns.callpath[waiting_first]))[where]
    rank = np.concatenate((time.rank[time_first], patterns.rank[waiting_first]))[where]
    # time minus the wait states inside it is what stays in `time` or `mpi`
    value = _at(keys, time_key, timed) - _at(keys, waiting_key, waiting)
    metric = np.where(out.is_mpi_callpath[callpath], CUBE_METRICS.index(N.MPI), CUBE_METRICS.index(N.TIME))
    counts = sev.take(np.isin(sev.metric, COUNT_CODES))
    split = sev.take(np.isin(sev.metric, SPLIT_CODES))  # delay costs and wait classes, as the engine charged them
    path = _path_columns(out)
    metric = np.concatenate((metric, CLASS_METRIC_CODE[patterns.metric, patterns.cls], ENGINE_CUBE_CODE[counts.metric],
                             CLASS_METRIC_CODE[split.metric, split.cls], path[0]))
    callpath = np.concatenate((callpath, patterns.callpath, counts.callpath, split.callpath, path[1]))
    rank = np.concatenate((rank, patterns.rank, counts.rank, split.rank, path[2]))
    value = np.concatenate((value, patterns.value, counts.value, split.value, path[3]))
    kept = value != 0
    return pd.DataFrame({N.METRIC: pd.Series(np.asarray(CUBE_METRICS, dtype=object)[metric[kept]], dtype=object),
                         N.CALLPATH: pd.Series(np.asarray(out.callpaths, dtype=object)[callpath[kept]], dtype=object),
                         N.RANK: rank[kept].astype(np.int32), N.VALUE: value[kept].astype(np.float64)})


def _path_columns(out: EngineOutput) -> tuple[np.ndarray, ...]:
    """(Cube metric code, call path, rank, value) of the critical path and the metrics derived
    from it. The imbalance is part of the profile: `critical_path` keeps the rest, so the
    collapsed node shows the profile (docs/root-causes.md)."""
    path = metrics(out)
    parts: list[tuple[int, CallpathRankValues]] = []
    if len(path.profile):
        profile = path.profile
        imbalance = path.derived[IMBALANCE]
        at = np.searchsorted(_callpath_rank_key(out, profile.callpath, profile.rank),
                             _callpath_rank_key(out, imbalance.callpath, imbalance.rank))
        rest = profile.value.copy()
        rest[at] -= imbalance.value  # the imbalance rows are (call path, rank)s of the profile
        parts.append((CUBE_METRICS.index(N.CRITICAL_PATH), CallpathRankValues(profile.callpath, profile.rank, rest)))
        parts += [(CUBE_METRICS.index(name), path.derived[name]) for name in DERIVED]
    if not parts:
        return (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0))
    return (np.concatenate([np.full(len(v), code) for code, v in parts]),
            np.concatenate([v.callpath for _, v in parts]), np.concatenate([v.rank for _, v in parts]),
            np.concatenate([v.value for _, v in parts]))


def _callpath_rank_key(out: EngineOutput, callpath: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """One int64 per (call path, rank) that orders as (call path string, rank) does."""
    return (out.callpath_order[callpath].astype(np.int64) << 32) + (rank.astype(np.int64) - np.iinfo(np.int32).min)


def _at(keys: np.ndarray, known: np.ndarray, values: np.ndarray) -> np.ndarray:
    """VALUES (of the sorted, distinct KNOWN) at every one of KEYS; 0.0 where KNOWN lacks it."""
    out = np.zeros(len(keys))
    out[np.searchsorted(keys, known)] = values
    return out


def build_experiment(out: EngineOutput, rank_metahost: list[str], trace: str):
    from gridscope.cube import Experiment

    locations = pd.DataFrame({
        N.RANK: pd.Series(range(len(rank_metahost)), dtype="int32"),
        N.METAHOST: rank_metahost, N.NODE: out.meta["rank_node"]})
    return Experiment(metrics=metric_roots(), callpaths=out.callpaths, locations=locations,
                      severities=cube_severities(out),
                      attrs={"gridscope::trace": trace, "gridscope::tool": "gridscope analyze"})
