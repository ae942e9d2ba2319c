"""The engine's wait-state rows, read in their canonical order, one batch at a time.

Each engine process p writes one raw little-endian file per column,
`waits.p.<column>.bin` (analyzer/src/replay.cpp kWaitColumns), its rows phase by phase
(replay.hpp WaitPhase: receiver-side point-to-point, Late Receiver, collectives, MPI_Init
and MPI_Finalize), and
counts them per phase (meta.json `process_stats[p].wait_rows`). Processes own contiguous
blocks of ranks in process order, so phase 0 of process 0, 1, ..., then phase 1 of every
process, ... is the order of docs/analyzer.md (phase, rank, the order the engine finds a
rank's instances): the same sequence of rows whatever the number of processes, and batches
cut at the same rows.

Only one batch's window of the files is mapped at a time (not the whole files), so memory
holds about one batch however many rows there are.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from gridscope.analysis import names as N
from gridscope.analysis.engine import RowsOnDisk
from gridscope.analysis.engine_files import CLASSES_BY_CODE, EngineHead, index_type
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.errors import GridscopeError

# replay.cpp kWaitColumns: file name part and stored type
WAIT_COLUMNS = (("start", "<f8"), ("end", "<f8"), ("cp", "<u4"), ("rank", "<u4"), ("metric", "<u2"), ("cls", "u1"))
WAIT_PHASES = 4  # replay.hpp kWaitPhases


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


def _phase_rows(folder: Path, head: EngineHead) -> list[list[int]]:
    stats = head.meta["process_stats"]
    rows = [[int(n) for n in p.get("wait_rows", ())] for p in stats]
    if len(rows) != head.processes or any(len(r) != WAIT_PHASES or min(r) < 0 for r in rows):
        raise GridscopeError(folder / "meta.json", "engine output lacks the wait-state row counts")
    return rows


def wait_segments(folder: Path, head: EngineHead) -> list[Segment]:
    """The pieces of the engine's column files in canonical row order (sizes checked)."""
    rows = _phase_rows(folder, head)
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


def batch_plan(segments: list[Segment], batch_rows: int) -> list[list[Segment]]:
    """SEGMENTS cut into batches of BATCH_ROWS rows (the last one shorter): each batch a list
    of pieces in row order, adjacent rows of one process's files in one piece. The cuts
    depend on the row sequence alone, not on the processes."""
    plan: list[list[Segment]] = [[]]
    filled = 0
    for seg in segments:
        done = 0
        while done < seg.rows:
            if filled == batch_rows:
                plan.append([])
                filled = 0
            take = min(seg.rows - done, batch_rows - filled)
            last = plan[-1][-1] if plan[-1] else None
            if last and last.process == seg.process and last.first + last.rows == seg.first + done:
                plan[-1][-1] = last._replace(rows=last.rows + take)  # the rows go on in the same files
            else:
                plan[-1].append(Segment(seg.process, seg.first + done, take))
            done += take
            filled += take
    return plan if filled else []


def _window(f, dtype: str, first: int, rows: int) -> np.ndarray:
    """Rows FIRST .. FIRST+ROWS-1 of a column file, as a read-only array over the page cache
    (unmapped again once nothing refers to it)."""
    size = np.dtype(dtype).itemsize
    start = first * size
    base = start - start % mmap.ALLOCATIONGRANULARITY
    # MAP_POPULATE maps the window at once instead of faulting page by page
    m = mmap.mmap(f.fileno(), start - base + rows * size, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                  prot=mmap.PROT_READ, offset=base)
    return np.frombuffer(m, dtype, count=rows, offset=start - base)


class WaitBatches:
    """Iterates over the engine's wait states as record batches of BATCH_ROWS rows (the last
    one shorter) with the schema `schema`, in canonical order.

    A batch's number columns are zero-copy views of its window of the column files when
    the batch lies in one process's files (a batch that spans processes is copied
    together); so memory and mappings hold about one batch.

    With `rows_on_disk` (one engine process, still running: its file order is the canonical
    order) each batch is made as soon as its rows are on disk, the last one once they all are;
    the files' sizes are then checked at the end (`rows`: how many there were).
    """

    def __init__(self, folder: Path, head: EngineHead, batch_rows: int = N.WAIT_BATCH_ROWS,
                 rows_on_disk: RowsOnDisk | None = None) -> None:
        if batch_rows < 1:
            raise ValueError("batch_rows must be at least 1")
        self.folder, self.head = folder, head
        self._rows_on_disk = rows_on_disk
        if rows_on_disk is None:
            self.plan = batch_plan(wait_segments(folder, head), batch_rows)
            self.rows = sum(piece.rows for batch in self.plan for piece in batch)
        else:
            self._batch_rows, self.rows = batch_rows, 0
        self.schema = wait_schema(head)
        self._dictionaries = {N.PATTERN: pa.array(ENGINE_METRICS, pa.string()),
                              N.CLASS: pa.array(CLASSES_BY_CODE, pa.string()),
                              N.CALLPATH: pa.array(head.callpaths, pa.string())}
        self._codes = {name: np.dtype(f"int{self.schema.field(name).type.index_type.bit_width}")
                       for name in self._dictionaries}

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        files: dict[int, list] = {}
        try:
            for pieces in (self.plan if self._rows_on_disk is None else self._growing_plan()):
                # (no local keeps a batch's arrays across the yield: one batch alive at a time)
                yield self._batch(*self._read(pieces, files))
        finally:
            for fs in files.values():
                for f in fs:
                    f.close()

    def _growing_plan(self) -> Iterator[list[Segment]]:
        """batch_plan's batches of one process's rows as they come on disk."""
        for on_disk in self._rows_on_disk:
            while on_disk - self.rows >= self._batch_rows:
                yield [Segment(0, self.rows, self._batch_rows)]
                self.rows += self._batch_rows
        for (_, dtype), path in zip(WAIT_COLUMNS, wait_column_files(_prefix(self.folder, 0))):
            if path.stat().st_size != self._rows_on_disk.last * np.dtype(dtype).itemsize:
                raise GridscopeError(path, "truncated engine output")
        if self._rows_on_disk.last > self.rows:
            yield [Segment(0, self.rows, self._rows_on_disk.last - self.rows)]
            self.rows = self._rows_on_disk.last

    def _read(self, pieces: list[Segment], files: dict[int, list]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The raw columns of one batch and its call-path codes."""
        columns: dict[str, list[np.ndarray]] = {name: [] for name, _ in WAIT_COLUMNS}
        callpaths = []
        for piece in pieces:
            if piece.process not in files:
                files[piece.process] = [open(path, "rb") for path in
                                        wait_column_files(_prefix(self.folder, piece.process))]
            for (name, dtype), f in zip(WAIT_COLUMNS, files[piece.process]):
                columns[name].append(_window(f, dtype, piece.first, piece.rows))
            callpaths.append(self._callpaths(columns["cp"][-1], piece.process))
        if len(pieces) == 1:
            return {name: parts[0] for name, parts in columns.items()}, callpaths[0]
        raw = {}
        for name in list(columns):  # copied together column by column, each window unmapped once copied
            raw[name] = np.concatenate(columns.pop(name))
        return raw, np.concatenate(callpaths)

    def _callpaths(self, cps: np.ndarray, process: int) -> np.ndarray:
        """Call-path ids are per process: to the merged list's index."""
        remap = self.head.remaps[process]
        if int(cps.max()) >= len(remap):
            raise GridscopeError(_prefix(self.folder, process), "engine output refers to an unknown call path")
        return remap[cps].astype(self._codes[N.CALLPATH], copy=False)

    def _batch(self, raw: dict[str, np.ndarray], callpath: np.ndarray) -> pa.RecordBatch:
        metric, cls = raw["metric"], raw["cls"]
        if int(metric.max()) >= len(ENGINE_METRICS) or int(cls.max()) >= len(CLASSES_BY_CODE):
            raise GridscopeError(self.folder / "waits.*.bin", "engine output refers to an unknown metric or class")

        def labels(name: str, codes: np.ndarray) -> pa.DictionaryArray:
            codes = codes.astype(self._codes[name], copy=False)  # checked to fit
            return pa.DictionaryArray.from_arrays(pa.array(codes), self._dictionaries[name], safe=False)

        columns = {N.PATTERN: labels(N.PATTERN, metric), N.CLASS: labels(N.CLASS, cls),
                   N.RANK: pa.array(raw["rank"].view(np.int32)), N.START_S: pa.array(raw["start"]),
                   N.END_S: pa.array(raw["end"]), N.SEVERITY_S: pa.array(raw["end"] - raw["start"]),
                   N.CALLPATH: labels(N.CALLPATH, callpath)}
        return pa.RecordBatch.from_arrays([columns[name] for name in self.schema.names], schema=self.schema)


def prepare_arrow() -> None:
    """pyarrow sets up its pandas support the first time it converts an array (15 ms, a
    version check): done by the caller while the engine runs, not after it."""
    pa.array(np.zeros(0))


def remove_wait_columns(folder: Path, head: EngineHead) -> None:
    """Deletes the wait-state column files (the bulk of the engine's output)."""
    for p in range(head.processes):
        for path in wait_column_files(_prefix(folder, p)):
            path.unlink(missing_ok=True)

