"""Issue 12, "wait states of non-blocking collectives": the program of the issue
(testdata/apps/nbc/nbc.c, 4 ranks under Open MPI: rank 0 computes 2 ms before each of 20
MPI_Iallreduce + MPI_Wait, then all do MPI_Ibarrier + MPI_Wait), recorded with
`gridscope record` over two metahosts and analysed at -j 1 and -j 2, shows its waiting
(before: "No wait states found").

Expectations, derived from the program and docs/patterns.md ("Non-blocking collectives"):
- every wait is in MPI_Wait (the completing call), as Wait at NxN or Wait at Barrier (a
  peer joined late) or as NxN Completion or Barrier Completion (the call returned after
  another member's completing call had returned), grid (MPI_COMM_WORLD spans both
  metahosts); nothing in the MPI_I* calls, no other pattern;
- on Open MPI most of the waiting is completion delay: its non-blocking allreduce
  progresses only inside MPI calls, so rank 0's Wait often returns at once while the
  others' complete only when rank 0 next enters MPI, 2 ms later; they then enter their next
  Wait after rank 0 joined it (no late join). Either way each of ranks 1-3 waits about the
  computation C that rank 0 measured itself, so the total is about 3 x C;
- per rank r >= 1, with J(i) the latest join of instance i, E(i) the earliest leave of its
  completing calls (J(i) <= E(i) <= rank 0's leave: an allreduce or barrier cannot complete
  anywhere before every member joined, and one clock serves all ranks here): r's charged
  time in its Wait i is [enter, J(i)] and [E(i), leave], the rest [J(i), E(i)] lies inside
  rank 0's own MPI_Iallreduce/MPI_Wait calls of iteration i. So
  * lower bound: every instant of rank 0's computation (between its leave of Wait i-1 and
    its join of i) finds r in Wait i-1 after E(i-1) or in Wait i before J(i), both charged,
    or in r's own MPI_I* calls and the code between (uncharged), or before r's first Wait
    (the spread of the MPI_Init exits): charged_r >= C - r's MPI_I* time - SLACK;
  * upper bound: every charged instant of r finds rank 0 computing, in its MPI calls of
    the loop, between them, before the end of its MPI_Init or after its last Wait (on
    its way to MPI_Finalize, where it progresses r's Ibarrier): charged_r <= C + rank 0's
    MPI time in the loop + SLACK;
  SLACK (as in test_program_time.py: one preemption on this shared machine) covers the
  MPI_Init exit spread, the code between the calls and rank 0's way out.
"""

from __future__ import annotations

import json

import pytest

from gridscope.cube.reader import read_cubex
from gstest import run_gridscope
from tests.collector.test_program_time import N, SLACK_S, record_nbc

WAITS = ("wait_at_nxn", "wait_at_barrier", "nxn_completion", "barrier_completion")
# MPI_Init and MPI_Finalize synchronise every rank (Scalasca's patterns): not the loop's waiting
WORLD = ("init_completion", "finalize_wait")
LOOP_CALLS = ("nbc/MPI_Iallreduce", "nbc/MPI_Wait", "nbc/MPI_Ibarrier")
INITIATING_CALLS = ("nbc/MPI_Iallreduce", "nbc/MPI_Ibarrier")
NOT_MPI = ("time", "visits", "bytes_sent", "bytes_received")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    work = tmp_path_factory.mktemp("nbcwaits")
    trace, computed = record_nbc(work)
    outs = {}
    for jobs in (1, 2):
        out = work / f"analysis-j{jobs}"
        terminal = run_gridscope("analyze", trace, "-o", out, "-j", str(jobs)).stdout
        outs[jobs] = (out, terminal)
    return outs, computed


def waits_by_rank(out) -> dict[int, float]:
    """Each rank's waiting (late joins and completion delays) in its completing MPI_Wait."""
    sev = read_cubex(out / "profile.cubex").severities
    waits = sev[sev["metric"].str.startswith(WAITS) & (sev["callpath"] == "nbc/MPI_Wait")]
    return waits.groupby("rank")["value"].sum().to_dict()


def mpi_time(out, rank: int, callpaths: tuple[str, ...]) -> float:
    """Time rank spent in these MPI calls (the "mpi" metric and the wait states under it;
    the Cube file's "time" is the exclusive time outside MPI)."""
    sev = read_cubex(out / "profile.cubex").severities
    rows = sev[(sev["rank"] == rank) & sev["callpath"].isin(callpaths)
               & ~sev["metric"].str.startswith(NOT_MPI)]
    return float(rows["value"].sum())


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_issue_program_shows_its_waiting(recorded, jobs):
    outs, computed = recorded
    out, terminal = outs[jobs]
    summary = json.loads((out / "summary.json").read_text())
    assert "No wait states found" not in terminal
    assert "Wait at NxN" in terminal or "NxN Completion" in terminal
    assert summary["collectives"] == 21 and summary["incomplete_collectives"] == 0
    for name, v in summary["patterns"].items():
        if name in WAITS:
            assert v["local"] == 0.0, name
        elif name not in WORLD:
            assert v == {"grid": 0.0, "local": 0.0}, name
    assert {row["callpath"] for row in summary["by_callpath"] if row["pattern"] in WAITS} == {"nbc/MPI_Wait"}
    assert {row["callpath"] for row in summary["by_callpath"] if row["pattern"] in WORLD} <= {"nbc/MPI_Init", "nbc/MPI_Finalize"}
    by_rank = waits_by_rank(out)
    rank0_loop = mpi_time(out, 0, LOOP_CALLS)
    print(f"\n-j {jobs}: C {computed * 1e3:.3f} ms, waiting by rank (ms) "
          + ", ".join(f"{r}: {by_rank.get(r, 0.0) * 1e3:.3f}" for r in range(N))
          + f"; ranks 1-3 {sum(by_rank.get(r, 0.0) for r in range(1, N)) * 1e3:.3f} vs 3C "
          f"{3 * computed * 1e3:.3f}; rank 0 in the loop's MPI calls {rank0_loop * 1e3:.3f}")
    for r in range(1, N):
        charged = by_rank.get(r, 0.0)
        assert charged >= computed - mpi_time(out, r, INITIATING_CALLS) - SLACK_S, r
        assert charged <= computed + rank0_loop + SLACK_S, r


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_issue_program_waiting_has_a_cause(recorded, jobs):
    """Issue 25: the late joins have root causes (docs/root-causes.md, non-blocking
    collectives: the delayer is the member whose MPI_I* call the waiting was for), grid
    like the waits; the completion delays, as Scalasca's completion patterns, have none."""
    outs, _ = recorded
    out, terminal = outs[jobs]
    assert "No wait state with a cause found" not in terminal
    summary = json.loads((out / "summary.json").read_text())
    late_join = summary["patterns"]["wait_at_nxn"]["grid"] + summary["patterns"]["wait_at_barrier"]["grid"]
    caused = sum(row["short_term_s"] + row["long_term_s"] for row in summary["root_causes"]
                 if row["pattern"] in ("wait_at_nxn", "wait_at_barrier"))
    assert {row["class"] for row in summary["root_causes"]} <= {"grid"}
    assert 0 < caused <= late_join * (1 + 1e-9)


@pytest.mark.slow
def test_same_waits_at_any_j(recorded):
    outs, _ = recorded
    one, two = (json.loads((outs[j][0] / "summary.json").read_text()) for j in (1, 2))
    for key in ("patterns", "by_callpath", "collectives", "total_time_s", "mpi_time_s"):
        assert one[key] == two[key], key


def mpi_fraction_bounds(summary: dict, computed: float) -> tuple[float, float]:
    """From the program alone: rank 0 computes C outside MPI, ranks 1-3 wait about C each
    inside it (the test above), so over all ranks T: C <= time outside MPI, 3 (C - SLACK) <=
    time in MPI."""
    total = float(summary["total_time_s"])
    return 3 * (computed - SLACK_S) / total, 1 - computed / total


@pytest.mark.slow
def test_report_shows_the_waiting_and_the_mpi_fraction(recorded, tmp_path):
    """The issue's program in the report: its wait states and the MPI fraction (it said 100 %)."""
    outs, computed = recorded
    out, _ = outs[1]
    summary = json.loads((out / "summary.json").read_text())
    fraction = float(summary["mpi_time_s"]) / float(summary["total_time_s"])
    low, high = mpi_fraction_bounds(summary, computed)
    assert low <= fraction <= high, (low, fraction, high)
    report = tmp_path / "report.html"
    run_gridscope("report", out, "-o", report)
    html = report.read_text()
    assert "No wait states found" not in html
    assert "NxN Completion" in html or "Wait at NxN" in html
    assert f"{100 * fraction:.1f} %" in html  # the MPI fraction card


@pytest.mark.slow
def test_viewer_serves_the_waiting(recorded):
    """The issue's program in the viewer: its wait states listed, the same MPI time."""
    import threading
    import urllib.request

    from gridscope.viewer.server import make_server

    outs, _ = recorded
    out, _ = outs[1]
    summary = json.loads((out / "summary.json").read_text())
    srv = make_server(out, "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{srv.server_address[1]}"
        meta = json.loads(urllib.request.urlopen(f"{base}/api/meta").read())
        assert meta["summary"]["mpi_time_s"] == summary["mpi_time_s"]
        assert meta["waitstate_count"] > 0
        assert set(meta["patterns"]) <= set(WAITS + WORLD) and set(meta["patterns"]) & set(WAITS)
        listed = 0
        for pattern in meta["patterns"]:
            page = json.loads(urllib.request.urlopen(f"{base}/api/waitstates?pattern={pattern}&limit=50").read())
            listed += page["total"]
        assert listed == meta["waitstate_count"], "the viewer lists every wait state by its pattern"
    finally:
        srv.shutdown()
        srv.server_close()
