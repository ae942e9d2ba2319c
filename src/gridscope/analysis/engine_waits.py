"""The engine's wait-state rows, read in their canonical order, one batch at a time.

Each engine process p writes one raw little-endian file per column,
`waits.p.<column>.bin` (analyzer/src/replay.cpp kWaitColumns), its rows phase by phase
(replay.hpp WaitPhase: receiver-side point-to-point, Late Receiver, collectives), and
counts them per phase (meta.json `process_stats[p].wait_rows`). Processes own contiguous
blocks of ranks in process order, so phase 0 of process 0, 1, ..., then phase 1 of every
process, ... is the order of docs/analyzer.md (phase, rank, the order the engine finds a
rank's instances): the same sequence of rows whatever the number of processes, and batches
cut at the same rows.

Rows are read piece by piece straight into one batch's arrays (no mapping of whole files,
no concatenation), so memory holds one batch however many rows there are.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import CLASSES_BY_CODE, EngineHead, index_type
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.errors import GridscopeError

# replay.cpp kWaitColumns: file name part and stored type
WAIT_COLUMNS = (("start", "<f8"), ("end", "<f8"), ("cp", "<u4"), ("rank", "<u4"), ("metric", "<u2"), ("cls", "u1"))
WAIT_PHASES = 3  # replay.hpp kWaitPhases


class Segment(NamedTuple):
    """Rows FIRST .. FIRST+ROWS-1 of one engine process's column files."""

    process: int
    first: int
    rows: int


def wait_column_files(prefix: Path) -> list[Path]:
    """The engine's wait-state column files PREFIX.<column>.bin, in WAIT_COLUMNS order."""
    return [prefix.with_name(f"{prefix.name}.{name}.bin") for name, _ in WAIT_COLUMNS]


def _prefix(folder: Path, process: int) -> Path:
    return folder / f"waits.{process}"


def _phase_rows(head: EngineHead) -> list[list[int]]:
    stats = head.meta["process_stats"]
    rows = [[int(n) for n in p.get("wait_rows", ())] for p in stats]
    if len(rows) != head.processes or any(len(r) != WAIT_PHASES or min(r) < 0 for r in rows):
        raise GridscopeError(None, "engine output (meta.json) lacks the wait-state row counts")
    return rows


def wait_segments(folder: Path, head: EngineHead) -> list[Segment]:
    """The pieces of the engine's column files in canonical row order (sizes checked)."""
    rows = _phase_rows(head)
    for p, counts in enumerate(rows):
        for (_, dtype), path in zip(WAIT_COLUMNS, wait_column_files(_prefix(folder, p))):
            try:
                size = path.stat().st_size
            except OSError as err:
                raise GridscopeError(path, f"engine output missing or unreadable: {err.strerror}") from None
            if size != sum(counts) * np.dtype(dtype).itemsize:
                raise GridscopeError(path, "truncated engine output")
    return [Segment(p, sum(counts[:phase]), counts[phase])
            for phase in range(WAIT_PHASES) for p, counts in enumerate(rows) if counts[phase]]


def _dictionary_type(labels: int) -> pa.DataType:
    return pa.dictionary(pa.from_numpy_dtype(index_type(labels)), pa.string())


def wait_schema(head: EngineHead) -> pa.Schema:
    """names.WAITSTATE_COLUMNS with labels as dictionaries of the narrowest index type."""
    types = {N.PATTERN: _dictionary_type(len(ENGINE_METRICS)), N.CLASS: _dictionary_type(len(CLASSES_BY_CODE)),
             N.RANK: pa.int32(), N.START_S: pa.float64(), N.END_S: pa.float64(), N.SEVERITY_S: pa.float64(),
             N.CALLPATH: _dictionary_type(len(head.callpaths))}
    return pa.schema([(name, types[name]) for name in N.WAITSTATE_COLUMNS])


class _Batch:
    """The arrays of one record batch, filled piece by piece (raw columns read in place)."""

    def __init__(self, rows: int, schema: pa.Schema) -> None:
        def codes(name: str) -> np.ndarray:
            return np.empty(rows, schema.field(name).type.index_type.to_pandas_dtype())

        self.raw = {"start": np.empty(rows, "<f8"), "end": np.empty(rows, "<f8"), "cp": np.empty(rows, "<u4"),
                    "rank": np.empty(rows, np.int32), "metric": np.empty(rows, "<u2"), "cls": np.empty(rows, np.int8)}
        self.callpath = codes(N.CALLPATH)
        self.pattern = codes(N.PATTERN)
        self.severity = np.empty(rows, "<f8")
        self.filled = 0


def _read_exactly(f, offset: int, into: memoryview, where: Path) -> None:
    f.seek(offset)
    done = 0
    while done < len(into):
        n = f.readinto(into[done:])
        if not n:
            raise GridscopeError(where, "truncated engine output")
        done += n


class WaitBatches:
    """Iterates over the engine's wait states as record batches of BATCH_ROWS rows (the last
    one shorter), with the schema `schema`. Each batch has arrays of its own."""

    def __init__(self, folder: Path, head: EngineHead, batch_rows: int = N.WAIT_BATCH_ROWS) -> None:
        if batch_rows < 1:
            raise ValueError("batch_rows must be at least 1")
        self.folder, self.head, self.batch_rows = folder, head, batch_rows
        self.segments = wait_segments(folder, head)
        self.rows = sum(s.rows for s in self.segments)
        self.schema = wait_schema(head)
        self._dictionaries = {N.PATTERN: pa.array(ENGINE_METRICS, pa.string()),
                              N.CLASS: pa.array(CLASSES_BY_CODE, pa.string()),
                              N.CALLPATH: pa.array(head.callpaths, pa.string())}

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        files: dict[int, list] = {}
        try:
            batch, left = None, self.rows
            for seg in self.segments:
                if seg.process not in files:
                    files[seg.process] = [open(path, "rb", buffering=0)
                                          for path in wait_column_files(_prefix(self.folder, seg.process))]
                done = 0
                while done < seg.rows:
                    if batch is None:
                        batch = _Batch(min(self.batch_rows, left), self.schema)
                        left -= len(batch.severity)
                    take = min(seg.rows - done, len(batch.severity) - batch.filled)
                    self._fill(batch, files[seg.process], seg.process, seg.first + done, take)
                    done += take
                    if batch.filled == len(batch.severity):
                        yield self._finish(batch)
                        batch = None
        finally:
            for fs in files.values():
                for f in fs:
                    f.close()

    def _fill(self, batch: _Batch, files: list, process: int, first: int, rows: int) -> None:
        at = slice(batch.filled, batch.filled + rows)
        for (name, dtype), f in zip(WAIT_COLUMNS, files):
            size = np.dtype(dtype).itemsize
            _read_exactly(f, first * size, memoryview(batch.raw[name][at]).cast("B"), Path(f.name))
        # call-path ids are per process: to the merged list's index
        remap = self.head.remaps[process]
        cps = batch.raw["cp"][at]
        if rows and int(cps.max()) >= len(remap):
            raise GridscopeError(_prefix(self.folder, process), "engine output refers to an unknown call path")
        np.take(remap, cps, out=batch.callpath[at])
        batch.filled += rows

    def _finish(self, batch: _Batch) -> pa.RecordBatch:
        n = batch.filled
        metric, cls = batch.raw["metric"][:n], batch.raw["cls"][:n]
        if n and (int(metric.max()) >= len(ENGINE_METRICS) or int(cls.view(np.uint8).max()) >= len(CLASSES_BY_CODE)):
            raise GridscopeError(self.folder / "waits.*.bin", "engine output refers to an unknown metric or class")
        np.copyto(batch.pattern[:n], metric, casting="unsafe")  # checked to fit
        start, end = batch.raw["start"][:n], batch.raw["end"][:n]
        np.subtract(end, start, out=batch.severity[:n])

        def labels(name: str, codes: np.ndarray) -> pa.DictionaryArray:
            return pa.DictionaryArray.from_arrays(pa.array(codes), self._dictionaries[name])

        columns = {N.PATTERN: labels(N.PATTERN, batch.pattern[:n]), N.CLASS: labels(N.CLASS, cls),
                   N.RANK: pa.array(batch.raw["rank"][:n]), N.START_S: pa.array(start), N.END_S: pa.array(end),
                   N.SEVERITY_S: pa.array(batch.severity[:n]),
                   N.CALLPATH: labels(N.CALLPATH, batch.callpath[:n])}
        return pa.RecordBatch.from_arrays([columns[name] for name in self.schema.names], schema=self.schema)


def remove_wait_columns(folder: Path, head: EngineHead) -> None:
    """Deletes the wait-state column files (the bulk of the engine's output)."""
    for p in range(head.processes):
        for path in wait_column_files(_prefix(folder, p)):
            path.unlink(missing_ok=True)

