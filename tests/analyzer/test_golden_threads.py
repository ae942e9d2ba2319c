"""Golden test of threads that call MPI (specs/threads.spec, every number derived there):
a rank's thread locations are analysed with it. Messages match per rank in MPI's posting
order across the rank's locations, collective instances follow the rank's calls in time
order, and each wait is charged to the location that waited (summary.json `threads`;
every other view sums a rank's locations)."""

from __future__ import annotations

import pytest

from gridscope.analysis.metric_tree import PATTERNS

US = 1e-6
# (pattern, rank, thread, call path) -> us, all grid (one rank per metahost)
WAITS = {
    ("late_sender", 0, 0, "main/MPI_Recv"): 20,
    ("late_sender", 0, 1, "worker/MPI_Recv"): 30 + 5 + 5,
    ("wait_at_barrier", 0, 0, "main/MPI_Barrier"): 20,
    ("wait_at_nxn", 0, 1, "worker/MPI_Allreduce"): 20,
    ("late_broadcast", 0, 0, "main/MPI_Bcast"): 5,
    ("late_broadcast", 0, 1, "worker/MPI_Bcast"): 5,
}
# MPI time per (rank, thread), us: the spec's MPI calls
MPI_US = {(0, 0): 25 + 5 + 21 + 8, (0, 1): 40 + 15 + 10 + 30 + 8, (1, 0): 3 + 2 + 1 + 1 + 1 + 1 + 1, (1, 1): 5 + 10}


@pytest.mark.parametrize("jobs", [1, 2])
def test_threads_analysed_with_their_ranks(jobs, make_trace, analyse):
    s = analyse(make_trace("threads"), jobs=jobs)
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert s["messages"] == 5
    assert s["collectives"] == 4 and s["incomplete_collectives"] == 0
    assert s["thread_locations"]["locations"] == 2
    assert s["unanalysed_locations"] == {"locations": 0, "events": 0}
    for pattern in PATTERNS:
        want = sum(v for (p, *_), v in WAITS.items() if p == pattern) * US
        assert s["patterns"][pattern]["grid"] == pytest.approx(want, abs=1e-12), pattern
        assert s["patterns"][pattern]["local"] == 0.0, pattern
    by_callpath = {(r["pattern"], r["callpath"]): r["seconds"] for r in s["by_callpath"]}
    for (pattern, _, _, callpath), us in WAITS.items():
        assert by_callpath[(pattern, callpath)] == pytest.approx(us * US), (pattern, callpath)
    # per thread location (masters are not listed): time, MPI time, waiting
    threads = {(t["rank"], t["thread"]): t for t in s["threads"]}
    assert set(threads) == {(0, 1), (1, 1)}
    for key, t in threads.items():
        assert t["time_s"] == pytest.approx(190 * US), key  # the worker region, 0 to 190
        assert t["mpi_s"] == pytest.approx(MPI_US[key] * US), key
        want = sum(v for (_, r, th, _), v in WAITS.items() if (r, th) == key) * US
        assert t["waiting_s"] == pytest.approx(want, abs=1e-12), key
    # the totals sum all four locations
    assert s["total_time_s"] == pytest.approx((2 * 200 + 2 * 190) * US)
    assert s["mpi_time_s"] == pytest.approx(sum(MPI_US.values()) * US)


def test_root_causes_say_why_they_are_missing(make_trace, analyse):
    """Root causes follow the master locations only: skipped, and the summary says so."""
    from gridscope.analysis import why

    s = analyse(make_trace("threads"))
    assert s["root_cause_analysis"]["enabled"] is False
    assert s["root_cause_analysis"]["skipped_for_threads"] is True
    assert s["critical_path"] == [] and s["root_causes"] == []
    assert "call MPI from several threads" in why.not_analysed_reason(s)


def test_report_lists_the_threads(make_trace, analyse, tmp_path):
    """The report's "Where" section has one row per thread location with its own figures."""
    import re

    from gridscope.report import write_report

    trace = make_trace("threads")
    analyse(trace)
    out, _ = write_report([tmp_path / f"out-{trace.name}-1"], tmp_path / "r.html")
    html = out.read_text()
    table = html[html.index("Threads that call MPI"):]
    table = table[:table.index("</table>")]
    rows = [re.sub(r"<[^>]+>", " ", r).split() for r in re.findall(r"<tr>(.*?)</tr>", table)][1:]
    assert [r[:2] for r in rows] == [["0", "1"], ["1", "1"]]
