"""Unit tests of the Python accounting on hand-made engine output (no engine run)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gridscope.analysis.cube_export import cube_severities, metric_roots
from gridscope.analysis.engine_files import EngineOutput, Pair, Severity, severity_order
from gridscope.analysis.metric_tree import PATTERNS
from gridscope.analysis.summary import KahanSum, build_summary, group_sums

RECV = "main/MPI_Recv"


def output() -> EngineOutput:
    sev = [Severity(*row) for row in (
        ("late_sender", "grid", RECV, 0, 3.0), ("time", "", "main", 0, 2.0), ("time", "", RECV, 0, 5.0),
        ("time", "", RECV, 1, 4.0), ("visits", "", RECV, 0, 7.0), ("wrong_order", "local", RECV, 1, 1.0))]
    pairs = (Pair("A", "B", 10, 2, 5.0, 0.5),)
    meta = {"ranks": 2, "events": 9, "clock_violations": 0, "unmatched_sends": 0, "unmatched_receives": 0,
            "incomplete_collectives": 0, "messages": 2, "collectives": 0, "time_correction": {"enabled": False},
            "unanalysed_locations": 0, "unanalysed_location_events": 0,
            "repaired_regions": {"misnested": 0, "unclosed": 0, "stray_leave": 0}, "repair_warnings": [],
            "rank_node": ["n0", "n1"]}
    return EngineOutput(meta, ("main", RECV), frozenset({RECV}), tuple(sorted(sev, key=severity_order)), pairs)


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
    out = output()
    sev = tuple(sorted(out.severities + (Severity("time", "", "main", 0, 0.5),), key=severity_order))
    frame = cube_severities(EngineOutput(out.meta, out.callpaths, out.mpi_callpaths, sev, out.pairs))
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


@pytest.mark.parametrize("in_key_order", [False, True])
def test_group_sums_match_pandas_groupby_bit_for_bit(in_key_order):
    rng = np.random.default_rng(7)
    values = (rng.standard_normal(3000) * 10.0 ** rng.integers(-12, 6, 3000)).tolist()
    keys = rng.integers(0, 5, 3000).tolist()
    if in_key_order:  # pandas sums sorted groups with numpy, others with Kahan: both differ in the last bits
        keys.sort()
    rows = [Severity("m", "", "c", k, v) for k, v in zip(keys, values)]
    ours = group_sums(rows, lambda r: r.rank)
    theirs = pd.DataFrame({"k": keys, "v": values}).groupby("k", sort=True)["v"].sum()
    assert [ours[k] for k in theirs.index] == theirs.tolist()  # exact, not approximate


def test_kahan_sum_keeps_infinity_and_skips_nan():
    acc = KahanSum()
    for v in (1.0, float("nan"), float("inf"), 2.0):
        acc.add(v)
    assert acc.total == float("inf")


def test_message_pairs_merge_over_processes(tmp_path):
    import json

    from gridscope.analysis.engine_files import PAIR_DTYPE, SEV_DTYPE, read_head, read_profile

    (tmp_path / "meta.json").write_text(json.dumps({"processes": 2, "metahosts": ["A", "B"]}))
    for p in range(2):
        (tmp_path / f"callpaths.{p}.tsv").write_text("0\t-1\tmain\t0\n")
        np.zeros(0, SEV_DTYPE).tofile(tmp_path / f"severities.{p}.bin")
    np.array([(0, 1, 100, 2, 5.0, -1.0), (1, 0, 7, 1, 1.0, 0.25)], PAIR_DTYPE).tofile(tmp_path / "pairs.0.bin")
    np.array([(0, 1, 50, 1, 9.0, 0.5)], PAIR_DTYPE).tofile(tmp_path / "pairs.1.bin")
    pairs = read_profile(tmp_path, read_head(tmp_path)).pairs
    assert pairs == (Pair("A", "B", 150, 3, 9.0, 0.5), Pair("B", "A", 7, 1, 1.0, 0.25))
