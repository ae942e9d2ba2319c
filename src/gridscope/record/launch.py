"""`gridscope record -- mpirun ...`: run a real MPI program with the collector preloaded.

The collector (libgridscope_collector.so, or libgridscope_collector_mpich.so for programs
linked with MPICH: record/mpi_abi.py) is configured through the environment
(docs/collector.md); for Open MPI's mpirun each variable is also forwarded with `-x VAR`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError
from gridscope.record import ends, mpi_abi

PARTS_MARK = "%m"
ANCHOR = "traces.otf2"
COLLECTOR_LIB = mpi_abi.COLLECTOR_LIBS[mpi_abi.OPEN_MPI]
COLL_LIB = "libgridscope_coll.so"
REPAIR_TOOL = "gridscope-trace-repair"
# The creator the collector's start-up anchor carries until MPI_Finalize replaces it.
PROVISIONAL_MARK = b"(provisional definitions)"
_SIZE = re.compile(r"^\d+(\.\d+)?[kKmMgG]?[bB]?$")
_OPEN_MPI_LAUNCHERS = {"mpirun", "mpiexec", "orterun", "oshrun"}
_LAUNCHERS = _OPEN_MPI_LAUNCHERS | {"srun", "mpirun.openmpi", "mpiexec.openmpi", "mpirun.mpich",
                                    "mpiexec.mpich", "mpiexec.hydra"}
# Open MPI kills the remaining ranks 1 s after a failure; a crashed run needs a moment
# to flush every rank's trace buffer (docs/collector.md, "Crashes"). With 2 s, 5 of 12
# crashed runs on a loaded machine lost a rank's events; the surviving ranks sit out the
# whole grace, so it adds that much to every crashed run.
_KILL_GRACE_VAR = "OMPI_MCA_odls_base_sigkill_timeout"
_KILL_GRACE_SECONDS = "5"


@dataclass(frozen=True)
class LaunchPlan:
    """What record_real runs: the command line and the environment it adds."""

    command: list[str]
    env: dict[str, str]
    trace_dir: Path
    parts: bool
    mpi: str = mpi_abi.OPEN_MPI  # the MPI library the collector was built for


def default_output(command: list[str]) -> Path:
    """Scalasca-style name: gridscope_<program>_<ranks> in the current folder."""
    program, ranks = None, None
    args = command[1:] if Path(command[0]).name in _LAUNCHERS else command
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-np", "-n", "--np", "-c") and i + 1 < len(args):
            ranks = args[i + 1]
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        program = Path(a).name
        break
    name = f"gridscope_{program or 'run'}"
    return Path(f"{name}_{ranks}" if ranks else name)


def check_buffer(buffer: str) -> str:
    if not _SIZE.match(buffer.strip()):
        raise GridscopeError("--buffer", f"bad size '{buffer}' (want e.g. 16M, 512K, 1G)")
    return buffer.strip()


def prepare_output(output: Path, force: bool) -> None:
    """Refuse to overwrite a trace unless forced; never delete something else."""
    if not output.exists():
        return
    if not force:
        raise GridscopeError(output, "already exists (use --force to replace it)")
    if not output.is_dir():
        raise GridscopeError(output, "exists and is not a trace folder; not replacing it")
    entries = {p.name for p in output.iterdir()}
    looks_like_trace = not entries or ANCHOR in entries or any(
        (output / e / ANCHOR).exists() for e in entries)
    if not looks_like_trace:
        raise GridscopeError(output, "exists and does not hold a trace; not replacing it")
    shutil.rmtree(output)


def _is_open_mpi(launcher: str) -> bool:
    if Path(launcher).name not in _OPEN_MPI_LAUNCHERS:
        return False
    try:
        out = subprocess.run([launcher, "--version"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out.stdout + out.stderr or "OpenRTE" in out.stdout + out.stderr


def collector_for(command: list[str], coll: str) -> tuple[str, Path]:
    """(the MPI the command's program uses, the collector library built for it)."""
    mpi, exe = mpi_abi.choose(command)
    if mpi == mpi_abi.OPEN_MPI:
        return mpi, native.library(COLLECTOR_LIB)
    if coll != "vanilla":
        raise GridscopeError("--coll", "the topology-aware collectives are built for Open "
                                       "MPI only; record this MPICH program with --coll vanilla")
    lib = native.native_dir() / "lib" / mpi_abi.COLLECTOR_LIBS[mpi]
    if not lib.exists():
        raise GridscopeError(exe or command[0], "is an MPICH program, but gridscope was built "
                                                "without MPICH (install libmpich-dev, then "
                                                "make install)")
    large = mpi_abi.unrecorded_f08(exe, lib) if exe is not None else []
    if large:
        raise GridscopeError(exe, f"calls {', '.join(large)} with MPI_COUNT_KIND counts "
                                  "(MPICH's mpi_f08 large-count procedures, MPI-4's "
                                  "MPI_<Name>_c), which gridscope does not record")
    return mpi, lib


def plan_launch(command: list[str], output: Path, metahosts: Path | None, coll: str,
                buffer: str) -> LaunchPlan:
    mpi, collector = collector_for(command, coll)
    preload = [str(collector)]
    env = {
        "GRIDSCOPE_TRACE_DIR": str(output.resolve()) if PARTS_MARK not in str(output)
        else os.path.abspath(str(output)),
        "GRIDSCOPE_BUFFER": buffer,
        "GRIDSCOPE_COLL": coll,
    }
    if coll != "vanilla":
        # After the collector: its MPI_<Op> wrappers must win over the library's own weak
        # MPI_<Op> entry points; they call GSColl_<Op>, which only the library defines.
        preload.append(str(native.library(COLL_LIB)))
    if metahosts is not None:
        from gridscope.metahosts import load_map

        load_map(metahosts)  # one clear error now rather than one per rank later
        env["GRIDSCOPE_METAHOST_MAP"] = str(metahosts.resolve())
    inherited = os.environ.get("LD_PRELOAD")
    env["LD_PRELOAD"] = ":".join(preload + ([inherited] if inherited else []))
    if _KILL_GRACE_VAR not in os.environ:
        env[_KILL_GRACE_VAR] = _KILL_GRACE_SECONDS

    cmd = list(command)
    if _is_open_mpi(cmd[0]):
        forwarded = [v for v in env if v != _KILL_GRACE_VAR]
        # Variables the user set for the collector by hand travel too.
        forwarded += sorted(v for v in os.environ
                            if v.startswith("GRIDSCOPE_") and v not in env)
        cmd[1:1] = [x for v in forwarded for x in ("-x", v)]
    return LaunchPlan(cmd, env, Path(env["GRIDSCOPE_TRACE_DIR"]), PARTS_MARK in str(output), mpi)


def _part_dirs(plan: LaunchPlan) -> list[Path]:
    """The per-metahost folders the run wrote (the trace folder with %m as a wildcard)."""
    pattern = str(plan.trace_dir).replace(PARTS_MARK, "*")
    return sorted(p for p in map(Path, glob.glob(pattern)) if (p / ANCHOR).exists())


def _ended_early(trace_dir: Path, returncode: int) -> bool:
    """Whether some rank may not have ended through MPI_Finalize: the program failed, a
    rank left a side file (its crash flush), or the anchor is still the start-up one."""
    if returncode != 0 or any((trace_dir / "traces").glob("*.gsunify")):
        return True
    return PROVISIONAL_MARK in (trace_dir / ANCHOR).read_bytes()


def _repair_and_locate(trace_dir: Path) -> list[ends.RankEnd]:
    """After a crash: unify the definitions the ranks left beside their events, and learn
    where each rank's events end (gridscope-trace-repair --ends)."""
    repaired = subprocess.run([str(native.binary(REPAIR_TOOL)), "--ends", str(trace_dir)],
                              capture_output=True, text=True)
    if repaired.returncode != 0:
        line = (repaired.stderr.strip().splitlines() or ["failed"])[0]
        print(f"{line} (start-up definitions kept)", file=sys.stderr)
    return ends.parse(repaired.stdout)


def _say_what_was_kept(trace_dir: Path, returncode: int) -> int:
    """Repairs the trace of a run that ended early and says, rank by rank, what it holds;
    returns the exit status for `record` (the program's, or 1 when the program reported
    success but a rank ended without MPI_Finalize); 0 when nothing ended early."""
    if not _ended_early(trace_dir, returncode):
        return 0
    found = _repair_and_locate(trace_dir)
    lines = ends.report(found)
    if returncode == 0 and not lines:
        return 0
    print("gridscope: the run ended early; what the trace holds:", file=sys.stderr)
    for line in lines:
        print(f"  {line}", file=sys.stderr)
    lost = ends.lost_ranks(found)
    held = (f"events of rank{'s' if len(lost) > 1 else ''} "
            f"{', '.join(map(str, lost))} were lost" if lost
            else "every rank's events up to its end are kept")
    if returncode != 0:
        print(f"gridscope: the program exited with status {returncode}; {held}",
              file=sys.stderr)
        return returncode
    print(f"gridscope: the program exited with status 0 but did not end through "
          f"MPI_Finalize on every rank; {held}", file=sys.stderr)
    return 1


def _run_through_ctrl_c(command: list[str], env: dict[str, str]) -> int:
    """Runs the launcher to its end and returns its status. Ctrl-C reaches the launcher
    too (one process group): it ends the ranks, which flush their events; record waits for
    that and then says what the trace holds, instead of leaving at once."""
    child = subprocess.Popen(command, env=env)
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        return child.wait()
    finally:
        signal.signal(signal.SIGINT, previous)


def record_real(command: list[str], output: Path | None, metahosts: Path | None, coll: str,
                buffer: str, force: bool) -> None:
    """Run `command` (an mpirun line) with the collector; leave an OTF2 trace in output."""
    if not command:
        raise GridscopeError(None, "give the MPI launch command after `--`")
    if shutil.which(command[0]) is None and not Path(command[0]).exists():
        raise GridscopeError(command[0], "command not found")
    buffer = check_buffer(buffer)
    output = output if output is not None else default_output(command)
    if PARTS_MARK not in str(output):
        prepare_output(output, force)
    plan = plan_launch(command, output, metahosts, coll, buffer)
    if plan.parts:
        for old in _part_dirs(plan):
            if not force:
                raise GridscopeError(old, "already holds a trace part (use --force to replace it)")
            prepare_output(old, force)

    print(f"gridscope: recording {' '.join(command)} ({plan.mpi} collector)", file=sys.stderr)
    try:
        returncode = _run_through_ctrl_c(plan.command, {**os.environ, **plan.env})
    except OSError as err:
        raise GridscopeError(command[0], f"cannot start: {err.strerror}") from None
    proc = subprocess.CompletedProcess(plan.command, returncode)

    if plan.parts:
        parts = _part_dirs(plan)
        if not parts:
            raise GridscopeError(output, "no trace parts were written")
        print("gridscope: trace parts (join with `gridscope merge`):", file=sys.stderr)
        for part in parts:
            print(f"  {part}", file=sys.stderr)
    else:
        anchor = plan.trace_dir / ANCHOR
        if not anchor.exists():
            raise GridscopeError(
                plan.trace_dir,
                "no trace was written (is the program an MPI program built with this MPI?)")
        print(f"gridscope: trace written to {anchor}", file=sys.stderr)
    if plan.parts:
        if proc.returncode != 0:
            print(f"gridscope: the program exited with status {proc.returncode}; the trace "
                  "parts hold the events up to the failure", file=sys.stderr)
            raise SystemExit(proc.returncode)
        return
    status = _say_what_was_kept(plan.trace_dir, proc.returncode)
    if status != 0:
        raise SystemExit(status)
