"""The report's numbers: Table 5 across cycles, grid/local figures, matrices, findings."""

from __future__ import annotations

import pytest

from cube_samples import experiment, summary
from gridscope.report.figures import (falling, inclusive_patterns, p2p_matrices, pattern_rows,
                                      run_figures, table5, top_callpaths)
from gridscope.report.narrative import cycle_findings, run_findings
from gridscope.report.pattern_info import info


def test_run_figures_split_grid_and_local():
    s = summary(experiment(scale=1.0))
    fig = run_figures("c0", s)
    # per rank: late_sender 0.75 grid, wrong_order 0.125 local, nxn 0.5 local,
    # barrier 2.0 grid on ranks 0-1
    assert fig.grid_wait_s == pytest.approx(4 * 0.75 + 2 * 2.0)
    assert fig.local_wait_s == pytest.approx(4 * (0.125 + 0.5))
    assert fig.wait_pct == pytest.approx(100 * fig.wait_s / s["total_time_s"])
    assert fig.metahosts == {"jsc": 2, "brs": 2}


def test_late_sender_includes_wrong_order_in_table5():
    patterns = {"late_sender": {"grid": 3.0, "local": 0.0},
                "wrong_order": {"grid": 0.0, "local": 0.5}}
    assert inclusive_patterns(patterns)["late_sender"] == {"grid": 3.0, "local": 0.5}
    assert patterns["late_sender"] == {"grid": 3.0, "local": 0.0}  # input untouched


def test_table5_values_and_trend():
    runs = [(f"c{i}", summary(experiment(scale=s))) for i, s in enumerate((1.0, 0.5, 0.25))]
    table = table5(runs)
    rows = {r["key"]: r for r in table}
    total0 = runs[0][1]["total_time_s"]
    assert rows["late_sender"]["values"][0] == pytest.approx(100 * 4 * 0.875 / total0)
    assert rows["wait_at_barrier"]["values"][0] == pytest.approx(100 * 4.0 / total0)
    assert all(falling(rows[k]["values"]) for k in ("mpi", "wait_at_barrier", "late_sender",
                                                    "wait_at_nxn"))
    findings = cycle_findings([n for n, _ in runs], table)
    assert findings[0]["title"].startswith(f"Time between MPI_Init and MPI_Finalize {total0:.2f} s")
    assert "Falling in every cycle" in findings[1]["title"]


def test_falling_needs_a_strict_decrease():
    assert falling([3.0, 2.0, 1.0])
    assert not falling([3.0, 3.0, 1.0])
    assert not falling([1.0])
    assert falling([3.0, None, 1.0])


def test_p2p_matrices_follow_metahost_order():
    s = summary(experiment())
    m = p2p_matrices(s)
    assert m["names"] == ["jsc", "brs"]
    assert m["bytes"][0][1] == 500_000 * 4 and m["bytes"][0][0] == 4_000_000 * 4
    assert m["min_transfer"][1][0] == pytest.approx(8.6e-4)
    assert p2p_matrices({"p2p": []}) is None


def test_top_callpaths_and_findings_carry_diagnosis():
    s = summary(experiment())
    top = top_callpaths(s)
    assert top[0]["callpath"] == "main/ReadFieldsFromTrace/MPI_Barrier"
    rows = pattern_rows(s)
    assert [r["pattern"] for r in rows][:2] == ["wait_at_barrier", "late_sender"]
    findings = run_findings(run_figures("c0", s), s)
    assert "Wait at Barrier (grid) in main/ReadFieldsFromTrace/MPI_Barrier" in findings[1]["title"]
    assert findings[1]["hint"] == info("wait_at_barrier").diagnosis


def test_pattern_info_falls_back_without_declarations(monkeypatch):
    from gridscope.report import pattern_info

    monkeypatch.setattr(pattern_info, "pattern_table", lambda: {})
    assert pattern_info.info("wait_at_nxn").display == "Wait at N×N"
    assert pattern_info.info("late_sender").diagnosis == ""


def test_diff_findings_name_largest_gain_and_loss():
    from gridscope.report.narrative import diff_findings

    rows = [{"display": "Late Sender", "class": "local", "callpath": "main/cgiteration/MPI_Recv",
             "seconds": -4.5, "percent_of_base": -5.0},
            {"display": "Wait at Barrier", "class": "grid", "callpath": "main/x/MPI_Barrier",
             "seconds": 1.25, "percent_of_base": 1.5}]
    found = diff_findings([{"title": "c0 → c1", "rows": rows}])
    assert found[0]["title"] == "c0 → c1"
    assert "largest gain: Late Sender (local) in main/cgiteration/MPI_Recv -4.500 s (-5.0 %" \
        in found[0]["text"]
    assert "largest loss: Wait at Barrier (grid)" in found[0]["text"]
    assert diff_findings([{"title": "none", "rows": []}]) == []


def test_waiting_matrix_spreads_each_wait_over_its_bins():
    import numpy as np

    from gridscope.report.timeline import waiting_matrix

    # rank 0 waits 1.5 s from t=0.5 (bins of 1 s over [0, 4]); rank 1 waits 0.25 s at t=3.
    m = waiting_matrix(np.array([0, 1]), np.array([0.5, 3.0]), np.array([1.5, 0.25]),
                       n_ranks=2, t0=0.0, t1=4.0, bins=4)
    np.testing.assert_allclose(m, [[0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.25]])
    assert m.sum() == pytest.approx(1.75)


@pytest.mark.parametrize("name", ["waitstates.feather", "waitstates.parquet"])  # parquet: older analyses
def test_timeline_needs_the_waitstate_file(tmp_path, name):
    import pandas as pd

    from gridscope.report.timeline import load_matrix

    assert load_matrix(tmp_path, [0, 1]) is None
    frame = pd.DataFrame({"pattern": ["late_sender"], "class": ["grid"], "rank": [1],
                          "start_s": [1.0], "end_s": [2.0], "severity_s": [0.5],
                          "callpath": ["main/MPI_Recv"]})
    frame.to_feather(tmp_path / name) if name.endswith(".feather") else frame.to_parquet(tmp_path / name)
    data = load_matrix(tmp_path, [0, 1])
    assert data["matrix"][0].sum() == 0 and data["matrix"][1].sum() == pytest.approx(0.5)
    (tmp_path / name).write_bytes(b"not a table")
    assert load_matrix(tmp_path, [0, 1]) is None  # optional file: damaged means left out


def test_compare_result_rows_sorted_and_waitstates_optional(tmp_path):
    import json

    from gridscope.report.compare_data import load_compare

    rows = [{"op": "bcast", "bytes": 1024, "placement": "round-robin", "vanilla_s": 2.0,
             "topo_s": 1.0, "auto_s": None, "bound_s": 0.5},
            {"op": "bcast", "bytes": 8, "placement": "block", "vanilla_s": 1.0,
             "topo_s": 1.0, "auto_s": 1.0, "bound_s": 0.5},
            {"op": "bcast", "bytes": 1024, "placement": "block", "vanilla_s": 3.0,
             "topo_s": 1.5, "auto_s": 1.2, "bound_s": 0.5}]
    (tmp_path / "compare.json").write_text(json.dumps({"platform": "p", "rows": rows}))
    (tmp_path / "waitstates.json").write_text("[broken")
    data = load_compare(tmp_path)
    assert [(r["bytes"], r["placement"]) for r in data["rows"]] == [
        (8, "block"), (1024, "round-robin"), (1024, "block")]
    assert [r["speedup"] for r in data["rows"]] == [1.0, 2.0, 2.5]
    assert data["waitstates"] == {}
