"""Fixtures of the viewer tests: synthetic traces and analysis folders built from them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from viewer_fixtures import XSS_NAME, make_run, synth_trace  # noqa: E402


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> Path:
    """8 ranks on two metahosts (jsc, brs), 6 iterations, with late senders and NxN waits."""
    base = tmp_path_factory.mktemp("viewer-demo")
    anchor = synth_trace(base / "trace", ranks=8, metahosts=2, iterations=6)
    return make_run(base / "run", anchor)


@pytest.fixture(scope="session")
def xss_run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("viewer-xss")
    anchor = synth_trace(base / "trace", ranks=4, metahosts=2, iterations=2, region_name=XSS_NAME)
    return make_run(base / "run", anchor)
