"""Fixtures shared by every app-level test; the helpers live in gstest.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gstest import SCOREP_TRACES


@pytest.fixture(scope="session")
def scorep_traces() -> Path:
    if not SCOREP_TRACES.is_dir():
        pytest.fail(f"{SCOREP_TRACES} is missing: ../shared must sit beside the repository")
    return SCOREP_TRACES
