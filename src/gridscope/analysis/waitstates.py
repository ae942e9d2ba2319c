"""The wait-state table of an analysis folder: one row per wait-state instance
(names.WAITSTATE_COLUMNS).

Stored as `waitstates.feather` (Arrow IPC file, uncompressed, written batch by batch: see
engine_waits): for 2.7 M rows it is written in 0.02-0.04 s where snappy Parquet took
~0.19 s (docs/perf-analyzer.md), and read by memory mapping. pandas (`pd.read_feather`), pyarrow, polars and R's arrow read it as is.
Everything in gridscope reads it through read_waitstates(), which also reads the
`waitstates.parquet` of folders written by earlier versions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from gridscope.analysis import names as N
from gridscope.errors import GridscopeError


def write_waitstate_batches(schema, batches: Iterable, path: Path) -> None:
    """Writes record BATCHES (pyarrow, SCHEMA: names.WAITSTATE_COLUMNS) one after the other
    as the Feather file PATH: only the batch being written is in memory. PATH is replaced
    once complete (a failure leaves no half-written file behind)."""
    import pyarrow as pa

    path = Path(path)
    tmp = path.with_name(f".{path.name}.part")
    try:
        # No compression: LZ4 makes the benchmark's file 48 instead of 80 MiB but takes
        # 0.12-0.17 s instead of 0.03 s to write.
        options = pa.ipc.IpcWriteOptions(compression=None)
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, schema, options=options) as writer:
            batches = iter(batches)
            while (batch := next(batches, None)) is not None:
                writer.write_batch(batch)
                del batch  # before the next one is made: one batch in memory, not two
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_waitstates(table, path: Path) -> None:
    """Writes a pyarrow Table of names.WAITSTATE_COLUMNS (its record batches as they are)."""
    write_waitstate_batches(table.schema, table.to_batches(), path)


def waitstates_file(folder: str | Path) -> Path | None:
    """The folder's wait-state file (the Feather one, else a legacy Parquet one), or None."""
    for name in (N.WAITSTATES_FILE, N.LEGACY_WAITSTATES_FILE):
        path = Path(folder) / name
        if path.is_file():
            return path
    return None


def read_waitstate_table(path: Path, columns: list[str] | tuple[str, ...] | None = None):
    """The wait-state file PATH as a pyarrow Table (memory-mapped, not decoded); one that
    cannot be read or lacks a column of COLUMNS (default: all) raises GridscopeError."""
    import pyarrow as pa

    try:
        table = _read_table(path)
    except (OSError, ValueError, pa.ArrowException) as err:
        raise GridscopeError(path, f"cannot read wait states: {err}") from None
    missing = [c for c in (N.WAITSTATE_COLUMNS if columns is None else columns) if c not in table.column_names]
    if missing:
        raise GridscopeError(path, f"missing columns: {', '.join(missing)}")
    return table


def _read_table(path: Path):
    import pyarrow as pa

    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path)
    with pa.memory_map(str(path)) as source:
        return pa.ipc.open_file(source).read_all()


def read_waitstates(folder: str | Path, columns: list[str] | tuple[str, ...] | None = None):
    """The folder's wait states as a pandas DataFrame (all its columns, or COLUMNS), or
    None when it has no wait-state file. Labels (pattern, class, callpath) are categoricals.

    A damaged file or one without the columns asked for raises GridscopeError.
    """
    import pyarrow as pa

    path = waitstates_file(folder)
    if path is None:
        return None
    table = read_waitstate_table(path, columns)
    try:  # a damaged dictionary or string column shows only when it is decoded
        return (table if columns is None else table.select(list(columns))).to_pandas()
    except (ValueError, pa.ArrowException) as err:
        raise GridscopeError(path, f"cannot read wait states: {err}") from None
