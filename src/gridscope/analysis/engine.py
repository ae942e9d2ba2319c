"""Runs the native replay engine: one process without MPI (-j 1), or N under mpirun."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from gridscope import native
from gridscope.analysis import names as N
from gridscope.errors import GridscopeError

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
}


def _error_from(proc: subprocess.CompletedProcess, trace: Path) -> GridscopeError:
    prefix = f"{N.ENGINE_BINARY}: "
    for line in proc.stderr.splitlines():
        if line.startswith(prefix):
            where, _, problem = line[len(prefix):].partition(": ")
            return GridscopeError(where, problem or "analysis failed")
    tail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
    return GridscopeError(trace, f"analysis engine failed: {tail[0]}")


def list_ranks(anchor: Path) -> list[tuple[int, str, str]]:
    """(rank, node, metahost) of every rank, as the trace's system tree says."""
    proc = subprocess.run([str(native.binary(N.ENGINE_BINARY)), "--list-ranks", str(anchor)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise _error_from(proc, anchor)
    rows = []
    for line in proc.stdout.splitlines():
        rank, node, metahost = line.split("\t")
        rows.append((int(rank), node, metahost))
    return rows


def start_engine(anchor: Path, scratch: Path, jobs: int, metahost_file: Path | None,
                 time_correct: bool = False, latency_grid_s: float | None = None) -> "EngineRun":
    engine = str(native.binary(N.ENGINE_BINARY))
    args = [engine, "-o", str(scratch)]
    if time_correct:
        args.append("--time-correct")
        if latency_grid_s is not None:
            args += ["--latency-grid", repr(float(latency_grid_s))]
    if metahost_file is not None:
        args += ["--metahost-file", str(metahost_file)]
    args.append(str(anchor))
    env = dict(os.environ)
    if jobs > 1:
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            raise GridscopeError("mpirun", "not found; install Open MPI or use -j 1")
        env.update(MPI_ENV)
        # -j N runs on this host: shared memory is the only transport needed. Choosing the
        # ob1 messaging layer up front skips probing the network ones (UCX), which halves
        # the launch (0.38 -> 0.16 s for 2 processes on a tiny trace, docs/perf-analyzer.md).
        args = [mpirun, "-np", str(jobs), "--oversubscribe", "--bind-to", "none",
                "--mca", "pml", "ob1", "--mca", "btl", "self,vader", *args]
    return EngineRun(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env),
                     anchor)


class EngineRun:
    """A running engine; the caller may prepare the next steps meanwhile, then wait()."""

    def __init__(self, popen: subprocess.Popen, anchor: Path):
        self._popen = popen
        self._anchor = anchor

    def wait(self) -> None:
        stdout, stderr = self._popen.communicate()
        proc = subprocess.CompletedProcess(self._popen.args, self._popen.returncode, stdout, stderr)
        if proc.returncode != 0:
            raise _error_from(proc, self._anchor)

    def kill(self) -> None:
        if self._popen.poll() is None:
            self._popen.kill()
            self._popen.wait()


def run_engine(anchor: Path, scratch: Path, jobs: int, metahost_file: Path | None) -> None:
    start_engine(anchor, scratch, jobs, metahost_file).wait()
