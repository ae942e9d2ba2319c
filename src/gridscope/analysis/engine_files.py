"""Reads the raw files the engine writes (one set per analysis process).

Layouts mirror analyzer/src/rows.hpp (SevRow, PairRow); call-path ids are local to each
engine process and are merged here by their region-name path. The profile (severities,
message pairs: hundreds of rows) becomes plain Python rows, which the summary and the Cube
export go through far quicker than through pandas. The wait states (millions of rows) are
read in batches by engine_waits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.errors import GridscopeError

SEV_DTYPE = np.dtype([("metric", "<u2"), ("cls", "u1"), ("pad", "u1"), ("cp", "<u4"), ("rank", "<u4"),
                      ("pad2", "<u4"), ("value", "<f8")])
PAIR_DTYPE = np.dtype([("from", "<u4"), ("to", "<u4"), ("bytes", "<u8"), ("messages", "<u8"),
                       ("max_rate", "<f8"), ("min_duration", "<f8")])
CLASSES_BY_CODE = tuple(N.CLASS_BY_CODE[c] for c in range(len(N.CLASS_BY_CODE)))  # local, grid, ""


class Severity(NamedTuple):
    metric: str
    cls: str        # names.CLASS_BY_CODE
    callpath: str
    rank: int
    value: float


class Pair(NamedTuple):
    """Messages from one metahost to another."""

    source: str
    target: str
    bytes: int
    messages: int
    max_rate_Bps: float
    min_transfer_s: float  # NaN when no transfer time was measured


def severity_order(row: Severity) -> tuple:
    """Sort key of the severities: metric, class in engine code order, call path, rank, and
    the value: two engine call paths with the same region-name path (regions of equal
    names) give two rows of one key, whose engine ids, and so file order, depend on -j."""
    return row.metric, CLASSES_BY_CODE.index(row.cls), row.callpath, row.rank, row.value


@dataclass(frozen=True)
class EngineOutput:
    """The profile part of the engine's output (the wait states go to disk on their own)."""

    meta: dict
    callpaths: tuple[str, ...]        # every call path, parents before children
    mpi_callpaths: frozenset[str]     # call paths whose last region is an MPI call
    severities: tuple[Severity, ...]  # sorted by severity_order
    pairs: tuple[Pair, ...]           # sorted by metahost index of source, target


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


def read_head(folder: Path) -> EngineHead:
    meta_path = folder / "meta.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise GridscopeError(meta_path, f"engine output missing or unreadable: {err}") from None
    tables = [_callpath_table(folder / f"callpaths.{p}.tsv") for p in range(int(meta["processes"]))]
    all_paths = {path for paths, _ in tables for path in paths}
    mpi_paths = {path for paths, mpi in tables for path, m in zip(paths, mpi) if m}
    callpaths = tuple(sorted(all_paths, key=lambda s: s.split("/")))
    index = {path: i for i, path in enumerate(callpaths)}
    # the engine's call-path ids are per process: map them to the merged list
    kind = index_type(len(callpaths))
    remaps = tuple(np.asarray([index[x] for x in paths], dtype=kind) for paths, _ in tables)
    return EngineHead(meta, callpaths, frozenset(mpi_paths), remaps)


def _checked_callpaths(cps: np.ndarray, remap: np.ndarray, where: Path) -> np.ndarray:
    if cps.size and int(cps.max()) >= len(remap):
        raise GridscopeError(where, "engine output refers to an unknown call path")
    return remap[cps]


def _labels(codes: np.ndarray, labels, where: Path) -> list[str]:
    if codes.size and int(codes.max()) >= len(labels):
        raise GridscopeError(where, "engine output refers to an unknown call path or metric")
    return [labels[c] for c in codes.tolist()]


def _merge_pairs(parts: list[np.ndarray], hosts: list[str]) -> tuple[Pair, ...]:
    merged: dict[tuple[int, int], list] = {}
    for part in parts:
        for src, dst, nbytes, messages, rate, duration in part.tolist():
            row = merged.setdefault((src, dst), [0, 0, float("-inf"), float("nan")])
            row[0] += nbytes
            row[1] += messages
            row[2] = max(row[2], rate)
            if duration >= 0 and not duration >= row[3]:  # negative: not measured; NaN: none yet
                row[3] = duration
    return tuple(Pair(hosts[src], hosts[dst], *row) for (src, dst), row in sorted(merged.items()))


def read_profile(folder: Path, head: EngineHead) -> EngineOutput:
    """Severities and message pairs of every process, merged."""
    severities: list[Severity] = []
    pairs = []
    for p, remap in enumerate(head.remaps):
        sev_file = folder / f"severities.{p}.bin"
        sev = np.fromfile(sev_file, dtype=SEV_DTYPE)
        callpaths = _labels(_checked_callpaths(sev["cp"], remap, sev_file), head.callpaths, sev_file)
        severities += map(Severity, _labels(sev["metric"], ENGINE_METRICS, sev_file),
                          _labels(sev["cls"], CLASSES_BY_CODE, sev_file), callpaths,
                          sev["rank"].astype(np.int32).tolist(), sev["value"].tolist())
        pairs.append(np.fromfile(folder / f"pairs.{p}.bin", dtype=PAIR_DTYPE))
    # A fixed row order makes sums independent of how many engine processes ran.
    severities.sort(key=severity_order)
    return EngineOutput(head.meta, head.callpaths, head.mpi_callpaths, tuple(severities),
                        _merge_pairs(pairs, head.meta["metahosts"]))
