"""The viewer's wait-state columns: read from the Arrow file as codes, sorted, cached."""

import numpy as np
import pyarrow as pa

from gridscope.analysis.waitstates import write_waitstates
from gridscope.viewer.waitstates import WaitStates, load_waitstates


def table():
    # out of start order, labels in dictionaries whose order is not the sorted one, one
    # dictionary entry ("unused") that no row has
    pattern = pa.DictionaryArray.from_arrays(pa.array([2, 0, 2], pa.int8()), ["wait_nxn", "unused", "late_sender"])
    klass = pa.DictionaryArray.from_arrays(pa.array([1, 0, 0], pa.int8()), ["local", "grid"])
    callpath = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int8()), ["main/MPI_Recv", "main/MPI_Allreduce"])
    return pa.table({"pattern": pattern, "class": klass, "rank": pa.array([3, 1, 0], pa.int32()),
                     "start_s": [2e-6, 1e-6, 3e-6], "end_s": [5e-6, 1.5e-6, 3.25e-6],
                     "severity_s": [3e-6, 0.5e-6, 0.25e-6], "callpath": callpath})


def check(w: WaitStates):
    assert w.patterns == ["late_sender", "wait_nxn"]
    assert w.classes == ["grid", "local"]
    assert w.start_ns.tolist() == [1000, 2000, 3000]
    assert w.end_ns.tolist() == [1500, 5000, 3250]
    assert [w.patterns[p] for p in w.pattern] == ["wait_nxn", "late_sender", "late_sender"]
    assert [w.classes[k] for k in w.klass] == ["local", "grid", "local"]
    assert w.rank.tolist() == [1, 3, 0]
    assert w.severity_s.tolist() == [0.5e-6, 3e-6, 0.25e-6]
    assert [w.callpath[i] for i in range(3)] == ["main/MPI_Allreduce", "main/MPI_Recv", "main/MPI_Recv"]
    assert w.max_duration_ns == 3000


def test_from_table_sorts_by_start_and_keeps_labels_as_sorted_codes():
    check(WaitStates.from_table(table()))


def test_plain_string_columns_read_the_same():
    t = table()
    for name in ("pattern", "class", "callpath"):
        t = t.set_column(t.column_names.index(name), name, t.column(name).cast(pa.string()))
    check(WaitStates.from_table(t))


def test_cached_columns_are_memory_mapped_the_second_time(tmp_path):
    write_waitstates(table(), tmp_path / "waitstates.feather")
    check(load_waitstates(tmp_path))
    cached = list((tmp_path / ".gridscope-cache").glob("waits-*"))
    assert len(cached) == 1
    again = load_waitstates(tmp_path)
    assert isinstance(again.start_ns, np.memmap)
    check(again)


def test_empty_file(tmp_path):
    write_waitstates(table().slice(0, 0), tmp_path / "waitstates.feather")
    w = load_waitstates(tmp_path)
    assert len(w) == 0 and w.patterns == [] and w.max_duration_ns == 0


def test_background_load_hands_back_value_and_error(tmp_path):
    import pytest

    from gridscope.errors import GridscopeError
    from gridscope.viewer.run import RunFolder
    from gridscope.viewer.server import _in_background

    assert _in_background(lambda: 42)() == 42
    (tmp_path / "summary.json").write_text("{}")
    (tmp_path / "waitstates.feather").write_bytes(b"garbage")
    run = RunFolder(tmp_path)
    done = _in_background(lambda: run.waitstates)
    with pytest.raises(GridscopeError, match="waitstates.feather: cannot read wait states"):
        done()


def test_sort_by_start_is_the_float_sort_even_below_a_nanosecond():
    """The start order comes from the faster integer sort of the rounded ns, unless two
    starts less than 1 ns apart are out of order in the file: then the seconds decide."""
    from gridscope.viewer.waitstates import _stable_order

    starts = np.array([3e-9, 1.0000000004, 1.0000000001, 2e-9, 1.0000000001])
    ns = np.rint(starts * 1e9).astype(np.int64)
    assert ns[1] == ns[2]  # the same ns, the other order in seconds
    assert _stable_order(starts, ns).tolist() == np.argsort(starts, kind="stable").tolist()
    whole = np.array([5e-9, 1e-9, 3e-9, 1e-9])
    assert _stable_order(whole, np.rint(whole * 1e9).astype(np.int64)).tolist() == [1, 3, 2, 0]
