"""The Cube experiment of an analysis.

Presentation of the grid/local split: every pattern metric gets two children,
``<pattern>_grid`` and ``<pattern>_local``, that carry all of its severity (the pattern
node itself is 0 exclusive, so its inclusive value is the pattern total). Late Sender
also keeps its child Messages in Wrong Order beside the two. `time` is exclusive of `mpi`
and `mpi` exclusive of the wait states below it, as in Scalasca's tree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import EngineOutput
from gridscope.analysis.metric_tree import METRICS, PATTERNS, MetricDecl


def class_metric(pattern: str, cls: str) -> str:
    return f"{pattern}_{cls}"


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
    from gridscope.analysis.summary import group_sums

    sev = out.severities
    patterns = [r for r in sev if r.metric in PATTERNS]
    waiting = group_sums(patterns, lambda r: (r.callpath, r.rank))
    # two call paths of one name path (regions of the same name, e.g. from two source files)
    # are one Cube call path: their times add up, as in summary.json
    time = group_sums([r for r in sev if r.metric == N.TIME], lambda r: (r.callpath, r.rank))
    rows = []
    for callpath, rank in sorted(time.keys() | waiting.keys()):
        # time minus the wait states inside it is what stays in `time` or `mpi`
        value = time.get((callpath, rank), 0.0) - waiting.get((callpath, rank), 0.0)
        rows.append((N.MPI if callpath in out.mpi_callpaths else N.TIME, callpath, rank, value))
    rows += [(class_metric(r.metric, r.cls), r.callpath, r.rank, r.value) for r in patterns]
    rows += [(r.metric, r.callpath, r.rank, r.value) for r in sev
             if r.metric in (N.VISITS, N.BYTES_SENT, N.BYTES_RECEIVED)]
    rows = [r for r in rows if r[3] != 0]
    metric, callpath, rank, value = zip(*rows) if rows else ((), (), (), ())
    return pd.DataFrame({N.METRIC: pd.Series(metric, dtype=object), N.CALLPATH: pd.Series(callpath, dtype=object),
                         N.RANK: np.asarray(rank, dtype=np.int32), N.VALUE: np.asarray(value, dtype=np.float64)})


def build_experiment(out: EngineOutput, rank_metahost: list[str], trace: str):
    from gridscope.cube import Experiment

    locations = pd.DataFrame({
        N.RANK: pd.Series(range(len(rank_metahost)), dtype="int32"),
        N.METAHOST: rank_metahost, N.NODE: out.meta["rank_node"]})
    return Experiment(metrics=metric_roots(), callpaths=out.callpaths, locations=locations,
                      severities=cube_severities(out),
                      attrs={"gridscope::trace": trace, "gridscope::tool": "gridscope analyze"})
