"""`gridscope diff` of two analyses with root causes: the delay costs and the critical path
are differenced like any metric (Cube algebra) and shown in summary.json, diff.json and the
terminal. BASE: rank 2 (FH-BRS) works 6 s, ranks 0 and 1 (FZJ) 4 s and 5 s, so they wait 2 s
and 1 s at the barrier; NEW: rank 2 works 5 s, FZJ waits 1 s."""

from __future__ import annotations

import json

import pytest

from gstest import run_gridscope
from synthetic_engine import Process, analysis_folder

MAIN, WORK, BARRIER = "main", "main/work", "main/MPI_Barrier"
HOSTS = ["FZJ", "FZJ", "FH-BRS"]


def run(work2: float) -> Process:
    waits = (work2 - 4.0, max(work2 - 5.0, 0.0))
    rows = [("time", "", WORK, 0, 4.0), ("time", "", WORK, 1, 5.0), ("time", "", WORK, 2, work2),
            ("time", "", BARRIER, 0, waits[0] + 0.5), ("time", "", BARRIER, 1, waits[1] + 0.5),
            ("time", "", BARRIER, 2, 0.5),
            ("delay_barrier_short", "grid", WORK, 2, sum(waits)),
            ("critical_path", "", WORK, 2, work2), ("critical_path", "", BARRIER, 2, 0.5)]
    rows += [("wait_at_barrier", "grid", BARRIER, r, w) for r, w in enumerate(waits) if w]
    causes = [("wait_at_barrier", "grid", "computation", WORK, 2, "FZJ", sum(waits), 0.0),
              ("wait_at_barrier", "grid", "wan", BARRIER, 2, "FZJ", 0.5, 0.0)]
    return Process([MAIN, WORK, BARRIER], rows, causes)


@pytest.fixture
def runs(tmp_path):
    trace = tmp_path / "traces.otf2"
    trace.write_text("")
    analysis_folder(tmp_path / "base", str(trace), HOSTS, [run(6.0)])
    analysis_folder(tmp_path / "new", str(trace), HOSTS, [run(5.0)])
    return tmp_path


def test_diff_shows_the_change_of_the_delay_costs(runs):
    proc = run_gridscope("diff", runs / "base", runs / "new", "-o", runs / "d")
    text = proc.stdout
    assert "Root causes: changes of the delay costs" in text
    line = next(line for line in text.splitlines() if "computation" in line and "main/work" in line)
    assert line.replace("│", " ").split()[-5:] == ["-2.000", "-2.000", "+0.000", "-10.3", "%"]  # of BASE's 19.5 s
    assert "Critical path: changes" in text
    result = json.loads((runs / "d" / "diff.json").read_text())
    top = result["root_causes"][0]
    assert (top["callpath"], top["metahost"], top["kind"], top["total_s"], top["base_total_s"], top["new_total_s"]) \
        == (WORK, "FH-BRS", "computation", -2.0, 3.0, 1.0)
    assert len(result["root_causes"]) == 1  # the WAN cause did not change
    assert result["cause_pairs"] == [{"cause": "FH-BRS", "waiting": "FZJ", "short_term_s": -2.0, "long_term_s": 0.0,
                                      "base_short_term_s": 3.5, "new_short_term_s": 1.5, "base_long_term_s": 0.0,
                                      "new_long_term_s": 0.0, "percent_of_base": pytest.approx(-200 / 19.5)}]
    assert result["critical_path"][0]["seconds"] == -1.0
    # cube_changes lists the time tree only: every second once
    assert {c["metric"] for c in result["cube_changes"]} <= {"time", "mpi", "wait_at_barrier_grid"}
    summary = json.loads((runs / "d" / "summary.json").read_text())
    assert summary["root_causes"] == result["root_causes"]
    assert summary["wait_classes"]["direct"] == {"grid": 0.0, "local": 0.0}


def test_diff_cube_holds_the_delay_and_path_differences(runs):
    from gridscope.cube import read_cubex

    run_gridscope("diff", runs / "base", runs / "new", "-o", runs / "d")
    sev = read_cubex(runs / "d" / "diff.cubex").severities
    got = {(m, c, int(r)): v for m, c, r, v in zip(sev.metric, sev.callpath, sev["rank"], sev.value)}
    assert got[("delay_barrier_short_grid", WORK, 2)] == -2.0
    # imbalance of work: base 6 - 5 = 1, new 5 - 14/3 = 1/3 (the node keeps the rest of the profile)
    assert got[("critical_path_imbalance", WORK, 2)] == pytest.approx(1 / 3 - 1)
    assert got[("critical_path", WORK, 2)] == pytest.approx((5 - 1 / 3) - 5)


def test_summary_diff_against_a_run_from_before_root_causes():
    """A BASE without the keys counts as no causes: every NEW row is a change, enabled is false."""
    from gridscope.diff.summary import diff_root_causes

    new = {"root_cause_analysis": {"enabled": True},
           "root_causes": [{"callpath": "c", "metahost": "M", "kind": "wan", "pattern": "late_sender",
                            "class": "grid", "short_term_s": 1.0, "long_term_s": 0.5, "total_s": 1.5}],
           "wait_classes": {"direct": {"grid": 1.0, "local": 0.0}}}
    out = diff_root_causes({}, new, base_total=10.0)
    assert out["root_cause_analysis"] == {"enabled": False}
    [row] = out["root_causes"]
    assert (row["total_s"], row["base_total_s"], row["percent_of_base"]) == (1.5, 0.0, 15.0)
    assert out["wait_classes"]["direct"] == {"grid": 1.0, "local": 0.0}
    assert out["wait_classes"]["terminal"] == {"grid": 0.0, "local": 0.0}
    assert out["critical_path"] == [] and out["cause_pairs"] == []
