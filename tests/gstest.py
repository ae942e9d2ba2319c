"""Helpers shared by every app-level test (import them: `from gstest import run_gridscope`).

Tests run the real command line (`python -m gridscope …`) in a subprocess, the way users
do. In CI the package is installed in .venv; during development set PYTHONPATH=src and
GRIDSCOPE_NATIVE_DIR to a `cmake --install` prefix. (Several test folders have their own
conftest.py, so `from conftest import …` would be ambiguous; this module's name is not.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SCOREP_TRACES = SHARED / "testdata" / "scorep"

# Open MPI refuses to run as root and to oversubscribe the 2 cores without these.
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_mpi_yield_when_idle": "1",  # oversubscribed ranks yield the core instead of spinning
}


def gridscope_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(MPI_ENV)
    if extra:
        env.update(extra)
    return env


def run_gridscope(*args: str | os.PathLike, check: bool = True, timeout: float | None = None,
                  cwd: str | os.PathLike | None = None,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `gridscope ARGS`; with check=True a non-zero exit fails the test with its output."""
    cmd = [sys.executable, "-m", "gridscope", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=gridscope_env(env))
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                    f"stderr:\n{proc.stderr}")
    return proc
