"""The Cube experiment of an analysis.

Presentation of the grid/local split: every pattern metric gets two children,
``<pattern>_grid`` and ``<pattern>_local``, that carry all of its severity (the pattern
node itself is 0 exclusive, so its inclusive value is the pattern total). Late Sender
also keeps its child Messages in Wrong Order beside the two. `time` is exclusive of `mpi`
and `mpi` exclusive of the wait states below it, as in Scalasca's tree.
"""

from __future__ import annotations

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
    sev = out.severities
    patterns = sev[sev[N.METRIC].isin(PATTERNS)]
    split = pd.DataFrame({
        N.METRIC: [class_metric(p, c) for p, c in zip(patterns[N.METRIC], patterns[N.CLASS])],
        N.CALLPATH: patterns[N.CALLPATH].to_numpy(), N.RANK: patterns[N.RANK].to_numpy(),
        N.VALUE: patterns[N.VALUE].to_numpy()})
    waiting = patterns.groupby([N.CALLPATH, N.RANK], observed=True)[N.VALUE].sum()
    time = sev[sev[N.METRIC] == N.TIME].set_index([N.CALLPATH, N.RANK])[N.VALUE]
    remaining = time.sub(waiting, fill_value=0.0).reset_index()
    is_mpi = remaining[N.CALLPATH].isin(out.mpi_callpaths)
    remaining[N.METRIC] = [N.MPI if m else N.TIME for m in is_mpi]
    others = sev[sev[N.METRIC].isin([N.VISITS, N.BYTES_SENT, N.BYTES_RECEIVED])][[N.METRIC, N.CALLPATH, N.RANK, N.VALUE]]
    frame = pd.concat([remaining[[N.METRIC, N.CALLPATH, N.RANK, N.VALUE]], split, others], ignore_index=True)
    frame = frame[frame[N.VALUE] != 0]
    frame[N.RANK] = frame[N.RANK].astype("int32")
    frame[N.VALUE] = frame[N.VALUE].astype("float64")
    return frame.reset_index(drop=True)


def build_experiment(out: EngineOutput, rank_metahost: list[str], trace: str):
    from gridscope.cube import Experiment

    locations = pd.DataFrame({
        N.RANK: pd.Series(range(len(rank_metahost)), dtype="int32"),
        N.METAHOST: rank_metahost, N.NODE: out.meta["rank_node"]})
    return Experiment(metrics=metric_roots(), callpaths=out.callpaths, locations=locations,
                      severities=cube_severities(out),
                      attrs={"gridscope::trace": trace, "gridscope::tool": "gridscope analyze"})
