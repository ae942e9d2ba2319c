"""The in-memory Cube4 experiment: a metric tree, a call tree and a system tree, with
severities stored as a long table.

Values in ``Experiment.severities`` are *exclusive* in both trees: a parent metric does
not contain its children, a call path does not contain its callees. Exclusive values make
the algebra (difference, sum) a plain row-wise operation; the writer and reader convert to
and from what a .cubex file stores (see writer.py / reader.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import pandas as pd

# Column names of Experiment.locations and Experiment.severities.
RANK = "rank"
METAHOST = "metahost"
NODE = "node"
METRIC = "metric"
CALLPATH = "callpath"
VALUE = "value"

LOCATION_COLUMNS = (RANK, METAHOST, NODE)
SEVERITY_COLUMNS = (METRIC, CALLPATH, RANK, VALUE)

SEPARATOR = "/"  # joins region names into a call path: "main/foo/MPI_Recv"

# Units of measurement Cube knows for our metrics.
UOM_SECONDS = "sec"
UOM_OCCURRENCES = "occ"
UOM_BYTES = "bytes"

# Cube data types whose values add up along trees; MIN/MAX types are not summed.
ADDITIVE_DTYPES = frozenset({"DOUBLE", "FLOAT", "INT64", "UINT64", "INT32", "UINT32",
                             "INT16", "UINT16", "INT8", "UINT8", "INTEGER", "INT"})


@dataclass(frozen=True)
class Metric:
    """One node of the metric tree; ``children`` are nested metrics."""

    uniq_name: str
    disp_name: str
    uom: str
    descr: str = ""
    url: str = ""
    dtype: str = "DOUBLE"
    children: tuple["Metric", ...] = ()

    @property
    def additive(self) -> bool:
        return self.dtype.upper() in ADDITIVE_DTYPES


@dataclass(frozen=True)
class Experiment:
    """A Cube experiment (see module docstring for the value convention)."""

    metrics: tuple[Metric, ...]
    callpaths: tuple[str, ...]
    locations: pd.DataFrame
    severities: pd.DataFrame
    attrs: dict[str, str] = field(default_factory=dict)


def walk_metrics(roots: tuple[Metric, ...]) -> Iterator[tuple[Metric, Metric | None]]:
    """Every metric with its parent, depth-first pre-order (the order of metric ids)."""
    stack: list[tuple[Metric, Metric | None]] = [(m, None) for m in reversed(roots)]
    while stack:
        metric, parent = stack.pop()
        yield metric, parent
        stack.extend((child, metric) for child in reversed(metric.children))


def metric_index(roots: tuple[Metric, ...]) -> dict[str, Metric]:
    return {m.uniq_name: m for m, _ in walk_metrics(roots)}


def callpath_parent(path: str, known: set[str] | dict) -> str | None:
    """The longest listed proper prefix of PATH ending at a separator (None for a root).

    Looking prefixes up (rather than cutting at the last separator) keeps region names
    that contain the separator themselves working, as long as the prefix is not a path.
    """
    cut = path.rfind(SEPARATOR)
    while cut > 0:
        prefix = path[:cut]
        if prefix in known:
            return prefix
        cut = path.rfind(SEPARATOR, 0, cut)
    return None


def region_name(path: str, parent: str | None) -> str:
    return path if parent is None else path[len(parent) + len(SEPARATOR):]


def empty_severities() -> pd.DataFrame:
    return pd.DataFrame({
        METRIC: pd.Series([], dtype="object"),
        CALLPATH: pd.Series([], dtype="object"),
        RANK: pd.Series([], dtype="int32"),
        VALUE: pd.Series([], dtype="float64"),
    })


def make_locations(ranks, metahosts, nodes) -> pd.DataFrame:
    frame = pd.DataFrame({
        RANK: pd.Series(list(ranks), dtype="int32"),
        METAHOST: pd.Series(list(metahosts), dtype="object"),
        NODE: pd.Series(list(nodes), dtype="object"),
    })
    return frame.sort_values(RANK, kind="stable").reset_index(drop=True)


def typed_severities(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of FRAME with the canonical columns and dtypes, duplicate keys summed."""
    out = pd.DataFrame({
        METRIC: frame[METRIC].astype("object"),
        CALLPATH: frame[CALLPATH].astype("object"),
        RANK: frame[RANK].astype("int32"),
        VALUE: frame[VALUE].astype("float64"),
    })
    if out.duplicated([METRIC, CALLPATH, RANK]).any():
        out = out.groupby([METRIC, CALLPATH, RANK], as_index=False, sort=False)[VALUE].sum()
        out[RANK] = out[RANK].astype("int32")
    return out.reset_index(drop=True)
