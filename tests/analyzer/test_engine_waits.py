"""Reading the engine's wait-state columns in canonical order and batch by batch
(engine_waits), on hand-made engine output of two processes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import read_head
from gridscope.analysis.engine_waits import WAIT_COLUMNS, Segment, WaitBatches, batch_plan, wait_column_files
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.analysis.waitstates import read_waitstates, write_waitstate_batches
from gridscope.errors import GridscopeError

LOCAL, GRID = 0, 1
# Process 0 owns ranks 0 and 1, process 1 rank 2. Each process's rows, phase by phase
# (receiver side, Late Receiver, collectives): (start, end, engine call-path id, rank, metric, class).
ROWS = {
    0: [[(1.0, 1.5, 1, 0, "late_sender", GRID), (2.0, 2.25, 1, 1, "late_sender", LOCAL)],
        [],
        [(3.0, 3.5, 2, 0, "wait_at_barrier", LOCAL)],
        []],
    1: [[],
        [(0.5, 0.75, 2, 2, "late_receiver", LOCAL)],
        [(3.0, 3.25, 1, 2, "wait_at_barrier", LOCAL)],
        []],
}
# call-path ids differ between the processes: 1 is MPI_Recv on process 0, MPI_Barrier on process 1
CALLPATHS = {0: ["main", "MPI_Recv", "MPI_Barrier"], 1: ["main", "MPI_Barrier", "MPI_Send"]}
# phase 0 of process 0 then 1, phase 1 of process 0 then 1, ... (docs/analyzer.md)
EXPECTED = pd.DataFrame({
    N.PATTERN: ["late_sender", "late_sender", "late_receiver", "wait_at_barrier", "wait_at_barrier"],
    N.CLASS: ["grid", "local", "local", "local", "local"],
    N.RANK: np.asarray([0, 1, 2, 0, 2], np.int32),
    N.START_S: [1.0, 2.0, 0.5, 3.0, 3.0], N.END_S: [1.5, 2.25, 0.75, 3.5, 3.25],
    N.SEVERITY_S: [0.5, 0.25, 0.25, 0.5, 0.25],
    N.CALLPATH: ["main/MPI_Recv", "main/MPI_Recv", "main/MPI_Send", "main/MPI_Barrier", "main/MPI_Barrier"],
})


def write_engine_output(folder):
    stats = []
    for p, phases in ROWS.items():
        rows = [row for phase in phases for row in phase]
        stats.append({"wait_rows": [len(phase) for phase in phases]})
        (folder / f"callpaths.{p}.tsv").write_text(
            "".join(f"{i}\t{-1 if i == 0 else 0}\t{name}\t{int(i > 0)}\n" for i, name in enumerate(CALLPATHS[p])))
        columns = list(zip(*rows))
        columns[4] = [ENGINE_METRICS.index(m) for m in columns[4]]
        for (_, dtype), path, values in zip(WAIT_COLUMNS, wait_column_files(folder / f"waits.{p}"), columns):
            np.asarray(values, dtype).tofile(path)
    (folder / "meta.json").write_text(json.dumps({"processes": len(ROWS), "process_stats": stats}))
    return read_head(folder)


def frame(batches) -> pd.DataFrame:
    return pa.Table.from_batches(batches).to_pandas().astype({c: str for c in (N.PATTERN, N.CLASS, N.CALLPATH)})


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 5, 100])
def test_canonical_order_in_batches_of_any_size(tmp_path, batch_rows):
    head = write_engine_output(tmp_path)
    batches = list(WaitBatches(tmp_path, head, batch_rows))
    assert [b.num_rows for b in batches] == [min(batch_rows, 5 - i) for i in range(0, 5, batch_rows)]
    pd.testing.assert_frame_equal(frame(batches), EXPECTED)


def test_multi_batch_file_reads_back(tmp_path):
    head = write_engine_output(tmp_path)
    waits = WaitBatches(tmp_path, head, 2)  # batches of rows 0-1, 2-3 (across processes), 4
    write_waitstate_batches(waits.schema, waits, tmp_path / N.WAITSTATES_FILE)
    with pa.memory_map(str(tmp_path / N.WAITSTATES_FILE)) as source:
        reader = pa.ipc.open_file(source)
        assert [reader.get_batch(i).num_rows for i in range(reader.num_record_batches)] == [2, 2, 1]
    got = read_waitstates(tmp_path)
    assert list(got.columns) == list(N.WAITSTATE_COLUMNS)
    assert all(isinstance(got[c].dtype, pd.CategoricalDtype) for c in (N.PATTERN, N.CLASS, N.CALLPATH))
    pd.testing.assert_frame_equal(got.astype({c: str for c in (N.PATTERN, N.CLASS, N.CALLPATH)}), EXPECTED)
    pd.testing.assert_frame_equal(got, pd.read_feather(tmp_path / N.WAITSTATES_FILE))
    assert not list(tmp_path.glob(f".{N.WAITSTATES_FILE}*"))  # no temporary file left


def test_no_wait_states_is_a_file_without_rows(tmp_path):
    head = write_engine_output(tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text())
    meta["process_stats"] = [{"wait_rows": [0, 0, 0, 0]}] * 2
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    for p in ROWS:
        for path in wait_column_files(tmp_path / f"waits.{p}"):
            path.write_bytes(b"")
    waits = WaitBatches(tmp_path, read_head(tmp_path))
    write_waitstate_batches(waits.schema, waits, tmp_path / N.WAITSTATES_FILE)
    got = read_waitstates(tmp_path)
    assert len(got) == 0 and list(got.columns) == list(N.WAITSTATE_COLUMNS)


def test_batch_plan_cuts_at_fixed_rows_and_joins_adjacent_rows():
    segments = [Segment(0, 0, 5), Segment(1, 0, 3), Segment(0, 5, 4)]
    assert batch_plan(segments, 4) == [[Segment(0, 0, 4)], [Segment(0, 4, 1), Segment(1, 0, 3)], [Segment(0, 5, 4)]]
    # one process: its phases follow each other in its files, one piece per batch
    assert batch_plan([Segment(0, 0, 2), Segment(0, 2, 3)], 10) == [[Segment(0, 0, 5)]]
    assert batch_plan([], 10) == []


def test_truncated_column_file_is_one_clear_error(tmp_path):
    head = write_engine_output(tmp_path)
    path = wait_column_files(tmp_path / "waits.1")[0]
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(GridscopeError, match=r"waits\.1\.start\.bin: truncated engine output"):
        WaitBatches(tmp_path, head)


def test_unknown_call_path_is_one_clear_error(tmp_path):
    head = write_engine_output(tmp_path)
    cp = wait_column_files(tmp_path / "waits.0")[2]
    np.asarray([1, 1, 7], "<u4").tofile(cp)
    with pytest.raises(GridscopeError, match="unknown call path"):
        list(WaitBatches(tmp_path, head))


def test_engine_output_without_row_counts_is_one_clear_error(tmp_path):
    head = write_engine_output(tmp_path)
    del head.meta["process_stats"][1]["wait_rows"]
    with pytest.raises(GridscopeError, match=r"meta\.json: engine output lacks the wait-state row counts"):
        WaitBatches(tmp_path, head)
