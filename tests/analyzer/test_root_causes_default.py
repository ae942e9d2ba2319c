"""Root causes on by default at any size, as Scalasca's scout computes them; off only when
asked (docs/root-causes.md)."""

from __future__ import annotations

import json
import subprocess

import pytest

from analyzer_helpers import gridscope

OLD_LIMIT = 2_000_000  # above it they were off by default until 2026-11


@pytest.fixture(scope="module")
def big_trace(tracegen, tmp_path_factory):
    """A --bench trace above the old limit: 4 ranks x 22,800 iterations of 22 events."""
    out = tmp_path_factory.mktemp("big") / "trace"
    subprocess.run([str(tracegen), "--bench", "4", "22800", str(out)], check=True, capture_output=True)
    return out


def summary_of(out):
    return json.loads((out / "summary.json").read_text())


def test_default_runs_them_at_any_size(big_trace, tmp_path):
    proc = gridscope("analyze", str(big_trace), "-o", str(tmp_path / "a"), "-q")
    assert proc.returncode == 0, proc.stderr
    summary = summary_of(tmp_path / "a")
    assert summary["events"] > OLD_LIMIT
    block = summary["root_cause_analysis"]
    assert block["enabled"] is True and block["mode"] == "on" and "auto_limit_events" not in block
    assert summary["critical_path"], "the critical path of a run with waits is not empty"
    assert summary["findings"] is not None


def test_off_when_asked(big_trace, tmp_path):
    proc = gridscope("analyze", str(big_trace), "-o", str(tmp_path / "a"), "--no-root-causes")
    assert proc.returncode == 0, proc.stderr
    summary = summary_of(tmp_path / "a")
    assert summary["root_cause_analysis"] == {**summary["root_cause_analysis"], "enabled": False, "mode": "off"}
    assert summary["root_causes"] == [] and summary["critical_path"] == [] and summary["findings"] is None
    assert "Root causes: not analysed (--no-root-causes)." in " ".join(proc.stdout.split())
