"""Reads the raw files the engine writes (one set per analysis process) into DataFrames.

Layouts mirror analyzer/src/records.hpp (SevRow, WaitRow, PairRow); call-path ids are
local to each engine process and are merged here by their region-name path.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from gridscope.analysis import names as N
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.errors import GridscopeError

SEV_DTYPE = np.dtype([("metric", "<u2"), ("cls", "u1"), ("pad", "u1"), ("cp", "<u4"), ("rank", "<u4"),
                      ("pad2", "<u4"), ("value", "<f8")])
# One raw file per wait-state column, `waits.P.<name>.bin` (replay.cpp kWaitColumns).
WAIT_COLUMNS = (("start", "<f8"), ("end", "<f8"), ("cp", "<u4"), ("rank", "<u4"), ("metric", "<u2"), ("cls", "u1"))
PAIR_DTYPE = np.dtype([("from", "<u4"), ("to", "<u4"), ("bytes", "<u8"), ("messages", "<u8"),
                       ("max_rate", "<f8"), ("min_duration", "<f8")])
CLASS_CATEGORIES = pd.CategoricalDtype([N.LOCAL, N.GRID, ""])


@dataclass(frozen=True)
class EngineOutput:
    meta: dict
    callpaths: tuple[str, ...]        # every call path, parents before children
    mpi_callpaths: frozenset[str]     # call paths whose last region is an MPI call
    severities: pd.DataFrame          # metric, class, callpath, rank, value (sorted)
    waits: "pa.Table"                 # waitstate columns (names.WAITSTATE_COLUMNS), dictionary-encoded labels
    pairs: pd.DataFrame               # from, to, bytes, messages, max_rate_Bps, min_transfer_s


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


def _dictionary(codes: np.ndarray, labels, where: Path) -> pa.DictionaryArray:
    if codes.size and int(codes.max()) >= len(labels):
        raise GridscopeError(where, "engine output refers to an unknown call path or metric")
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32, copy=False)),
                                          pa.array(list(labels), pa.string()))


def _map_column(path: Path, dtype: str) -> np.ndarray:
    """A raw column file as a read-only array over the page cache (no read copy)."""
    import mmap

    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return np.empty(0, dtype)
            # MAP_POPULATE maps the whole file at once instead of faulting page by page
            buf = mmap.mmap(f.fileno(), size, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                            prot=mmap.PROT_READ)
    except OSError as err:
        raise GridscopeError(path, f"engine output missing or unreadable: {err.strerror}") from None
    if size % np.dtype(dtype).itemsize:
        raise GridscopeError(path, "truncated engine output")
    return np.frombuffer(buf, dtype=dtype)


def read_wait_columns(prefix: Path) -> dict[str, np.ndarray]:
    """The engine's wait-state columns (files PREFIX.<column>.bin), one array each."""
    cols = {name: _map_column(prefix.with_name(f"{prefix.name}.{name}.bin"), dtype) for name, dtype in WAIT_COLUMNS}
    if len({c.size for c in cols.values()}) > 1:
        raise GridscopeError(prefix.with_name(f"{prefix.name}.*.bin"), "truncated engine output (columns differ in length)")
    return cols


def _wait_table(waits: dict[str, np.ndarray], remap: np.ndarray, callpaths: tuple[str, ...],
                where: Path) -> pa.Table:
    start, end = waits["start"], waits["end"]
    return pa.table({
        N.PATTERN: _dictionary(waits["metric"], ENGINE_METRICS, where),
        N.CLASS: _dictionary(waits["cls"], list(CLASS_CATEGORIES.categories), where),
        N.RANK: pa.array(waits["rank"].view(np.int32)),
        N.START_S: pa.array(start), N.END_S: pa.array(end), N.SEVERITY_S: pa.array(end - start),
        N.CALLPATH: _dictionary(remap[waits["cp"]], callpaths, where),
    })


def read_engine_output(folder: Path) -> EngineOutput:
    meta_path = folder / "meta.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise GridscopeError(meta_path, f"engine output missing or unreadable: {err}") from None
    processes = int(meta["processes"])
    tables = [_callpath_table(folder / f"callpaths.{p}.tsv") for p in range(processes)]
    all_paths = {path for paths, _ in tables for path in paths}
    mpi_paths = {path for paths, mpi in tables for path, m in zip(paths, mpi) if m}
    callpaths = tuple(sorted(all_paths, key=lambda s: s.split("/")))
    index = {path: i for i, path in enumerate(callpaths)}
    path_type = pd.CategoricalDtype(list(callpaths))
    metric_type = pd.CategoricalDtype(list(ENGINE_METRICS))

    def categorical(codes: np.ndarray, dtype: pd.CategoricalDtype, where: Path) -> pd.Categorical:
        if codes.size and int(codes.max()) >= len(dtype.categories):
            raise GridscopeError(where, "engine output refers to an unknown call path or metric")
        return pd.Categorical.from_codes(codes.astype(np.int32), dtype=dtype)

    sev_parts, wait_parts, pair_parts = [], [], []
    for p, (paths, _) in enumerate(tables):
        # the engine's call-path ids are per process: map them to the merged list
        remap = np.asarray([index[x] for x in paths] + [-1], dtype=np.int32)
        sev_file, wait_file = folder / f"severities.{p}.bin", folder / f"waits.{p}"
        sev = np.fromfile(sev_file, dtype=SEV_DTYPE)
        waits = read_wait_columns(wait_file)
        for cps, where in ((sev["cp"], sev_file), (waits["cp"], folder / f"waits.{p}.cp.bin")):
            if cps.size and int(cps.max()) >= len(paths):
                raise GridscopeError(where, "engine output refers to an unknown call path")
        sev_parts.append(pd.DataFrame({
            N.METRIC: categorical(sev["metric"], metric_type, sev_file),
            N.CLASS: categorical(sev["cls"], CLASS_CATEGORIES, sev_file),
            N.CALLPATH: categorical(remap[sev["cp"]], path_type, sev_file),
            N.RANK: sev["rank"].astype(np.int32), N.VALUE: sev["value"]}))
        wait_parts.append(_wait_table(waits, remap, callpaths, wait_file))
        pair_parts.append(pd.DataFrame(np.fromfile(folder / f"pairs.{p}.bin", dtype=PAIR_DTYPE)))

    severities = pd.concat(sev_parts, ignore_index=True)
    for col in (N.METRIC, N.CALLPATH):  # small table: plain strings are simpler downstream
        severities[col] = severities[col].astype(str)
    # A fixed row order makes sums independent of how many engine processes ran.
    severities = severities.sort_values([N.METRIC, N.CLASS, N.CALLPATH, N.RANK], kind="stable", ignore_index=True)
    severities = severities[list(N.SEVERITY_COLUMNS)]
    # millions of rows on big traces: kept as an Arrow table (no pandas copy), engine order
    waits = pa.concat_tables(wait_parts)

    pairs = pd.concat(pair_parts, ignore_index=True)
    pairs["min_duration"] = pairs["min_duration"].where(pairs["min_duration"] >= 0)
    pairs = (pairs.groupby(["from", "to"], sort=True)
             .agg(bytes=("bytes", "sum"), messages=("messages", "sum"),
                  max_rate_Bps=("max_rate", "max"), min_transfer_s=("min_duration", "min"))
             .reset_index())
    hosts = meta["metahosts"]
    pairs["from"] = [hosts[i] for i in pairs["from"]]
    pairs["to"] = [hosts[i] for i in pairs["to"]]
    return EngineOutput(meta, callpaths, frozenset(mpi_paths), severities, waits, pairs)
