"""The root-cause outputs of a real `gridscope analyze` (engine and Python side) on
specs/barrier.spec, values derived by hand (ticks = us):

- rank 0 (A) enters the world barrier at 10, rank 1 (A) at 20, rank 2 (B) at 40: ranks 0 and
  1 wait 30 + 20 us (grid), caused by rank 2's 40 us of `main` against their 10 and 20 us.
  Rank 0 waits 5 us in the local barrier of ranks 0 and 1. Both computed 20 us since the
  world barrier, but as in scout the interval keeps each barrier call's completion time
  (own exit - earliest exit 50): rank 1's 5 us in the world MPI_Barrier against rank 0's 0,
  so the cause is 5 us of MPI_Barrier on A (communication, local; scale 5/5).
- critical path, backward from rank 0's end (all end at 100, lowest rank): rank 0's
  `main` 80..100 and barrier 75..80, rank 1's `main` 55..75 and world barrier 40..55, rank
  2's `main` 0..40. So `main` 40 us on A and 40 on B, MPI_Barrier 20 us on A.
- time without waits: `main` 50, 58, 80 us; MPI_Barrier 15, 22, 20 us (Barrier Completion
  stays). Imbalance of `main`: 80 - 188/3 us, half on A, half on B; of MPI_Barrier 20 - 19.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from gstest import run_gridscope

US = 1e-6


@pytest.fixture(scope="module")
def barrier_runs(make_trace, tmp_path_factory):
    trace = make_trace("barrier")
    out = tmp_path_factory.mktemp("rc")
    for jobs in (1, 3):
        run_gridscope("analyze", trace, "-o", out / f"j{jobs}", "-j", jobs, "-q")
    run_gridscope("analyze", trace, "-o", out / "off", "--no-root-causes", "-q")
    run_gridscope("analyze", trace, "-o", out / "gridscope", "--rules", "gridscope", "-q")
    return out


def summary(folder) -> dict:
    return json.loads((folder / "summary.json").read_text())


def test_summary_names_the_cause_and_the_path(barrier_runs):
    s = summary(barrier_runs / "j1")
    assert s["root_cause_analysis"]["enabled"] is True
    [cause, barrier] = s["root_causes"]
    assert {k: cause[k] for k in ("callpath", "metahost", "kind", "pattern", "class", "long_term_s")} == {
        "callpath": "main", "metahost": "B", "kind": "computation", "pattern": "wait_at_barrier", "class": "grid",
        "long_term_s": 0.0}
    assert cause["short_term_s"] == pytest.approx(50 * US) and cause["waiting_s"] == {"A": pytest.approx(50 * US)}
    assert {k: barrier[k] for k in ("callpath", "metahost", "kind", "pattern", "class", "long_term_s")} == {
        "callpath": "main/MPI_Barrier", "metahost": "A", "kind": "communication", "pattern": "wait_at_barrier",
        "class": "local", "long_term_s": 0.0}
    assert barrier["short_term_s"] == pytest.approx(5 * US) and barrier["waiting_s"] == {"A": pytest.approx(5 * US)}
    assert s["cause_pairs"] == [{"cause": "A", "waiting": "A", "short_term_s": pytest.approx(5 * US),
                                 "long_term_s": 0.0},
                                {"cause": "B", "waiting": "A", "short_term_s": pytest.approx(50 * US),
                                 "long_term_s": 0.0}]
    assert s["wait_classes"]["direct"] == {"grid": pytest.approx(50 * US), "local": pytest.approx(5 * US)}
    assert s["wait_classes"]["terminal"] == {"grid": pytest.approx(50 * US), "local": pytest.approx(5 * US)}
    got = [(r["callpath"], r["metahost"], r["seconds"], r["imbalance_s"]) for r in s["critical_path"]]
    imbalance = (80 - 188 / 3) * US
    assert got == [("main", "A", pytest.approx(40 * US), pytest.approx(imbalance / 2)),
                   ("main", "B", pytest.approx(40 * US), pytest.approx(imbalance / 2)),
                   ("main/MPI_Barrier", "A", pytest.approx(20 * US), pytest.approx(1 * US))]


def test_terminal_why_in_microseconds(make_trace, tmp_path):
    proc = run_gridscope("analyze", make_trace("barrier"), "-o", tmp_path / "out")
    assert "50.0 µs of the waiting at A caused by computation in main on B" in " ".join(proc.stdout.split())


def test_timeline_stretches_and_links(barrier_runs):
    from gridscope.analysis.critical_path_pieces import links, read_critical_path

    path = read_critical_path(barrier_runs / "j1")
    assert path["rank"].tolist() == [2, 1, 0]
    assert path["start_s"].tolist() == pytest.approx([0.0, 40 * US, 75 * US])
    assert path["end_s"].tolist() == pytest.approx([40 * US, 75 * US, 100 * US])
    assert links(path)["cause_rank"].tolist() == [2, 1]


@pytest.mark.parametrize("rules", ["scalasca", "gridscope"])
def test_cube_derived_metrics(barrier_runs, rules):
    """W(r) = 100 - (65, 80, 100) = (35, 20, 0) us on the excess of main (30, 22, 0) and of the
    barrier (5, 0, 0): main 30 + 22 * 20/22 = 50 us, barrier 5 us; charged by the ranks' shares
    of the path (gridscope's rules). Rank 2's excess is 0: scout's factor is then 0/0, and the
    NaN charges nothing anywhere (Scalasca's rules, the default; docs/root-causes.md)."""
    import gridscope

    sev = gridscope.load(barrier_runs / ("j1" if rules == "scalasca" else "gridscope")).severities
    v = {(m, c, int(r)): x / US for m, c, r, x in zip(sev.metric, sev.callpath, sev["rank"], sev.value)}
    imbalance_impact = {("critical_imbalance_impact", "main", 0): 12.5, ("critical_imbalance_impact", "main", 1): 12.5,
                        ("critical_imbalance_impact", "main", 2): 25.0,
                        ("critical_imbalance_impact", "main/MPI_Barrier", 0): 1.25,
                        ("critical_imbalance_impact", "main/MPI_Barrier", 1): 3.75}
    expected = {("critical_path_activities", "main", 1): 58.0, ("critical_path_activities", "main/MPI_Barrier", 1): 20.0,
                ("non_critical_path_activities", "main/MPI_Barrier", 1): 2.0,
                ("delay_barrier_short_grid", "main", 2): 50.0}
    if rules == "gridscope":
        expected.update(imbalance_impact)
    else:
        assert not any(m == "critical_imbalance_impact" for m, _, _ in v)
    for key, value in expected.items():
        assert v[key] == pytest.approx(value), key
    impact = sum(x for (m, _, _), x in v.items()
                 if m in ("critical_path_activities", "critical_imbalance_impact", "non_critical_path_activities"))
    assert impact == pytest.approx(3 * 100 - (0 if rules == "gridscope" else sum(imbalance_impact.values())))
    # profile = node + its imbalance child
    assert v[("critical_path", "main", 2)] + v[("critical_path_imbalance", "main", 2)] == pytest.approx(40)


def test_any_j_gives_the_same_root_cause_outputs(barrier_runs):
    one, three = summary(barrier_runs / "j1"), summary(barrier_runs / "j3")
    for key in ("root_causes", "cause_pairs", "wait_classes", "critical_path", "root_cause_analysis"):
        assert one[key] == three[key], key
    for name in ("profile.cubex", "critical_path.feather"):
        assert (barrier_runs / "j1" / name).read_bytes() == (barrier_runs / "j3" / name).read_bytes(), name


def test_no_root_causes_keeps_the_rest_and_says_so(barrier_runs):
    on, off = summary(barrier_runs / "j1"), summary(barrier_runs / "off")
    assert off["root_cause_analysis"]["enabled"] is False
    assert off["root_causes"] == [] and off["critical_path"] == [] and off["cause_pairs"] == []
    assert all(v == {"grid": 0.0, "local": 0.0} for v in off["wait_classes"].values())
    assert not (barrier_runs / "off" / "critical_path.feather").exists()
    assert off["findings"] is None and off["run"]["critical_path_s"] is None
    # built from the root causes: the findings, the path's length, the waiting each WAN link caused
    rest = set(on) - {"root_causes", "critical_path", "cause_pairs", "wait_classes", "root_cause_analysis", "analysis",
                      "findings", "run", "wan_links"}
    assert {k: off[k] for k in rest} == {k: on[k] for k in rest}


def test_sums_agree_between_causes_cube_and_pairs(barrier_runs):
    """The causes file and the severity rows are two views of one result."""
    import gridscope

    a = gridscope.load(barrier_runs / "j1")
    sev = a.severities
    short = sev[sev.metric.str.startswith("delay_") & sev.metric.str.contains("_short_")]["value"].sum()
    assert a.root_causes["short_term_s"].sum() == pytest.approx(short)
    assert a.cause_pairs[["short_term_s", "long_term_s"]].to_numpy().sum() == pytest.approx(
        a.root_causes["total_s"].sum())
    path = sev[sev.metric.isin(["critical_path", "critical_path_imbalance"])]["value"].sum()
    assert a.critical_path["seconds"].sum() == pytest.approx(path)
    assert a.summary["root_cause_analysis"]["critical_path_length_s"] == pytest.approx(path)
    assert isinstance(a.critical_path_timeline, pd.DataFrame)
