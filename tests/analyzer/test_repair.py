"""Real traces are not always well nested (docs/analyzer.md "Imperfect traces"): mis-nested,
never-closed and stray user regions are repaired, counted and reported, and the MPI analysis
goes on; mis-nested MPI regions stay errors. Expectations derived in specs/repair.spec."""

from __future__ import annotations

import json

import pytest

from analyzer_helpers import fails_with, gridscope, values

US = 1e-6
WARNINGS = [
    "2 mis-nested user regions closed at the Leave of an enclosing region (first: 'inner2' on rank 0 at 0.000040 s)",
    "2 user regions never left, closed at their location's last event (first: 'never_closed' on rank 0 "
    "at 0.000200 s)",
    "1 Leave of a user region that was not open, dropped (first: 'inner2' on rank 0 at 0.000050 s)",
]


@pytest.fixture(scope="module")
def repaired(make_trace, tmp_path_factory):
    """(trace, {jobs: (process, summary)}) of specs/repair.spec at -j 1 and -j 2, with -q."""
    trace = make_trace("repair")
    runs = {}
    for jobs in (1, 2):
        out = tmp_path_factory.mktemp("repair") / "out"
        proc = gridscope("analyze", trace, "-o", out, "-q", "-j", jobs)
        assert proc.returncode == 0, proc.stderr
        runs[jobs] = (proc, json.loads((out / "summary.json").read_text()), out)
    return trace, runs


def test_repairs_are_counted_and_named(repaired):
    _, runs = repaired
    summary = runs[1][1]
    assert summary["repaired_regions"] == {"misnested": 2, "unclosed": 2, "stray_leave": 1, "truncated": 0, "lost": 0,
                                          "warnings": WARNINGS}


def test_one_warning_line_per_kind_even_when_quiet(repaired):
    trace, runs = repaired
    for proc, _, _ in runs.values():
        assert proc.stderr.splitlines() == [f"gridscope: warning: {trace}: {w}" for w in WARNINGS]


def test_mpi_analysis_goes_on(repaired):
    _, runs = repaired
    summary = runs[1][1]
    assert summary["patterns"]["late_sender"] == {"grid": pytest.approx(50 * US, abs=1e-15), "local": 0.0}
    # rank 0 runs 0..200 (its last event), rank 1 0..170
    assert summary["total_time_s"] == pytest.approx(370 * US, abs=1e-15)


def test_call_tree_after_repair(repaired):
    from gridscope.analysis import load

    _, runs = repaired
    sev = load(runs[1][2]).severities
    time = {(r.callpath, r.rank): r.value for r in sev[sev.metric.isin(["time", "mpi"])].itertuples()}
    # inner1/inner2 end at loop's Leave (40); main keeps 0-10, 40-100 and 170-200 on rank 0;
    # MPI_Recv's 70 us less its 50 us of Late Sender (exclusive Cube values)
    assert time == pytest.approx({("main", 0): 100 * US, ("main/loop", 0): 10 * US,
                                  ("main/loop/inner1", 0): 10 * US, ("main/loop/inner1/inner2", 0): 10 * US,
                                  ("main/MPI_Recv", 0): 20 * US, ("main", 1): 160 * US,
                                  ("main/MPI_Send", 1): 10 * US}, abs=1e-15)
    visits = {r.callpath: r.value for r in sev[(sev.metric == "visits") & (sev["rank"] == 0)].itertuples()}
    assert visits["main/never_closed"] == 1


def test_same_result_in_parallel(repaired):
    _, runs = repaired
    assert values(runs[1][1]) == values(runs[2][1])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_misnested_mpi_region_is_an_error(make_trace, tmp_path, jobs):
    trace = make_trace("misnested_mpi")
    fails_with(trace, "-j", jobs, out=tmp_path / "o", expect_where=trace / "traces" / "0.evt",
               expect_problem="Leave of region 'loop' on rank 0 at 0.000030 s while MPI region 'MPI_Barrier' "
                              "inside it is still open (mis-nested MPI region)")


def test_leave_of_mpi_region_that_is_not_open_is_an_error(make_trace, tmp_path):
    trace = make_trace("stray_mpi_leave")
    fails_with(trace, out=tmp_path / "o", expect_where=trace / "traces" / "0.evt",
               expect_problem="Leave of MPI region 'MPI_Send' on rank 0 at 0.000010 s, which is not open")


def test_failed_analysis_keeps_an_existing_folder(make_trace, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    trace = make_trace("misnested_mpi")
    fails_with(trace, out=out, expect_where=trace / "traces" / "0.evt", expect_problem="mis-nested MPI region")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
