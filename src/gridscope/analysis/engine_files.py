"""Reads the raw files the engine writes (one set per analysis process).

Layouts mirror analyzer/src/rows.hpp (SevRow, PairRow); call-path ids are local to each
engine process and are merged here by their region-name path. The severities (ranks x call
paths x metrics rows: tens of thousands on 1024 ranks) stay numpy columns, sorted once, from
which the summary and the Cube export compute without one Python object per row; the message
pairs (metahost pairs: a handful) become Python rows. The wait states (millions of rows) are
read in batches by engine_waits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, NamedTuple

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.errors import GridscopeError


# `thread`: which of the rank's locations (0: its master; k: its k-th thread, docs/analyzer.md)
SEV_DTYPE = np.dtype([("metric", "<u2"), ("cls", "u1"), ("thread", "u1"), ("cp", "<u4"), ("rank", "<u4"),
                      ("pad", "<u4"), ("value", "<f8")])
PAIR_DTYPE = np.dtype([("from", "<u4"), ("to", "<u4"), ("bytes", "<u8"), ("messages", "<u8"),
                       ("max_rate", "<f8"), ("min_duration", "<f8"), ("ready_messages", "<u8"),
                       ("large_messages", "<u8"), ("large_bytes", "<u8"), ("ready_ticks", "<f8"),
                       ("ready_min", "<f8"), ("large_seconds", "<f8")])
assert PAIR_DTYPE.itemsize == 88  # analyzer: struct PairRow
CLASSES_BY_CODE = tuple(N.CLASS_BY_CODE[c] for c in range(len(N.CLASS_BY_CODE)))  # local, grid, ""


def string_order(labels) -> np.ndarray:
    """Position of each label among LABELS sorted as Python sorts strings (codes that order
    like the strings they stand for)."""
    order = np.empty(len(labels), dtype=np.int32)
    order[sorted(range(len(labels)), key=labels.__getitem__)] = np.arange(len(labels), dtype=np.int32)
    return order


METRIC_ORDER = string_order(ENGINE_METRICS)  # engine metric code -> rank of its name


class Severity(NamedTuple):
    """One severity row, for building SeverityColumns by hand (tests)."""

    metric: str
    cls: str        # names.CLASS_BY_CODE
    callpath: str
    rank: int
    value: float
    thread: int = 0  # 0: the rank's master location


class Pair(NamedTuple):
    """Messages from one metahost to another."""

    source: str
    target: str
    bytes: int
    messages: int
    max_rate_Bps: float
    min_transfer_s: float  # NaN when no transfer time was measured
    # messages whose receiver was ready before the send (rows.hpp PairRow): the network's times
    ready_messages: int = 0
    ready_seconds: float = 0.0
    ready_min_s: float = float("nan")  # NaN: none
    large_messages: int = 0            # ready ones of at least LARGE_MESSAGE_BYTES
    large_bytes: int = 0               # the fastest of them: its bytes and transfer time
    large_seconds: float = 0.0


LARGE_MESSAGE_BYTES = 32768  # rows.hpp kLargeMessageBytes


SEVERITY_FIELDS = ("metric", "cls", "callpath", "rank", "value", "thread")


@dataclass(frozen=True)
class SeverityColumns:
    """The severity rows as columns, in severity order (see sorted_by_severity)."""

    metric: np.ndarray    # code into ENGINE_METRICS
    cls: np.ndarray       # engine class code (CLASSES_BY_CODE)
    callpath: np.ndarray  # index into EngineOutput.callpaths
    rank: np.ndarray      # int32
    value: np.ndarray     # float64
    thread: np.ndarray    # uint8: the rank's location (0: master thread); every view sums a rank's threads

    def __len__(self) -> int:
        return len(self.value)

    def take(self, rows: np.ndarray) -> "SeverityColumns":
        """The rows selected by a boolean mask or positions, in their order."""
        return SeverityColumns(self.metric[rows], self.cls[rows], self.callpath[rows], self.rank[rows],
                               self.value[rows], self.thread[rows])

    @staticmethod
    def from_rows(rows: Iterable[Severity], callpaths: tuple[str, ...]) -> "SeverityColumns":
        rows = list(rows)
        code = {c: i for i, c in enumerate(CLASSES_BY_CODE)}
        index = {p: i for i, p in enumerate(callpaths)}
        return sorted_by_severity(SeverityColumns(
            np.asarray([ENGINE_METRICS.index(r.metric) for r in rows], dtype=np.uint16),
            np.asarray([code[r.cls] for r in rows], dtype=np.uint8),
            np.asarray([index[r.callpath] for r in rows], dtype=np.int32),
            np.asarray([r.rank for r in rows], dtype=np.int32),
            np.asarray([r.value for r in rows], dtype=np.float64),
            np.asarray([r.thread for r in rows], dtype=np.uint8)), callpaths)


def sorted_by_severity(sev: SeverityColumns, callpaths: tuple[str, ...]) -> SeverityColumns:
    """SEV in severity order: metric name, class in engine code order, call path (as a
    string), rank, thread, and the value: two engine call paths with the same region-name path
    (regions of equal names) give two rows of one key, whose engine ids, and so file order,
    depend on -j. A stable sort, so equal rows keep their order (they are indistinguishable).
    (A NaN value sorts last here; the Cube writer refuses it, so no output depends on that.)"""
    order = np.lexsort((sev.value, sev.thread, sev.rank, string_order(callpaths)[sev.callpath], sev.cls,
                        METRIC_ORDER[sev.metric]))
    return sev.take(order)


@dataclass(frozen=True)
class EngineOutput:
    """The profile part of the engine's output (the wait states go to disk on their own)."""

    meta: dict
    callpaths: tuple[str, ...]        # every call path, parents before children
    mpi_callpaths: frozenset[str]     # call paths whose last region is an MPI call
    severities: SeverityColumns       # sorted by sorted_by_severity
    pairs: tuple[Pair, ...]           # sorted by metahost index of source, target
    causes: "CauseColumns | None" = None  # root_causes.read_causes; None: root causes were off
    wan_sources: "WanSources | None" = None  # root_causes.read_wan_sources; None: root causes were off

    @cached_property
    def callpath_order(self) -> np.ndarray:
        """Call-path index -> rank of its string (sums and listings order call paths as strings)."""
        return string_order(self.callpaths)

    @cached_property
    def is_mpi_callpath(self) -> np.ndarray:
        return np.fromiter((p in self.mpi_callpaths for p in self.callpaths), dtype=bool, count=len(self.callpaths))


@dataclass(frozen=True)
class EngineHead:
    """meta.json and the call paths of every engine process, merged by name."""

    meta: dict
    callpaths: tuple[str, ...]
    mpi_callpaths: frozenset[str]
    remaps: tuple[np.ndarray, ...]    # per process: its call-path id -> index in callpaths (index_type)

    @property
    def processes(self) -> int:
        return len(self.remaps)


def _callpath_table(path: Path) -> tuple[list[str], list[bool]]:
    paths: list[str] = []
    mpi: list[bool] = []
    for line in path.read_text().splitlines():
        ident, parent, region, is_mpi = line.split("\t")
        p = int(parent)
        if int(ident) != len(paths) or p >= len(paths):
            raise GridscopeError(path, "engine call-path table is inconsistent")
        paths.append(region if p < 0 else f"{paths[p]}/{region}")
        mpi.append(is_mpi == "1")
    return paths, mpi


def index_type(labels: int) -> type:
    """The narrowest signed integer type for codes into LABELS labels (less to convert and write)."""
    return next(t for t in (np.int8, np.int16, np.int32) if labels <= np.iinfo(t).max)


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise GridscopeError(path, f"engine output missing or unreadable: {err}") from None


def read_head(folder: Path) -> EngineHead:
    meta = _json(folder / "meta.json")
    return engine_head(folder, meta, int(meta["processes"]))


def read_wait_head(folder: Path) -> EngineHead:
    """What the wait states' conversion needs of the head, once the engine has said they are
    written (N.ENGINE_WAITS_WRITTEN) and before its meta.json: each process's call paths and
    rows per phase (meta["process_stats"][P]["wait_rows"], as meta.json will have them)."""
    processes = 0
    while (folder / N.WAIT_ROWS_FILE.format(process=processes)).exists():
        processes += 1
    stats = [{"wait_rows": _json(folder / N.WAIT_ROWS_FILE.format(process=p)).get("wait_rows", [])}
             for p in range(processes)]
    return engine_head(folder, {"processes": processes, "process_stats": stats}, processes)


def read_stream_head(folder: Path) -> EngineHead:
    """What converting a lone engine process's wait states as they come needs of the head
    (N.ENGINE_WAIT_ROWS): its call paths, written before its replay; the rows per phase only
    come with meta.json."""
    return engine_head(folder, {"processes": 1, "process_stats": []}, 1)


def engine_head(folder: Path, meta: dict, processes: int) -> EngineHead:
    """META with the call paths of PROCESSES engine processes, merged."""
    tables = [_callpath_table(folder / f"callpaths.{p}.tsv") for p in range(processes)]
    all_paths = {path for paths, _ in tables for path in paths}
    mpi_paths = {path for paths, mpi in tables for path, m in zip(paths, mpi) if m}
    callpaths = tuple(sorted(all_paths, key=lambda s: s.split("/")))
    index = {path: i for i, path in enumerate(callpaths)}
    # the engine's call-path ids are per process: map them to the merged list
    kind = index_type(len(callpaths))
    remaps = tuple(np.asarray([index[x] for x in paths], dtype=kind) for paths, _ in tables)
    return EngineHead(meta, callpaths, frozenset(mpi_paths), remaps)


def checked_callpaths(cps: np.ndarray, remap: np.ndarray, where: Path) -> np.ndarray:
    if cps.size and int(cps.max()) >= len(remap):
        raise GridscopeError(where, "engine output refers to an unknown call path")
    return remap[cps]


def checked_codes(codes: np.ndarray, labels: int, where: Path) -> np.ndarray:
    if codes.size and int(codes.max()) >= labels:
        raise GridscopeError(where, "engine output refers to an unknown call path or metric")
    return codes


def merge_pairs(parts: list[np.ndarray], hosts: list[str], resolution: float = 1.0) -> tuple[Pair, ...]:
    """The processes' pair rows summed per (source, target); RESOLUTION: ticks per second."""
    def minimum(known: float, value: float) -> float:
        """The smaller of two durations; negative VALUE: not measured; NaN KNOWN: none yet."""
        return value if value >= 0 and not value >= known else known

    merged: dict[tuple[int, int], list] = {}
    for (src, dst, nbytes, messages, rate, duration, ready, large, large_bytes, ready_ticks, ready_min,
         large_s) in (row for part in parts for row in part.tolist()):
        row = merged.setdefault((src, dst), [0, 0, float("-inf"), float("nan"), 0, 0.0, float("nan"), 0, 0, 0.0])
        row[0] += nbytes
        row[1] += messages
        row[2] = max(row[2], rate)
        row[3] = minimum(row[3], duration)
        row[4] += ready
        row[5] += ready_ticks  # whole ticks: the same sum in any order
        row[6] = minimum(row[6], ready_min)
        row[7] += large
        if large_s > 0 and (row[9] <= 0 or large_bytes / large_s > row[8] / row[9]):  # the fastest
            row[8], row[9] = large_bytes, large_s
    for row in merged.values():
        row[5] /= resolution
    return tuple(Pair(hosts[src], hosts[dst], *row) for (src, dst), row in sorted(merged.items()))
