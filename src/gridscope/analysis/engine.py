"""Runs the native replay engine: one process (-j 1), N local processes that the engine forks
itself (-j N, no MPI), or under the user's own launcher (--launcher "srun -n 64", MPI)."""

from __future__ import annotations

import itertools
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Iterator
from pathlib import Path

from gridscope import native
from gridscope.analysis import names as N
from gridscope.errors import GridscopeError

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_mpi_yield_when_idle": "1",  # oversubscribed ranks yield the core instead of spinning
}


def _error_from(stderr: str, returncode: int, trace: Path,
                launcher: list[str] | None = None, scratch: Path | None = None) -> GridscopeError:
    out = scratch.parent if scratch is not None else None
    if returncode == -signal.SIGXFSZ and out is not None:  # the file-size limit (ulimit -f)
        return GridscopeError(out, "cannot write the output: File too large")
    prefix = f"{N.ENGINE_BINARY}: "
    for line in stderr.splitlines():
        if line.startswith(prefix):
            where, _, problem = line[len(prefix):].partition(": ")
            if scratch is not None and Path(where).is_relative_to(scratch):
                # the engine's own files are no business of the user's: the output is
                return GridscopeError(out, f"cannot write the output ({problem})")
            return GridscopeError(where, problem or "analysis failed")
    import shlex

    under = f" under --launcher {shlex.join(launcher)!r}" if launcher else ""
    return GridscopeError(trace, f"analysis engine failed{under}: "
                                 f"{_last_message(stderr) or f'exit status {returncode}'}")


def _last_message(stderr: str) -> str | None:
    """The last line; when the output ends with a block between lines of dashes (as
    Open MPI's mpirun writes its messages), that block's first paragraph as one line."""
    lines = [line.strip() for line in stderr.strip().splitlines()]
    if not lines or set(lines[-1]) != {"-"}:
        return lines[-1] if lines else None
    block = reversed(list(itertools.takewhile(lambda line: set(line) != {"-"}, reversed(lines[:-1]))))
    paragraph = itertools.takewhile(bool, itertools.dropwhile(lambda line: not line, block))
    return " ".join(" ".join(paragraph).split()) or None


def _executable(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise GridscopeError(name, f"not found; {hint}")
    return path


def launcher_prefix(launcher: str) -> list[str]:
    """The words of a --launcher command ("srun -n 64"), its executable checked to exist."""
    try:
        import shlex

        words = shlex.split(launcher)
    except ValueError as err:
        raise GridscopeError(None, f"--launcher {launcher!r}: {err}") from None
    if not words:
        raise GridscopeError(None, "--launcher is empty")
    _executable(words[0], "the --launcher command must be a program on PATH or a path to one")
    return words


def list_ranks(anchor: Path) -> list[tuple[int, str, str]]:
    """(rank, node, metahost) of every rank, as the trace's system tree says."""
    proc = subprocess.run([str(native.binary(N.ENGINE_BINARY)), "--list-ranks", str(anchor)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise _error_from(proc.stderr, proc.returncode, anchor)
    rows = []
    for line in proc.stdout.splitlines():
        rank, node, metahost = line.split("\t")
        rows.append((int(rank), node, metahost))
    return rows


def resolve_anchor(trace: Path) -> Path:
    """The anchor file (traces.otf2) of a trace folder or file, absolute."""
    trace = Path(trace).absolute()
    if not trace.exists():
        raise GridscopeError(trace, "no such trace")
    anchor = trace / "traces.otf2" if trace.is_dir() else trace
    if not anchor.is_file():
        raise GridscopeError(trace, "no OTF2 anchor file (traces.otf2) in this folder")
    if anchor.suffix != ".otf2":
        raise GridscopeError(anchor, "not an OTF2 anchor file (*.otf2)")
    return anchor


def start_engine(anchor: Path, scratch: Path, jobs: int, metahost_file: Path | None,
                 time_correct: bool = False, latencies: dict[str, float | None] | None = None,
                 launcher: list[str] | None = None, via_mpirun: bool = False,
                 root_causes: bool | None = None, rules: str = N.RULES_SCALASCA) -> "EngineRun":
    """Starts the engine (engine_command's arguments)."""
    return launch(engine_command(anchor, scratch, jobs, metahost_file, time_correct, latencies, launcher,
                                 via_mpirun, root_causes, rules))


# How to start the engine for one analysis, what launch() runs: the arguments (a tuple), the
# changes to the environment (a tuple of pairs: MPI settings), the trace's anchor file, the
# engine's output folder and the user's launcher words (a tuple, or None). A plain tuple:
# prelaunch builds one before anything heavier than subprocess is imported.
EngineCommand = namedtuple("EngineCommand", "args env anchor scratch launcher")


def engine_command(anchor: Path, scratch: Path, jobs: int, metahost_file: Path | None,
                   time_correct: bool = False, latencies: dict[str, float | None] | None = None,
                   launcher: list[str] | None = None, via_mpirun: bool = False,
                   root_causes: bool | None = None, rules: str = N.RULES_SCALASCA) -> EngineCommand:
    """With `launcher` (launcher_prefix's words) the engine runs as `LAUNCHER... gridscope-replay
    --mpi ...` and the launcher decides processes and hosts; `jobs` is then not used.
    `via_mpirun` runs -j N under `mpirun -np N` (the MPI transport) instead of the engine's own
    local processes: for benchmarks comparing the two, not a user option."""
    engine = str(native.binary(N.ENGINE_BINARY))
    args = [engine, "-o", str(scratch)]
    if time_correct:
        args.append("--time-correct")
        # explicit minimum latencies by link class ("node", "host", "grid"); None: from the trace
        for link, seconds in (latencies or {}).items():
            if seconds is not None:
                args += [f"--latency-{link}", repr(float(seconds))]
    if metahost_file is not None:
        args += ["--metahost-file", str(metahost_file)]
    if root_causes is not None:  # None: the engine's default (on)
        args += ["--root-causes", "on" if root_causes else "off"]
    args += ["--rules", rules]
    args.append(str(anchor))
    env = {}
    if launcher is not None:
        # The user's launcher and environment as they are (no oversubscription, no
        # transport choice: it may span nodes); --mpi even if the engine does not
        # recognise the launcher's environment.
        args = [*launcher, args[0], "--mpi", *args[1:]]
    elif jobs > 1 and via_mpirun:
        mpirun = _executable("mpirun", "install Open MPI")
        env.update(MPI_ENV)
        # shared memory only (ob1 + vader): skips probing the network transports (UCX)
        args = [mpirun, "-np", str(jobs), "--oversubscribe", "--bind-to", "none",
                "--mca", "pml", "ob1", "--mca", "btl", "self,vader", *args]
    elif jobs > 1:
        # The engine forks its N processes itself (socket pairs, no MPI): mpirun's launch and
        # MPI_Init/MPI_Finalize cost ~0.25 s a run (docs/perf-analyzer.md).
        args = [args[0], "--processes", str(jobs), *args[1:]]
    return EngineCommand(tuple(args), tuple(sorted(env.items())), anchor, scratch,
                         tuple(launcher) if launcher is not None else None)


def _scratch_file():
    """An unnamed read-write text file for the engine's stderr (a pipe nobody reads could fill
    and block the engine): in memory where Linux offers it, else a temporary file (tempfile
    costs ~9 ms of imports before the engine can start)."""
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("gridscope-engine-stderr"), "w+")
    import tempfile

    return tempfile.TemporaryFile(mode="w+")


class ConversionStopped(Exception):
    """The engine failed or was stopped while its wait states were being converted."""


class RowsOnDisk:
    """How many of a lone engine process's wait-state rows are on disk, as the engine says
    them (N.ENGINE_WAIT_ROWS): handed from the thread reading its output to the one
    converting the rows. Iterating yields each count until end(); after stop(), it raises
    ConversionStopped."""

    _END, _STOP = object(), object()

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self.last = 0  # the latest count

    def put(self, rows: int) -> None:
        self.last = rows
        self._queue.put(rows)

    def end(self) -> None:
        """All the rows are on disk (the engine said so, or is done)."""
        self._queue.put(self._END)

    def stop(self) -> None:
        self._queue.put(self._STOP)

    def __iter__(self) -> Iterator[int]:
        while (rows := self._queue.get()) is not self._END:
            if rows is self._STOP:
                raise ConversionStopped
            yield rows


def launch(command: EngineCommand) -> "EngineRun":
    stderr = _scratch_file()
    popen = subprocess.Popen(command.args, stdout=subprocess.PIPE, stderr=stderr, text=True,
                             env=dict(os.environ, **dict(command.env)))
    launcher = list(command.launcher) if command.launcher is not None else None
    return EngineRun(popen, stderr, command.anchor, launcher, command.scratch)


class EngineRun:
    """A running engine, as a context manager: the caller may prepare the next steps
    meanwhile, then wait() and use the output; leaving the block reaps the processes."""

    def __init__(self, popen: subprocess.Popen, stderr, anchor: Path, launcher: list[str] | None = None,
                 scratch: Path | None = None):
        self._popen = popen
        self.started = time.perf_counter()
        self._scratch = Path(scratch).absolute() if scratch is not None else None
        self._stderr = stderr  # a temporary file: a pipe nobody reads could fill and block the engine
        self._anchor = anchor
        self._launcher = launcher
        self._done = False  # N.ENGINE_DONE was read

    def wait_for_wait_states(self, on_rows: Callable[[int], None] | None = None) -> bool:
        """Returns True once the engine says its wait states are written and its root-cause
        pass follows (N.ENGINE_WAITS_WRITTEN), so the caller can convert them meanwhile;
        False when it says all its output is written first (no root causes). Meanwhile
        `on_rows` gets each count of rows a lone engine process says are on disk
        (N.ENGINE_WAIT_ROWS)."""
        for line in self._popen.stdout:
            line = line.rstrip("\n")
            if line == N.ENGINE_WAITS_WRITTEN:
                return True
            if line == N.ENGINE_DONE:
                self._done = True
                return False
            if on_rows is not None and line.startswith(N.ENGINE_WAIT_ROWS):
                on_rows(int(line[len(N.ENGINE_WAIT_ROWS):]))
        self.wait()  # ended without saying either: its error
        return False

    def wait(self) -> None:
        """Returns once the engine says all its output is written (N.ENGINE_DONE on
        stdout), before its processes have exited: freeing the records (and under a launcher
        MPI_Finalize and the launcher's teardown) take 0.03-0.08 s that the caller can use
        (docs/perf-analyzer.md)."""
        if self._done:
            return
        for line in self._popen.stdout:
            if line.rstrip("\n") == N.ENGINE_DONE:
                self._done = True
                return
        if self._popen.wait() == -signal.SIGINT:  # Ctrl-C reached the engine first
            raise KeyboardInterrupt
        if self._popen.returncode != 0:
            self._stderr.seek(0)
            raise _error_from(self._stderr.read(), self._popen.returncode, self._anchor, self._launcher,
                              self._scratch)

    def __enter__(self) -> "EngineRun":
        return self

    def __exit__(self, *exc) -> None:
        """Reaps the processes (killed if they have not exited within a minute): once the output
        is written, without waiting for them; a failure while they shut down loses nothing, so
        it is not reported. Left by an exception (SIGTERM, a failed step), the engine is told to
        stop first and awaited."""
        self.reap(stop=exc[0] is not None)

    def reap(self, stop: bool) -> None:
        if not stop and self._done:
            # The output is complete: the processes free their memory and exit on their own
            # (0.03-0.06 s with root causes, the records and time maps of a large trace); a
            # thread reaps them, nobody waits.
            threading.Thread(target=self._close, daemon=True).start()
            return
        if stop and self._popen.poll() is None:
            self._popen.terminate()  # process 0 (or the launcher) stops the others
        self._close()

    def _close(self) -> None:
        try:
            self._popen.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._popen.kill()
            self._popen.wait()
        self._popen.stdout.close()
        self._stderr.close()
