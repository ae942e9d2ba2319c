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
    assert sorted(p.name for p in out.iterdir()) == ["profile.cubex", "summary.json", "waitstates.feather"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trace"] == str(make_trace("callpaths") / "traces.otf2")
    assert set(summary) >= {"ranks", "metahosts", "events", "total_time_s", "mpi_time_s", "clock_violations",
                            "patterns", "by_callpath", "by_metahost", "p2p"}
