"""Unit tests of the Python accounting on hand-made engine output (no engine run)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gridscope.analysis.cube_export import cube_severities, metric_roots
from gridscope.analysis.engine_files import EngineOutput, Pair, Severity, SeverityColumns
from gridscope.analysis.metric_tree import ENGINE_METRICS, PATTERNS
from gridscope.analysis.summary import build_summary
from gridscope.analysis.sums import KahanSum, group_sums

RECV = "main/MPI_Recv"


CALLPATHS = ("main", RECV)


def output(*more: Severity) -> EngineOutput:
    sev = [*more, *(Severity(*row) for row in (
        ("late_sender", "grid", RECV, 0, 3.0), ("time", "", "main", 0, 2.0), ("time", "", RECV, 0, 5.0),
        ("time", "", RECV, 1, 4.0), ("visits", "", RECV, 0, 7.0), ("wrong_order", "local", RECV, 1, 1.0)))]
    pairs = (Pair("A", "B", 10, 2, 5.0, 0.5),)
    meta = {"ranks": 2, "events": 9, "clock_violations": 0, "unmatched_sends": 0, "unmatched_receives": 0,
            "incomplete_collectives": 0, "messages": 2, "collectives": 0, "time_correction": {"enabled": False},
            "thread_locations": 0, "thread_location_events": 0, "unanalysed_locations": 0, "unanalysed_location_events": 0,
            "repaired_regions": {"misnested": 0, "unclosed": 0, "stray_leave": 0, "truncated": 0, "lost": 0}, "repair_warnings": [],
            "rank_node": ["n0", "n1"]}
    return EngineOutput(meta, CALLPATHS, frozenset({RECV}), SeverityColumns.from_rows(sev, CALLPATHS), pairs)


def test_summary_totals_and_exclusive_patterns():
    s = build_summary(output(), "/t/traces.otf2", ["A", "B"])
    assert s["metahosts"] == {"A": 1, "B": 1}
    assert s["total_time_s"] == pytest.approx(11.0)
    assert s["mpi_time_s"] == pytest.approx(9.0)
    assert s["patterns"]["late_sender"] == {"grid": 3.0, "local": 0.0}
    assert s["patterns"]["wrong_order"] == {"grid": 0.0, "local": 1.0}
    assert set(s["patterns"]) == set(PATTERNS)
    assert s["by_metahost"] == [
        {"pattern": "late_sender", "class": "grid", "metahost": "A", "seconds": 3.0},
        {"pattern": "wrong_order", "class": "local", "metahost": "B", "seconds": 1.0}]
    assert s["p2p"] == [{"from": "A", "to": "B", "bytes": 10, "messages": 2, "max_rate_Bps": 5.0,
                         "min_transfer_s": 0.5}]


def test_cube_values_are_exclusive_and_add_up_to_time():
    frame = cube_severities(output())
    v = frame.set_index(["metric", "callpath", "rank"])["value"]
    assert v[("time", "main", 0)] == 2.0
    assert v[("mpi", RECV, 0)] == 2.0          # 5 s in MPI_Recv, 3 s of it Late Sender
    assert v[("mpi", RECV, 1)] == 3.0          # 4 s, 1 s of it Wrong Order
    assert v[("late_sender_grid", RECV, 0)] == 3.0
    assert v[("wrong_order_local", RECV, 1)] == 1.0
    seconds = frame[~frame["metric"].isin(["visits", "bytes_sent", "bytes_received"])]["value"].sum()
    assert seconds == pytest.approx(11.0)


def test_cube_time_adds_call_paths_of_the_same_name():
    """Two engine call paths with one name path (same-named regions) are one Cube call path."""
    frame = cube_severities(output(Severity("time", "", "main", 0, 0.5)))
    main = frame[(frame.callpath == "main") & (frame["rank"] == 0)]
    assert main.value.tolist() == [2.5]


def test_metric_tree_splits_every_pattern():
    names = set()

    def walk(metrics):
        for m in metrics:
            names.add(m.uniq_name)
            walk(m.children)

    walk(metric_roots())
    for p in PATTERNS:
        assert {p, f"{p}_grid", f"{p}_local"} <= names


@pytest.mark.parametrize("groups", [5, 400])  # few long groups (row by row), many short ones (numpy steps)
@pytest.mark.parametrize("order", ["key", "random", "random_nan"])
def test_group_sums_match_pandas_groupby_bit_for_bit(order, groups):
    rng = np.random.default_rng(7)
    values = rng.standard_normal(3000) * 10.0 ** rng.integers(-12, 6, 3000)
    keys = rng.integers(0, groups, 3000)
    if order == "key":  # pandas sums sorted groups with numpy, others with Kahan: both differ in the last bits
        keys.sort()
    if order == "random_nan":
        values[::7] = np.nan
    high, low = keys // 3, keys % 3  # a two-column key that orders as KEYS
    first, ours = group_sums((high, low), values)
    theirs = pd.DataFrame({"k": keys, "v": values}).groupby("k", sort=True)["v"].sum()
    assert keys[first].tolist() == theirs.index.tolist()
    assert ours.tolist() == theirs.tolist()  # exact, not approximate
    reference = {}
    for k, v in zip(keys.tolist(), values.tolist()):
        reference.setdefault(k, KahanSum()).add(v)
    if order != "key":
        assert ours.tolist() == [reference[k].total for k in theirs.index]


def test_severity_columns_sort_by_names_not_codes():
    """Severity order: metric and call path by name (not engine code), class code, rank, value."""
    paths = ("b", "a", "b/x")
    rows = [Severity("time", "", "b", 0, 1.0), Severity("late_sender", "grid", "a", 0, 2.0),
            Severity("time", "", "a", 1, 4.0), Severity("time", "", "a", 1, 3.0),
            Severity("late_sender", "local", "b/x", 0, 5.0)]
    sev = SeverityColumns.from_rows(rows, paths)
    got = [(m, c, paths[p], r, v) for m, c, p, r, v in zip(sev.metric.tolist(), sev.cls.tolist(), sev.callpath.tolist(),
                                                            sev.rank.tolist(), sev.value.tolist())]
    ls, time = ENGINE_METRICS.index("late_sender"), ENGINE_METRICS.index("time")
    assert got == [(ls, 0, "b/x", 0, 5.0), (ls, 1, "a", 0, 2.0), (time, 2, "a", 1, 3.0), (time, 2, "a", 1, 4.0),
                   (time, 2, "b", 0, 1.0)]


def test_kahan_sum_keeps_infinity_and_skips_nan():
    acc = KahanSum()
    for v in (1.0, float("nan"), float("inf"), 2.0):
        acc.add(v)
    assert acc.total == float("inf")


def test_message_pairs_merge_over_processes(tmp_path):
    import json

    from gridscope.analysis.engine_files import PAIR_DTYPE, SEV_DTYPE, read_head
    from gridscope.analysis.engine_output import read_profile

    (tmp_path / "meta.json").write_text(json.dumps({"processes": 2, "metahosts": ["A", "B"]}))
    for p in range(2):
        (tmp_path / f"callpaths.{p}.tsv").write_text("0\t-1\tmain\t0\n")
        np.zeros(0, SEV_DTYPE).tofile(tmp_path / f"severities.{p}.bin")
    # (from, to, bytes, messages, max rate, min duration, ready, large, fastest large's bytes,
    #  ready ticks, smallest small ready transfer, fastest large's seconds); 1 tick per second
    np.array([(0, 1, 100, 2, 5.0, -1.0, 1, 1, 64, 0.5, -1.0, 0.5),
              (1, 0, 7, 1, 1.0, 0.25, 1, 0, 0, 0.25, 0.25, 0.0)], PAIR_DTYPE).tofile(tmp_path / "pairs.0.bin")
    np.array([(0, 1, 50, 1, 9.0, 0.5, 2, 1, 40, 0.75, 0.5, 0.25)], PAIR_DTYPE).tofile(tmp_path / "pairs.1.bin")
    pairs = read_profile(tmp_path, read_head(tmp_path)).pairs
    # sums of counts and seconds, minima of durations, the faster large transfer (40 B in 0.25 s)
    assert pairs == (Pair("A", "B", 150, 3, 9.0, 0.5, 3, 1.25, 0.5, 2, 40, 0.25),
                     Pair("B", "A", 7, 1, 1.0, 0.25, 1, 0.25, 0.25, 0, 0, 0.0))


def write_profile(folder, tables: list[str], severities: list[list[tuple]]) -> None:
    """Engine files of len(TABLES) processes: call-path tables and severity rows (metric, cls, cp, rank, value)."""
    import json

    from gridscope.analysis.engine_files import PAIR_DTYPE, SEV_DTYPE

    (folder / "meta.json").write_text(json.dumps({"processes": len(tables), "metahosts": ["A"]}))
    for p, (table, rows) in enumerate(zip(tables, severities)):
        (folder / f"callpaths.{p}.tsv").write_text(table)
        np.array([(m, c, 0, cp, r, 0, v) for m, c, cp, r, v in rows], SEV_DTYPE).tofile(folder / f"severities.{p}.bin")
        np.zeros(0, PAIR_DTYPE).tofile(folder / f"pairs.{p}.bin")


def profile_rows(folder) -> list[tuple]:
    from gridscope.analysis.engine_files import read_head
    from gridscope.analysis.engine_output import read_profile

    out = read_profile(folder, read_head(folder))
    sev = out.severities
    return list(zip((ENGINE_METRICS[m] for m in sev.metric.tolist()), sev.cls.tolist(),
                    (out.callpaths[c] for c in sev.callpath.tolist()), sev.rank.tolist(), sev.value.tolist()))


def test_profile_rows_are_merged_by_name_in_one_order_for_any_split(tmp_path):
    """Two processes numbering their call paths differently give the rows of one process."""
    time, ls = ENGINE_METRICS.index("time"), ENGINE_METRICS.index("late_sender")
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    write_profile(one, ["0\t-1\tmain\t0\n1\t0\tMPI_Recv\t1\n"],
                  [[(time, 2, 1, 1, 4.0), (ls, 1, 1, 0, 3.0), (time, 2, 0, 0, 2.0), (time, 2, 1, 0, 5.0)]])
    write_profile(two, ["0\t-1\tmain\t0\n1\t0\tMPI_Recv\t1\n", "0\t-1\tmain\t0\n1\t0\tcompute\t0\n2\t0\tMPI_Recv\t1\n"],
                  [[(time, 2, 1, 0, 5.0), (ls, 1, 1, 0, 3.0)], [(time, 2, 2, 1, 4.0), (time, 2, 0, 0, 2.0)]])
    want = [("late_sender", 1, RECV, 0, 3.0), ("time", 2, "main", 0, 2.0), ("time", 2, RECV, 0, 5.0),
            ("time", 2, RECV, 1, 4.0)]
    assert profile_rows(one) == want
    assert profile_rows(two) == want


@pytest.mark.parametrize("bad_row", [(0, 2, 9, 0, 1.0), (99, 2, 0, 0, 1.0), (0, 7, 0, 0, 1.0)],
                         ids=["call_path", "metric", "class"])
def test_unknown_code_in_severities_is_one_clear_error(tmp_path, bad_row):
    from gridscope.errors import GridscopeError

    write_profile(tmp_path, ["0\t-1\tmain\t0\n"], [[(0, 2, 0, 0, 1.0), bad_row]])
    with pytest.raises(GridscopeError, match=r"severities\.0\.bin: engine output refers to an unknown call path"):
        profile_rows(tmp_path)


def test_group_sums_of_no_rows_and_one_row():
    first, sums = group_sums((np.zeros(0, np.int32),), np.zeros(0))
    assert first.tolist() == [] and sums.tolist() == []
    first, sums = group_sums((np.array([3]),), np.array([-0.0]))
    assert first.tolist() == [0] and str(sums[0]) == "-0.0"
