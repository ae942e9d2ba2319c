"""Root causes by default only where they stay cheap: on for traces of up to 2,000,000
events, off above unless asked for (docs/root-causes.md, docs/perf-analyzer.md)."""

from __future__ import annotations

import json
import subprocess

import pytest

from analyzer_helpers import gridscope

LIMIT = 2_000_000


@pytest.fixture(scope="module")
def big_trace(tracegen, tmp_path_factory):
    """A --bench trace just above the limit: 4 ranks x 22,800 iterations of 22 events."""
    out = tmp_path_factory.mktemp("big") / "trace"
    subprocess.run([str(tracegen), "--bench", "4", "22800", str(out)], check=True, capture_output=True)
    return out


def summary_of(out):
    return json.loads((out / "summary.json").read_text())


def test_default_skips_them_above_the_limit(big_trace, tmp_path):
    proc = gridscope("analyze", str(big_trace), "-o", str(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr
    summary = summary_of(tmp_path / "a")
    assert summary["events"] > LIMIT
    block = summary["root_cause_analysis"]
    assert block == {**block, "enabled": False, "mode": "auto", "auto_limit_events": LIMIT}
    assert summary["root_causes"] == [] and summary["critical_path"] == []
    assert "--root-causes computes them" in " ".join(proc.stdout.split())


def test_asked_for_they_run_on_any_size(big_trace, tmp_path):
    proc = gridscope("analyze", str(big_trace), "-o", str(tmp_path / "a"), "-q", "--root-causes")
    assert proc.returncode == 0, proc.stderr
    summary = summary_of(tmp_path / "a")
    assert summary["root_cause_analysis"]["enabled"] is True
    assert summary["root_cause_analysis"]["mode"] == "on"
    assert summary["critical_path"], "the critical path of a run with waits is not empty"


def test_default_runs_them_below_the_limit(make_trace, tmp_path):
    proc = gridscope("analyze", str(make_trace("late_sender")), "-o", str(tmp_path / "a"), "-q")
    assert proc.returncode == 0, proc.stderr
    block = summary_of(tmp_path / "a")["root_cause_analysis"]
    assert block["enabled"] is True and block["mode"] == "auto"
