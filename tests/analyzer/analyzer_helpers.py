"""Shared by the analyzer tests (a uniquely named module: several test folders have a
conftest.py, so `from conftest import ...` would be ambiguous)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SPECS = Path(__file__).resolve().parent / "specs"
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_mpi_yield_when_idle": "1"}  # oversubscribed ranks yield instead of spinning


def gridscope(*args, timeout: float | None = None, **env_extra: str) -> subprocess.CompletedProcess:
    """Runs `python -m gridscope ARGS` the way users do; never raises on a non-zero exit."""
    env = dict(os.environ, **MPI_ENV, **env_extra)
    return subprocess.run([sys.executable, "-m", "gridscope", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def fails_with(trace, *extra, out, expect_where, expect_problem) -> None:
    """`gridscope analyze` fails as bad input must: one line `gridscope: WHERE...PROBLEM`,
    exit 2, no traceback; an output folder the run created is gone again."""
    existed = Path(out).exists()
    proc = gridscope("analyze", trace, "-o", out, "-q", *extra)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"gridscope: {expect_where}"), lines[0]
    assert expect_problem in lines[0], lines[0]
    assert "Traceback" not in proc.stderr
    assert existed or not Path(out).exists(), f"{out} was left behind"


def values(summary: dict) -> dict:
    """A summary without its `analysis` timing section: what must not depend on -j or the launcher."""
    return {k: v for k, v in summary.items() if k != "analysis"}
