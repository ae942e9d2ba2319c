"""Fixtures shared by every app-level test; the helpers live in gstest.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gstest import REPO, SCOREP_TRACES, run_gridscope

PLANTED_APP = REPO / "testdata" / "apps" / "planted" / "planted.c"
PLANTED_PLATFORMS = REPO / "tests" / "analyzer" / "planted"


@pytest.fixture(scope="session")
def scorep_traces() -> Path:
    if not SCOREP_TRACES.is_dir():
        pytest.fail(f"{SCOREP_TRACES} is missing: ../shared must sit beside the repository")
    return SCOREP_TRACES


@pytest.fixture(scope="session")
def planted_run(tmp_path_factory) -> Callable[..., tuple[Path, Path]]:
    """planted_run(PLATFORM, *ARGS) -> (record folder, analysis folder): testdata/apps/planted
    compiled once, run with ARGS on 12 simulated ranks of tests/analyzer/planted/PLATFORM.toml
    and analysed, once per session for each PLATFORM and ARGS (the findings and the report
    tests read the same runs; they only read them)."""
    root = tmp_path_factory.mktemp("planted")
    program = root / "planted"
    runs: dict[tuple[str, tuple[str, ...]], tuple[Path, Path]] = {}

    def run(platform: str, *args: str) -> tuple[Path, Path]:
        key = (platform, args)
        if key not in runs:
            if not program.exists():
                run_gridscope("cc", "--simulate", PLANTED_APP, f"-I{REPO / 'testdata' / 'apps' / 'common'}",
                              "-O1", "-o", program)
            rec, out = root / f"rec-{len(runs)}", root / f"an-{len(runs)}"
            run_gridscope("record", "--platform", PLANTED_PLATFORMS / f"{platform}.toml", "-np", "12", "-o", rec,
                          "--", program, *args)
            run_gridscope("analyze", rec, "-o", out, "-q")
            runs[key] = (rec, out)
        return runs[key]

    return run
