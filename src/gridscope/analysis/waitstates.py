"""waitstates.parquet: one row per wait-state instance (names.WAITSTATE_COLUMNS)."""

from __future__ import annotations

from pathlib import Path

from gridscope.analysis import names as N


def write_waitstates(table, path: Path) -> None:
    """Writes the engine's wait-state table (a pyarrow Table, engine_files.EngineOutput.waits)."""
    import pyarrow.parquet as pq

    # Dictionary-encode only the label columns; per-column statistics on millions of
    # floats cost more than they help here.
    pq.write_table(table, path, compression="snappy", use_dictionary=[N.PATTERN, N.CLASS, N.CALLPATH],
                   write_statistics=False)
