"""The wait-state file of an analysis folder: written as Feather, read back (also the
Parquet file of older analyses) through gridscope.analysis.waitstates.read_waitstates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import index_type
from gridscope.analysis.waitstates import read_waitstates, waitstates_file, write_waitstates
from gridscope.errors import GridscopeError


def table() -> pa.Table:
    def labels(codes, names):
        return pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes, np.int8)), pa.array(names))

    return pa.table({
        N.PATTERN: labels([1, 0, 1], ["wait_at_barrier", "late_sender"]),
        N.CLASS: labels([0, 1, 1], ["local", "grid", ""]),
        N.RANK: pa.array(np.asarray([3, 0, 1], np.int32)),
        N.START_S: pa.array([0.5, 1.0, 2.0]), N.END_S: pa.array([1.5, 1.25, 4.0]),
        N.SEVERITY_S: pa.array([1.0, 0.25, 2.0]),
        N.CALLPATH: labels([1, 1, 0], ["main", "main/MPI_Recv"]),
    })


def test_round_trip_keeps_columns_dtypes_and_labels(tmp_path):
    write_waitstates(table(), tmp_path / N.WAITSTATES_FILE)
    frame = read_waitstates(tmp_path)
    assert list(frame.columns) == list(N.WAITSTATE_COLUMNS)
    assert frame[N.RANK].dtype == np.int32 and frame[N.START_S].dtype == np.float64
    assert all(isinstance(frame[c].dtype, pd.CategoricalDtype) for c in (N.PATTERN, N.CLASS, N.CALLPATH))
    assert list(frame[N.PATTERN].astype(str)) == ["late_sender", "wait_at_barrier", "late_sender"]
    assert list(frame[N.CALLPATH].astype(str)) == ["main/MPI_Recv", "main/MPI_Recv", "main"]
    # the same frame as plain pandas reads from the file
    pd.testing.assert_frame_equal(frame, pd.read_feather(tmp_path / N.WAITSTATES_FILE))


def test_columns_subset_and_missing_columns(tmp_path):
    write_waitstates(table().drop_columns([N.CALLPATH]), tmp_path / N.WAITSTATES_FILE)
    assert list(read_waitstates(tmp_path, columns=[N.RANK, N.START_S]).columns) == [N.RANK, N.START_S]
    with pytest.raises(GridscopeError, match="missing columns: callpath"):
        read_waitstates(tmp_path)


def test_older_parquet_file_is_read_and_feather_preferred(tmp_path):
    assert waitstates_file(tmp_path) is None and read_waitstates(tmp_path) is None
    legacy = table().to_pandas()
    legacy.to_parquet(tmp_path / N.LEGACY_WAITSTATES_FILE)
    assert waitstates_file(tmp_path).name == N.LEGACY_WAITSTATES_FILE
    pd.testing.assert_frame_equal(read_waitstates(tmp_path), legacy)
    write_waitstates(table().slice(0, 1), tmp_path / N.WAITSTATES_FILE)
    assert waitstates_file(tmp_path).name == N.WAITSTATES_FILE
    assert len(read_waitstates(tmp_path)) == 1


def test_damaged_file_is_one_clear_error(tmp_path):
    (tmp_path / N.WAITSTATES_FILE).write_bytes(b"ARROW1 but then nothing")
    with pytest.raises(GridscopeError, match=r"waitstates\.feather: cannot read wait states"):
        read_waitstates(tmp_path)


def test_index_type_is_the_narrowest_that_fits():
    assert index_type(3) is np.int8 and index_type(127) is np.int8
    assert index_type(128) is np.int16 and index_type(40000) is np.int32


def test_analysis_writes_feather_and_drops_a_stale_parquet_file(make_trace, tmp_path):
    from gridscope.analysis.driver import AnalyzeOptions, analyze

    out = tmp_path / "out"
    out.mkdir()
    (out / N.LEGACY_WAITSTATES_FILE).write_bytes(b"from an earlier version")
    analyze(AnalyzeOptions(make_trace("late_sender"), out))
    assert sorted(p.name for p in out.iterdir()) == [N.CRITICAL_PATH_FILE, "profile.cubex", "summary.json", N.WAITSTATES_FILE]
    frame = read_waitstates(out)
    assert list(frame.columns) == list(N.WAITSTATE_COLUMNS) and len(frame) == 3
    assert (frame[N.SEVERITY_S] == frame[N.END_S] - frame[N.START_S]).all()


@pytest.mark.parametrize("go_ahead", [True, False])
def test_early_wait_state_file_replaces_the_folders_only_on_go_ahead(tmp_path, go_ahead):
    """The conversion started during the engine's root-cause pass (driver.start_wait_file)
    puts its file in place only once the analysis may go on: an analysis that fails after it
    leaves the folder's earlier wait-state file as it was."""
    from concurrent.futures import Future, ThreadPoolExecutor

    from synthetic_engine import Process, write_engine
    from gridscope.analysis.driver import start_wait_file
    from gridscope.analysis.engine_files import read_wait_head

    out = tmp_path / "analysis"
    scratch = write_engine(out / N.ENGINE_DIR, ["A", "B"], [Process(
        ["main", "main/MPI_Recv"], waits=[("late_sender", "grid", "main/MPI_Recv", 1, 0.5, 0.75)])])
    (scratch / N.WAIT_ROWS_FILE.format(process=0)).write_text('{"wait_rows": [1, 0, 0, 0]}')
    earlier = out / N.WAITSTATES_FILE
    earlier.write_bytes(b"an earlier analysis's file")
    commit: Future = Future()
    with ThreadPoolExecutor(max_workers=1) as pool:
        written = start_wait_file(pool, scratch, read_wait_head(scratch), earlier, commit)
        commit.set_result(go_ahead)
        written.result()
    if go_ahead:
        frame = read_waitstates(out)
        assert list(frame[N.RANK]) == [1] and list(frame[N.SEVERITY_S]) == [0.25]
    else:
        assert earlier.read_bytes() == b"an earlier analysis's file"
