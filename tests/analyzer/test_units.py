"""Unit tests of the Python accounting on hand-made engine output (no engine run)."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from gridscope.analysis.cube_export import cube_severities, metric_roots
from gridscope.analysis.engine_files import EngineOutput
from gridscope.analysis.metric_tree import PATTERNS
from gridscope.analysis.summary import build_summary

RECV = "main/MPI_Recv"


def output() -> EngineOutput:
    sev = pd.DataFrame({
        "metric": ["time", "time", "time", "late_sender", "wrong_order", "visits"],
        "class": ["", "", "", "grid", "local", ""],
        "callpath": ["main", RECV, RECV, RECV, RECV, RECV],
        "rank": [0, 0, 1, 0, 1, 0],
        "value": [2.0, 5.0, 4.0, 3.0, 1.0, 7.0],
    })
    sev["class"] = pd.Categorical(sev["class"], categories=["local", "grid", ""])
    pairs = pd.DataFrame({"from": ["A"], "to": ["B"], "bytes": [10], "messages": [2],
                          "max_rate_Bps": [5.0], "min_transfer_s": [0.5]})
    meta = {"ranks": 2, "events": 9, "clock_violations": 0, "unmatched_sends": 0, "unmatched_receives": 0,
            "incomplete_collectives": 0, "messages": 2, "collectives": 0, "time_correction": {"enabled": False},
            "rank_node": ["n0", "n1"]}
    return EngineOutput(meta, ("main", RECV), frozenset({RECV}), sev, pa.table({"rank": pa.array([], pa.int32())}),
                        pairs)


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


def test_metric_tree_splits_every_pattern():
    names = set()

    def walk(metrics):
        for m in metrics:
            names.add(m.uniq_name)
            walk(m.children)

    walk(metric_roots())
    for p in PATTERNS:
        assert {p, f"{p}_grid", f"{p}_local"} <= names
