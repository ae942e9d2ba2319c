"""The command line end to end: `gridscope analyze --help`, a run with the terminal summary."""

from __future__ import annotations

import json

from analyzer_helpers import gridscope


def test_help():
    proc = gridscope("analyze", "--help")
    assert proc.returncode == 0
    assert "--metahosts" in proc.stdout and "-j" in proc.stdout


def test_analyze_prints_summary_and_writes_folder(make_trace, tmp_path):
    out = tmp_path / "out"
    proc = gridscope("analyze", make_trace("callpaths"), "-o", out, COLUMNS="200")
    assert proc.returncode == 0, proc.stderr
    assert "Late Sender" in proc.stdout and "Wait at Barrier" in proc.stdout
    assert "main/iteration/ReadFieldsFromTrace/MPI_Recv" in proc.stdout
    assert sorted(p.name for p in out.iterdir()) == ["critical_path.feather", "profile.cubex", "summary.json", "waitstates.feather"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trace"] == str(make_trace("callpaths") / "traces.otf2")
    assert set(summary) >= {"ranks", "metahosts", "events", "total_time_s", "mpi_time_s", "clock_violations",
                            "patterns", "by_callpath", "by_metahost", "p2p"}


def test_terminal_summary_prints_names_with_brackets_as_they_are():
    """Region and metahost names are the trace's: '[...]' in them (C++ template regions,
    `f() [with T = int]`) is text, not rich markup."""
    from io import StringIO

    from rich.console import Console

    from gridscope.analysis.terminal import print_summary

    summary = {"ranks": 2, "metahosts": {"site[1]": 2}, "events": 10, "total_time_s": 1.0, "mpi_time_s": 0.5,
               "clock_violations": 0, "time_correction": {"enabled": False},
               "thread_locations": {"locations": 0, "events": 0},
               "unanalysed_locations": {"locations": 0, "events": 0},
               "patterns": {"late_sender": {"grid": 0.0, "local": 0.25}},
               "by_callpath": [{"pattern": "late_sender", "class": "local", "seconds": 0.25,
                                "callpath": "main/void f() [with T = int]/MPI_Recv[/]"}],
               "p2p": []}
    out = StringIO()
    print_summary(summary, Console(file=out, width=250))
    assert "main/void f() [with T = int]/MPI_Recv[/]" in out.getvalue()
    assert "site[1] (2)" in out.getvalue()
