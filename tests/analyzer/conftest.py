"""Helpers for the analyzer tests: build a synthetic trace from a spec and analyse it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from analyzer_helpers import SPECS


@pytest.fixture(scope="session")
def tracegen():
    from gridscope import native

    return native.binary("gs-tracegen")


@pytest.fixture(scope="session")
def make_trace(tracegen, tmp_path_factory):
    """make_trace("late_sender") -> folder of a trace written from specs/late_sender.spec."""
    cache: dict[str, Path] = {}

    def make(name: str) -> Path:
        if name not in cache:
            out = tmp_path_factory.mktemp("trace") / name
            subprocess.run([str(tracegen), str(SPECS / f"{name}.spec"), str(out)], check=True)
            cache[name] = out
        return cache[name]

    return make


@pytest.fixture
def analyse(tmp_path):
    """analyse(trace, jobs=1, **options) -> summary dict (runs the engine in-process driver)."""
    from gridscope.analysis.driver import AnalyzeOptions, analyze

    def run(trace: Path, jobs: int = 1, **kw) -> dict:
        out = tmp_path / f"out-{trace.name}-{jobs}"
        analyze(AnalyzeOptions(trace, out, jobs, **kw))
        return json.loads((out / "summary.json").read_text())

    return run
