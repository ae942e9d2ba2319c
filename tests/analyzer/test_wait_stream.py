"""A lone engine process's wait states converted as it writes them (engine.RowsOnDisk,
engine_waits.WaitBatches with rows_on_disk): the same batches as converting them afterwards,
a clear error when the files hold fewer rows than said, and no hang when the engine fails."""

from __future__ import annotations

import json
import stat
import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from gridscope import native
from gridscope.analysis import names as N
from gridscope.analysis.engine import ConversionStopped, RowsOnDisk
from gridscope.analysis.engine_files import read_head, read_stream_head
from gridscope.analysis.engine_waits import WAIT_COLUMNS, WaitBatches, wait_column_files
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.errors import GridscopeError
from gstest import run_gridscope

# one process's rows, phase by phase: (start, end, call-path id, rank, metric, class)
PHASES = [[(1.0, 1.5, 1, 0, "late_sender", 1), (2.0, 2.25, 1, 1, "late_sender", 0), (2.5, 3.0, 1, 0, "late_sender", 0)],
          [(0.5, 0.75, 2, 1, "late_receiver", 0)],
          [(3.0, 3.5, 3, 0, "wait_at_barrier", 0), (3.0, 3.25, 3, 1, "wait_at_barrier", 1)],
          [(9.0, 9.5, 4, 1, "wait_at_nxn", 0)]]
CALLPATHS = ["main", "MPI_Recv", "MPI_Send", "MPI_Barrier", "MPI_Allreduce"]
ROWS = sum(map(len, PHASES))


def write_one_process(folder, rows: int = ROWS) -> None:
    """The engine's output of one process, its column files holding the first ROWS rows."""
    (folder / "callpaths.0.tsv").write_text(
        "".join(f"{i}\t{-1 if i == 0 else 0}\t{name}\t{int(i > 0)}\n" for i, name in enumerate(CALLPATHS)))
    columns = list(zip(*[row for phase in PHASES for row in phase][:rows]))
    columns[4] = [ENGINE_METRICS.index(m) for m in columns[4]]
    for (_, dtype), path, values in zip(WAIT_COLUMNS, wait_column_files(folder / "waits.0"), columns):
        np.asarray(values, dtype).tofile(path)
    (folder / "meta.json").write_text(json.dumps({"processes": 1, "process_stats": [
        {"wait_rows": [len(phase) for phase in PHASES]}]}))


def table(batches) -> pd.DataFrame:
    return pa.Table.from_batches(batches).to_pandas()


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 100])
@pytest.mark.parametrize("reports", [[0, ROWS], [0, 1, 2, 5, 6, ROWS], [0, 4, 4, ROWS]])
def test_rows_as_they_come_make_the_same_batches(tmp_path, batch_rows, reports):
    write_one_process(tmp_path)
    after = list(WaitBatches(tmp_path, read_head(tmp_path), batch_rows))
    on_disk = RowsOnDisk()
    for rows in reports:
        on_disk.put(rows)
    on_disk.end()
    waits = WaitBatches(tmp_path, read_stream_head(tmp_path), batch_rows, on_disk)
    streamed = list(waits)
    assert [b.num_rows for b in streamed] == [b.num_rows for b in after]
    assert waits.rows == ROWS and pa.Table.from_batches(streamed).equals(pa.Table.from_batches(after))


def test_each_full_batch_is_made_before_the_rows_end(tmp_path):
    write_one_process(tmp_path)
    on_disk = RowsOnDisk()
    batches = iter(WaitBatches(tmp_path, read_stream_head(tmp_path), 3, on_disk))
    on_disk.put(0)
    on_disk.put(4)
    assert next(batches).num_rows == 3  # rows 0-2, while the engine goes on
    on_disk.put(ROWS)
    assert next(batches).num_rows == 3
    on_disk.end()
    assert [b.num_rows for b in batches] == [ROWS - 6]


def test_files_shorter_than_the_rows_said_are_an_error(tmp_path):
    write_one_process(tmp_path, rows=ROWS - 1)
    on_disk = RowsOnDisk()
    on_disk.put(ROWS)
    on_disk.end()
    with pytest.raises(GridscopeError, match="truncated engine output"):
        list(WaitBatches(tmp_path, read_stream_head(tmp_path), 100, on_disk))


def test_a_stopped_conversion_ends_at_once(tmp_path):
    write_one_process(tmp_path)
    on_disk = RowsOnDisk()
    on_disk.put(0)
    failure = []

    def convert():
        try:
            list(WaitBatches(tmp_path, read_stream_head(tmp_path), 2, on_disk))
        except ConversionStopped as err:
            failure.append(err)

    thread = threading.Thread(target=convert)
    thread.start()
    on_disk.stop()
    thread.join()
    assert len(failure) == 1


def test_an_engine_failing_while_its_rows_are_converted_is_reported(make_trace, tmp_path):
    """The engine says its call paths are written (the conversion starts), then fails: one
    error line, a non-zero exit, no half-made folder, no conversion left waiting."""
    real = native.binary(N.ENGINE_BINARY)
    folder = tmp_path / "native"
    (folder / "bin").mkdir(parents=True)
    wrapper = folder / "bin" / N.ENGINE_BINARY
    wrapper.write_text(f"#!/bin/sh\n'{real}' \"$@\" | {{ read -r first; echo \"$first\"; "
                       "echo 'gridscope-replay: stopped by the test' >&2; exit 2; }\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "out"
    proc = run_gridscope("analyze", make_trace("late_sender"), "-o", out, "-q", check=False, timeout=600,
                         env={"GRIDSCOPE_NATIVE_DIR": str(folder)})
    assert proc.returncode != 0
    assert "stopped by the test" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()
