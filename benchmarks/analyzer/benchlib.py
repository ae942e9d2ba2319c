"""Helpers shared by the analyzer benchmarks (bench_analyzer.py, bench_matrix.py):
native binaries, the MPI environment, timed commands with their CPU time, medians."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
GRIDSCOPE = [sys.executable, "-m", "gridscope"]

CPU: dict[str, list[float]] = {}  # command label -> CPU seconds (user + system) of each run, children included


def native_bin(name: str) -> str:
    from gridscope import native

    return str(native.binary(name))


def become_subreaper() -> None:
    """Orphaned descendants are re-parented to this process: `gridscope analyze` does not wait
    for the engine's exit (nor the driver's EngineRun), so an engine may still be exiting
    when the command ends; reaped here (reap_orphans), its CPU time reaches RUSAGE_CHILDREN."""
    import ctypes

    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def reap_orphans() -> None:
    """Waits for every child and orphan left (see become_subreaper)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


become_subreaper()  # (before any command: the benchmarks' CPU figures need it)


def cpu_seconds() -> float:
    reap_orphans()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd: list[str], env: dict | None = None, label: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """Wall time of a command; its CPU time (robust against a busy machine) goes to CPU[label].
    A failing command ends the benchmark with its stderr."""
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if label:
        CPU.setdefault(label, []).append(cpu_seconds() - cpu0)
    if proc.returncode != 0:
        sys.exit(f"benchmark: {' '.join(cmd)} failed:\n{proc.stderr}")
    return elapsed, proc


def installed_python_env() -> dict:
    """The environment for timing gridscope's Python commands as an installed gridscope runs:
    byte-compiled (pip compiles a package as it installs it). A development tree run with
    PYTHONDONTWRITEBYTECODE set compiles every module of it on every run instead, about 20 ms
    of the command's start. Its byte code (__pycache__, ignored by git) is written here once."""
    import gridscope

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(gridscope.__file__).parent)],
                   env=env, check=True)
    return env


def median(values) -> float:
    return statistics.median(list(values))


def warm(folder: Path) -> None:
    """Reads every file of a trace folder (not timed), so the measurement after it finds the
    trace in the page cache: on a machine that reclaims idle pages (docs/perf-analyzer.md,
    "Tenth round") the first reader would otherwise pay the disk, whichever it is."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with open(path, "rb") as f:
                while f.read(1 << 20):
                    pass


def raw_read(anchor: str, label: str | None = "raw") -> tuple[float, int]:
    """The baseline: gs-rawread visiting every event; (wall seconds, events)."""
    t, proc = timed([native_bin("gs-rawread"), anchor], label=label)
    return t, int(proc.stdout.split()[0])
