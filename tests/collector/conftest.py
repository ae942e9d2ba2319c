"""Fixtures for the collector's app-level tests: tiny MPI programs built once per
session with mpicc, recorded with `gridscope record -- mpirun ...`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.collector.mpi_kits import KITS, AppRecorder, MpiKit, require

APPS = Path(__file__).resolve().parent / "apps"


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is missing (make install installs the MPI and OTF2 packages)")


@pytest.fixture(scope="session")
def build_app(tmp_path_factory):
    """build_app("pattern") -> path of the compiled tests/collector/apps/pattern.c."""
    out = tmp_path_factory.mktemp("collector-apps")
    built: dict[tuple[str, tuple[str, ...]], Path] = {}

    def build(name: str, *extra: str, compiler: str = "mpicc") -> Path:
        key = (name + compiler, extra)
        if key not in built:
            _need(compiler)
            exe = out / f"{name}-{len(built)}"
            cmd = [compiler, "-O1", "-o", str(exe), str(APPS / f"{name}.c"), *extra]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
            built[key] = exe
        return built[key]

    return build


@pytest.fixture(scope="session")
def two_metahost_map(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("maps") / "two.json"
    path.write_text('{"jsc": ["rank:0-3"], "fzj": ["rank:4-7"]}')
    return path


@pytest.fixture(scope="module", params=sorted(KITS))
def mpi_kit(request) -> MpiKit:
    """Each MPI library the collector is built for (tests using it run once per library)."""
    return require(KITS[request.param])


@pytest.fixture(scope="module")
def record_app(mpi_kit, tmp_path_factory) -> AppRecorder:
    """An AppRecorder for mpi_kit (one per test module and MPI library)."""
    return AppRecorder(mpi_kit, tmp_path_factory.mktemp(f"apps-{mpi_kit.name}"))
