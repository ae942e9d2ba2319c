"""Which MPI library a recorded program uses, so `gridscope record` preloads the collector
built for that library's ABI (docs/collector.md, "Two MPI libraries").

Open MPI and MPICH differ in their handle types and constants, so a collector built
against one cannot run in a program linked with the other. The program decides: the MPI
library its executable loads (`ldd`), else the launcher (its name, or what
`LAUNCHER --version` says), else Open MPI, the system default.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

OPEN_MPI, MPICH = "openmpi", "mpich"
COLLECTOR_LIBS = {OPEN_MPI: "libgridscope_collector.so", MPICH: "libgridscope_collector_mpich.so"}
_LIBMPI = re.compile(r"^\s*(libmpich|libmpi)\.so[.\d]*\s", re.MULTILINE)
_ELF_MAGIC = b"\x7fELF"
_F08_LARGE = re.compile(r"^(mpi_\w+?)_f08(?:ts)?_large_$")


def _executable(token: str) -> Path | None:
    """The ELF file a command-line token names, if any."""
    path = Path(token) if "/" in token else Path(shutil.which(token) or token)
    try:
        with path.open("rb") as f:
            return path if f.read(4) == _ELF_MAGIC else None
    except OSError:
        return None


def _run(args: list[str]) -> str:
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout + proc.stderr


def linked_mpi(exe: Path) -> str | None:
    """OPEN_MPI or MPICH when the executable loads that library, else None."""
    found = {m.group(1) for m in _LIBMPI.finditer(_run(["ldd", str(exe)]))}
    if found == {"libmpich"}:
        return MPICH
    if found == {"libmpi"}:
        return OPEN_MPI
    return None


def launcher_mpi(launcher: str) -> str | None:
    name = Path(launcher).name
    if "mpich" in name or "hydra" in name:
        return MPICH
    if "openmpi" in name or name == "orterun":
        return OPEN_MPI
    if name not in ("mpirun", "mpiexec"):
        return None
    said = _run([launcher, "--version"])
    if "HYDRA" in said:
        return MPICH
    if "Open MPI" in said or "OpenRTE" in said:
        return OPEN_MPI
    return None


def program(command: list[str]) -> tuple[Path | None, str | None]:
    """(the program's executable, the MPI it loads): the first executable on the command
    line after the launcher that loads an MPI library."""
    for token in command[1:] + command[:1]:
        exe = _executable(token)
        mpi = linked_mpi(exe) if exe else None
        if mpi:
            return exe, mpi
    return None, None


def _dynamic_symbols(lib: Path, defined: bool) -> set[str]:
    out = _run(["nm", "-D", "--defined-only" if defined else "--undefined-only", str(lib)])
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def unrecorded_f08(exe: Path, collector: Path) -> list[str]:
    """The wrapped MPI functions (those `collector` defines) an MPICH program calls through
    MPICH's mpi_f08 large-count procedures `mpi_<name>_f08[ts]_large_` (counts of
    KIND=MPI_COUNT_KIND, which call MPI-4's MPI_<Name>_c): the collector records none of
    those, so their messages and collectives would be missing from the trace."""
    wrapped = {s.lower(): s for s in _dynamic_symbols(collector, True) if s.startswith("MPI_")}
    large = (_F08_LARGE.match(s) for s in _dynamic_symbols(exe, False))
    return sorted({wrapped[m.group(1)] for m in large if m and m.group(1) in wrapped})


def choose(command: list[str]) -> tuple[str, Path | None]:
    """(the MPI to record the command with, the program's executable when found)."""
    exe, mpi = program(command)
    return mpi or (launcher_mpi(command[0]) if command else None) or OPEN_MPI, exe
