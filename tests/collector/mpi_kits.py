"""The two MPI libraries the collector is built for, as the tests compile and launch with
them: Open MPI (Debian's default mpicc/mpirun) and MPICH (libmpich-dev's *.mpich tools)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from gridscope import native
from gridscope.record import mpi_abi
from gstest import run_gridscope
from tests.collector import otf2text


@dataclass(frozen=True)
class MpiKit:
    name: str         # mpi_abi.OPEN_MPI or mpi_abi.MPICH
    cc: str           # C compiler wrapper
    fc: str           # Fortran compiler wrapper
    launch: tuple[str, ...]  # launcher and its rank-count flag

    def compiler(self, source: str) -> str:
        return self.fc if source.endswith((".f90", ".f", ".F90")) else self.cc


KITS = {
    mpi_abi.OPEN_MPI: MpiKit(mpi_abi.OPEN_MPI, "mpicc", "mpif90", ("mpirun", "-np")),
    mpi_abi.MPICH: MpiKit(mpi_abi.MPICH, "mpicc.mpich", "mpif90.mpich", ("mpiexec.mpich", "-n")),
}


def require(kit: MpiKit) -> MpiKit:
    """The kit, or a skip naming what is missing (MPICH is optional where it is not
    installed; `make install` installs it)."""
    if shutil.which(kit.cc) is None or shutil.which(kit.launch[0]) is None:
        if kit.name == mpi_abi.OPEN_MPI:
            pytest.fail(f"{kit.cc} is missing (make install installs Open MPI)")
        pytest.skip(f"{kit.name}: {kit.cc} not installed (make install installs libmpich-dev)")
    if not (native.native_dir() / "lib" / mpi_abi.COLLECTOR_LIBS[kit.name]).exists():
        pytest.skip(f"{kit.name}: gridscope was built without the {kit.name} collector")
    return kit


APP_RANKS = 4
APPS_COMMON = Path(__file__).resolve().parents[2] / "testdata" / "apps" / "common"


class AppRecorder:
    """recorder(source, *args, flags=(), ok="") -> trace anchor of the source compiled with
    the kit's compiler and recorded with `gridscope record -- LAUNCHER 4 EXE ARGS`; the trace
    has passed `otf2-print --silent -Werror`. `stdout` holds the last run's output."""

    def __init__(self, kit: MpiKit, work: Path):
        self.kit, self.work, self.stdout = kit, work, ""
        self.built: dict[tuple[Path, tuple[str, ...]], Path] = {}

    def build(self, source: Path, flags: tuple[str, ...]) -> Path:
        key = (source, flags)
        if key not in self.built:
            exe = self.work / f"{source.stem}-{len(self.built)}"
            cmd = [self.kit.compiler(source.name), "-O1", *flags, "-I", str(APPS_COMMON),
                   "-o", str(exe), str(source)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
            self.built[key] = exe
        return self.built[key]

    def __call__(self, source: Path, *args: str, flags: tuple[str, ...] = (),
                 ok: str = "") -> Path:
        exe = self.build(source, flags)
        out = self.work / f"trace-{exe.name}-{len(list(self.work.glob('trace-*')))}"
        proc = run_gridscope("record", "-o", out, "--", *self.kit.launch, str(APP_RANKS), exe,
                             *args)
        assert f"({self.kit.name} collector)" in proc.stderr
        self.stdout = proc.stdout
        if ok:
            assert ok in proc.stdout, proc.stdout
        anchor = out / "traces.otf2"
        check = otf2text.validate(anchor)
        assert check.returncode == 0, check.stderr[-2000:]
        return anchor
