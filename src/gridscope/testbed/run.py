"""Simulated `gridscope record --platform P`: run a `gridscope cc --simulate` binary under
SimGrid's smpirun on the platform and leave DIR/traces.otf2.

DIR also keeps what is needed to repeat the run: platform.xml, hostfile (one line per
rank), wan.txt (the WAN graph the topology-aware collectives route over, named by
GRIDSCOPE_COLL_WAN), smpirun.log (SimGrid's messages), record.json (the settings).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError
from gridscope.testbed import placement as placement_mod
from gridscope.testbed.platform import Platform, load_platform
from gridscope.testbed.simgrid_xml import model_config, platform_xml
from gridscope.testbed.packet_settings import NS3_ENV
from gridscope.testbed.wan_graph import WAN_FILE, WAN_VAR, wan_graph_text

SMPIRUN = "smpirun"
TRACE_ANCHOR = "traces.otf2"
PLATFORM_XML = "platform.xml"  # the SimGrid platform a run used, beside its trace
STDERR_TAIL_LINES = 15
LAUNCHERS = {"mpirun", "mpiexec", "smpirun", "srun", "orterun"}
# SimGrid exits 0 after these; they still mean the simulated program failed.
FAILURE_MARKS = {
    "MPI_Abort was called": "the program called MPI_Abort",
    "Deadlock detected": "the simulated program deadlocked",
}

# SimGrid settings every simulated run uses (see docs/testbed.md):
SIM_CONFIG = (
    # computation is modelled (smpi_execute_flops, sleeps), never benchmarked: deterministic
    "--cfg=smpi/simulate-computation:no",
    # vanilla collectives: SMPI's re-implementation of Open MPI's algorithm selection
    "--cfg=smpi/coll-selector:ompi",
    # MPI_Test/MPI_Iprobe cost about a microsecond, as on a real MPI; SMPI's defaults
    # (0.1 ms, doubling while nothing completes) would distort codes that poll
    "--cfg=smpi/test:1e-6",
    "--cfg=smpi/iprobe:1e-6",
    "--cfg=smpi/grow-injected-times:no",
    # keep SimGrid's "configuration changed" chatter out of the program's output
    "--log=xbt_cfg.thresh:warning",
    "--log=smpi_coll.thresh:warning",
    "--log=smpi_colls.thresh:warning",
    "--log=smpi_config.thresh:warning",
)
def sim_config(platform: Platform) -> tuple[str, ...]:
    """The SimGrid settings of a run on PLATFORM."""
    # the network model reproduces the configured latency/bandwidth (SMPI's default model
    # rescales them), with the platform's flow fairness
    return tuple(f"--cfg={c}" for c in model_config(platform)) + SIM_CONFIG


@dataclass(frozen=True)
class SimulatedRun:
    platform: Platform
    program: str
    hosts: list[str]
    output: Path
    argv: list[str]
    env: dict[str, str]


def default_output(command: list[str], platform: Platform, np: int) -> Path:
    program = Path(command[0]).name
    return Path(f"gridscope_{program}_{platform.name}_{np}")


def _is_trace_folder(path: Path) -> bool:
    return path.is_dir() and (not any(path.iterdir()) or (path / TRACE_ANCHOR).exists()
                              or (path / "record.json").exists())


def _clear_output(out: Path, force: bool) -> None:
    """Refuse to overwrite, or with --force replace, an earlier trace folder (only that)."""
    if not out.exists():
        return
    if not force:
        raise GridscopeError(out, "already exists; use --force to replace it")
    if not _is_trace_folder(out):
        raise GridscopeError(out, "exists and is not a gridscope trace folder; "
                             "not replacing it even with --force")
    shutil.rmtree(out)


def prepare(command: list[str], platform: str, np: int | None, layout: str | None,
            placement: str, coll: str, output: Path | None, buffer: str,
            force: bool, hosts: list[str] | None = None) -> SimulatedRun:
    """Check the inputs and build the smpirun command (no side effects but DIR).
    HOSTS, when given, is each rank's host (gridscope predict places ranks itself)."""
    if not command:
        raise GridscopeError(None, "give the program to run after `--`")
    program = command[0]
    if Path(program).name in LAUNCHERS:
        raise GridscopeError(program, "with --platform give the program itself "
                             "(`-- ./app args`); gridscope runs smpirun")
    program_path = Path(program)
    if not program_path.is_file() and os.sep not in program:
        program_path = Path(shutil.which(program) or program)  # a bare name: search PATH
    if not program_path.is_file():
        raise GridscopeError(program, "program does not exist")
    # smpirun dlopen()s the program: a bare relative name would be looked up as a library
    program_path = program_path.resolve()
    plat = load_platform(platform)
    try:
        if hosts is None:
            hosts = placement_mod.hosts_for_ranks(plat, np, layout, placement)
    except placement_mod.PlacementError as err:
        raise GridscopeError(plat.source, str(err)) from None
    if plat.packet:
        _check_one_rank_per_node(plat, hosts)
    out = output if output is not None else default_output(command, plat, len(hosts))
    _clear_output(out, force)
    if shutil.which(SMPIRUN) is None:
        raise GridscopeError(SMPIRUN, "not found; install SimGrid (Debian: simgrid, "
                             "libsimgrid-dev)")
    out.mkdir(parents=True)
    out = out.resolve()
    argv = [SMPIRUN, "-platform", str(out / PLATFORM_XML), "-hostfile",
            str(out / "hostfile"), "-np", str(len(hosts)), *sim_config(plat),
            str(program_path), *command[1:]]
    env = dict(os.environ)
    # metahosts come from the platform (the netzone around each simulated host); a map or
    # name left in the environment would override that for every rank
    for var in ("GRIDSCOPE_METAHOST", "GRIDSCOPE_METAHOST_MAP"):
        env.pop(var, None)
    env.update({"GRIDSCOPE_TRACE_DIR": str(out), "GRIDSCOPE_BUFFER": buffer,
                "GRIDSCOPE_COLL": coll})
    if len(plat.metahosts) > 1:  # the WAN graph the collectives route over, from the platform
        env[WAN_VAR] = str(out / WAN_FILE)
    env.pop(NS3_ENV, None)  # ns-3's settings come from the platform alone
    if plat.packet:
        env[NS3_ENV] = plat.settings.ns3_env()
    return SimulatedRun(plat, program, hosts, out, argv, env)


def _check_one_rank_per_node(plat: Platform, hosts: list[str]) -> None:
    """SimGrid's ns-3 binding ends a message between two ranks of one node at once."""
    shared = sorted(h for h, n in Counter(hosts).items() if n > 1)
    if shared:
        nodes = sum(mh.nodes for mh in plat.metahosts)
        raise GridscopeError(plat.source, f"the packet network takes one rank per node, but "
                             f"{len(hosts)} ranks on {nodes} nodes put several on {shared[0]}; "
                             "give fewer ranks or a --layout that fits")


def _write_inputs(run: SimulatedRun, command: list[str], layout: str | None,
                  placement: str, coll: str) -> None:
    (run.output / PLATFORM_XML).write_text(platform_xml(run.platform))
    (run.output / "hostfile").write_text("".join(h + "\n" for h in run.hosts))
    if WAN_VAR in run.env:
        (run.output / WAN_FILE).write_text(wan_graph_text(run.platform))
    settings = {"command": command, "platform": run.platform.source, "np": len(run.hosts),
                "layout": layout, "placement": placement, "coll": coll, "hosts": run.hosts,
                "smpirun": run.argv}
    if NS3_ENV in run.env:
        settings["environment"] = {NS3_ENV: run.env[NS3_ENV]}
    (run.output / "record.json").write_text(json.dumps(settings, indent=2) + "\n")


def _pump(stream, sink, lines: deque | None = None, echo=None,
          problems: list[str] | None = None) -> None:
    for line in stream:
        sink.write(line)
        sink.flush()
        if lines is not None:
            lines.append(line.rstrip("\n"))
        if echo is not None:
            echo(line.rstrip("\n"))
        if problems is not None:
            problems += [why for mark, why in FAILURE_MARKS.items()
                         if mark in line and why not in problems]


def _echo(console, escape):
    if console.is_terminal:
        return lambda line: console.print(escape(line), highlight=False, soft_wrap=True)
    return lambda line: print(line, flush=True)


def execute(run: SimulatedRun) -> None:
    """Run smpirun with a progress spinner; the program's output is passed through."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    # The spinner shares standard output with the program's lines, and only when that is
    # a terminal: redirected output stays exactly what the program printed.
    console = Console()
    tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
    problems: list[str] = []
    program = run.program
    label = (f"simulating {Path(program).name}: {len(run.hosts)} ranks on "
             f"{run.platform.name} ({', '.join(m.name for m in run.platform.metahosts)})")
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as bar:
        bar.add_task(label, total=None)
        with open(run.output / "smpirun.log", "w") as log, \
                open(run.output / "stdout.log", "w") as out_log:
            proc = subprocess.Popen(run.argv, env=run.env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, errors="replace")
            try:
                err_thread = threading.Thread(target=_pump,
                                              args=(proc.stderr, log, tail, None, problems))
                err_thread.start()
                _pump(proc.stdout, out_log, None, _echo(bar.console, escape))
                err_thread.join()
                code = proc.wait()
            except BaseException:
                proc.kill()
                proc.wait()
                raise
    if code != 0 or problems:
        for line in tail:
            print(line, file=sys.stderr)
        if FAILURE_MARKS["MPI_Abort was called"] in problems:  # the deadlock follows from it
            problems = [FAILURE_MARKS["MPI_Abort was called"]]
        why = ", ".join(([f"exit {code}"] if code else []) + problems)
        raise GridscopeError(program, f"smpirun failed ({why}) on platform "
                             f"{run.platform.name}; SimGrid's messages are in "
                             f"{run.output / 'smpirun.log'} (last lines above)")


def record_simulated(command: list[str], platform: str, np: int | None, layout: str | None,
                     placement: str, coll: str, output: Path | None, buffer: str,
                     force: bool, hosts: list[str] | None = None) -> Path:
    """Run COMMAND on the simulated PLATFORM; returns DIR (holding traces.otf2)."""
    run = prepare(command, platform, np, layout, placement, coll, output, buffer, force, hosts)
    _write_inputs(run, command, layout, placement, coll)
    execute(run)
    anchor = run.output / TRACE_ANCHOR
    if not anchor.is_file():
        raise GridscopeError(command[0], f"ran, but left no trace ({anchor} is missing); "
                             "build it with `gridscope cc --simulate`")
    print(f"trace: {anchor}", file=sys.stderr)
    return run.output
