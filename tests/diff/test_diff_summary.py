"""Differences of summary.json contents: missing entries count as zero."""

from __future__ import annotations

import pytest

from gridscope.diff.summary import diff_patterns, diff_rows, diff_summary, percent_of


def test_patterns_union_missing_is_zero():
    base = {"late_sender": {"grid": 2.0, "local": 1.0}}
    new = {"late_sender": {"grid": 0.5}, "wait_at_nxn": {"local": 3.0}}
    assert diff_patterns(base, new) == {"late_sender": {"grid": -1.5, "local": -1.0},
                                        "wait_at_nxn": {"grid": 0.0, "local": 3.0}}


def test_rows_keyed_and_sorted_by_change():
    base = [{"pattern": "ls", "class": "local", "callpath": "a", "seconds": 4.0},
            {"pattern": "ls", "class": "local", "callpath": "gone", "seconds": 1.0}]
    new = [{"pattern": "ls", "class": "local", "callpath": "a", "seconds": 1.0},
           {"pattern": "ls", "class": "grid", "callpath": "a", "seconds": 0.5}]
    rows = diff_rows(base, new, ("pattern", "class", "callpath"), ("seconds",), base_total=10.0)
    assert [(r["class"], r["callpath"], r["seconds"]) for r in rows] == [
        ("local", "a", -3.0), ("local", "gone", -1.0), ("grid", "a", 0.5)]
    assert rows[0]["percent_of_base"] == pytest.approx(-30.0)
    assert rows[0]["base_seconds"] == 4.0 and rows[0]["new_seconds"] == 1.0


def test_percent_of_zero_total_is_none():
    assert percent_of(1.0, 0.0) is None


def test_summary_difference_keeps_the_analyze_shape():
    base = {"ranks": 4, "metahosts": {"a": 4}, "events": 100, "total_time_s": 10.0,
            "mpi_time_s": 4.0, "clock_violations": 2, "patterns": {},
            "p2p": [{"from": "a", "to": "a", "bytes": 100, "messages": 2,
                     "max_rate_Bps": 5.0, "min_transfer_s": 1e-5}]}
    new = dict(base, total_time_s=8.0, mpi_time_s=3.0, clock_violations=0, events=90,
               p2p=[{"from": "a", "to": "a", "bytes": 150, "messages": 3,
                     "max_rate_Bps": 6.0, "min_transfer_s": 1e-5}])
    out = diff_summary(base, new, {"base": "b", "new": "n"})
    assert out["total_time_s"] == -2.0 and out["mpi_time_s"] == -1.0
    assert out["clock_violations"] == -2 and out["events"] == -10
    assert out["p2p"][0]["bytes"] == 50 and out["p2p"][0]["messages"] == 1
    assert "percent_of_base" not in out["p2p"][0]
    assert out["diff"]["base_total_time_s"] == 10.0 and out["diff"]["base"] == "b"
    assert base["total_time_s"] == 10.0  # inputs untouched


def test_terminal_table_shows_unchanged_totals_and_bracketed_call_paths():
    """A pattern whose grid and local changes cancel (total change 0, no colour) and a call
    path holding '[...]' once made rich fail on its markup; both print as plain text."""
    from io import StringIO

    from rich.console import Console

    from gridscope.diff.table import print_diff

    result = {"base": "b", "new": "n", "base_total_time_s": 10.0, "total_time_s": 0.0, "mpi_time_s": 0.0,
              "ranks": {"base": 4, "new": 4}, "collapsed_ranks": False,
              "patterns": {"wait_at_barrier": {"grid": -0.5, "local": 0.5}},
              "by_callpath": [{"pattern": "late_sender", "class": "grid", "callpath": "main/solve[2]/MPI_Recv",
                               "seconds": 0.25, "percent_of_base": 2.5}],
              "cube_changes": []}
    out = StringIO()
    print_diff(result, Console(file=out, width=200))
    text = out.getvalue()
    assert "+0.0 %" in text
    assert "main/solve[2]/MPI_Recv" in text
