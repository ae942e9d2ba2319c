"""`gridscope analyze TRACE -o OUT`: find wait states (grid and local) in an OTF2 trace."""

from __future__ import annotations

import gc
from contextlib import ExitStack
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from gridscope.cli.app import app


class Rules(str, Enum):
    """Whose rules where gridscope and Scalasca's scout differ on purpose."""

    scalasca = "scalasca"
    gridscope = "gridscope"


@app.command()
def analyze(
    trace: Path = typer.Argument(..., help="Trace folder (holding traces.otf2) or the traces.otf2 file."),
    output: Path = typer.Option(..., "-o", "--output", help="Analysis folder to write."),
    jobs: int = typer.Option(1, "-j", "--jobs", help="Analysis processes on this host (forked by the engine; no MPI needed)."),
    launcher: Optional[str] = typer.Option(
        None, "--launcher", metavar="CMD",
        help="Run the engine with your own launcher, across nodes: --launcher \"srun -n 64\" or "
        "--launcher \"mpirun -np 64 --hostfile hosts\" runs CMD gridscope-replay --mpi ARGS. The launcher "
        "sets the number of processes (so not with -j N). Trace, output folder and gridscope-replay must "
        "be at the same path on every node."),
    metahosts: Optional[Path] = typer.Option(
        None, "--metahosts", help="Metahost map JSON for traces without metahost IDs (Score-P's)."),
    allow_unmatched: bool = typer.Option(
        False, "--allow-unmatched", help="Analyse even if some messages have no partner."),
    time_correct: bool = typer.Option(
        False, "--time-correct", help="Correct clock-condition violations (controlled logical clock)."),
    latency_node: Optional[float] = typer.Option(
        None, "--latency-node", min=0.0,
        help="Minimum message latency within a node for --time-correct, in s (default: from the trace)."),
    latency_host: Optional[float] = typer.Option(
        None, "--latency-host", min=0.0,
        help="Minimum message latency between nodes of a metahost for --time-correct, in s (default: from the trace)."),
    latency_grid: Optional[float] = typer.Option(
        None, "--latency-grid", min=0.0,
        help="Minimum message latency between metahosts for --time-correct, in s (default: per metahost pair, the "
        "least transfer time of its messages, at least 5e-7; docs/analyzer.md \"Clocks\")."),
    root_causes: Optional[bool] = typer.Option(
        None, "--root-causes/--no-root-causes",
        help="Delay costs, wait-state classes, the critical path and the findings built on them "
        "(docs/root-causes.md). On by default at any size, as in Scalasca; --no-root-causes skips them."),
    gains: Optional[bool] = typer.Option(
        None, "--gains/--no-gains",
        help="Predict what fixing each of the first findings would save, by replaying the run with "
        "gridscope predict (docs/root-causes.md, \"Findings\"). Default: on for runs recorded on a "
        "simulated platform (gridscope record --platform)."),
    rules: Rules = typer.Option(
        Rules.scalasca, "--rules",
        help="Where gridscope and Scalasca's scout differ on purpose: scalasca (the default) gives scout's "
        "numbers; gridscope charges Late Receiver only to standard and synchronous sends, keeps no negative "
        "completion time, counts a wait that delays only a collective as propagating, and charges the "
        "critical-path imbalance impact where scout divides by zero (docs/root-causes.md, \"Rules\")."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Do not print the summary."),
) -> None:
    """Replay the trace in parallel and write profile.cubex, summary.json, waitstates.feather."""
    from gridscope.analysis.driver import AnalyzeOptions, analyze as run

    for hint, value in (("--latency-node", latency_node), ("--latency-host", latency_host),
                        ("--latency-grid", latency_grid)):
        if value is not None and not time_correct:
            raise typer.BadParameter("only with --time-correct", param_hint=hint)
    opts = AnalyzeOptions(trace, output, jobs, metahosts, allow_unmatched, quiet, time_correct,
                          latency_grid_s=latency_grid, launcher=launcher, latency_node_s=latency_node,
                          latency_host_s=latency_host, root_causes=root_causes,
                          rules=rules.value)
    with ExitStack() as stack:
        progress = None if quiet else _spinner(stack)
        summary = run(opts, progress=progress)
        from gridscope.analysis import gains as gains_mod

        if gains_mod.wanted(gains, summary):
            summary = gains_mod.add_gains(Path(output), summary, progress or (lambda _t: None))
    from gridscope.analysis.partial import warning_lines

    # also with -q: the numbers rest on them
    for line in (*summary["repaired_regions"]["warnings"], *summary.get("warnings", ()),
                 *warning_lines(summary)):
        typer.echo(f"gridscope: warning: {trace}: {line}", err=True)
    if not quiet:
        from gridscope.analysis.terminal import print_summary, summary_console

        print_summary(summary, summary_console())
        from gridscope.analysis import names as N

        outputs = (N.PROFILE_FILE, N.SUMMARY_FILE, N.WAITSTATES_FILE, N.CRITICAL_PATH_FILE)
        written = ", ".join(name for name in outputs if (Path(output) / name).is_file())
        summary_console().print(f"wrote {Path(output)}/{{{written}}}")
    # All is written and flushed. What remains are pandas'/pyarrow's many module objects:
    # the interpreter's collections at exit would walk them all (~0.1 s) and free nothing
    # that holds output, so leave them out of those collections.
    gc.freeze()


def _spinner(stack: ExitStack):
    """A progress callback showing a spinner on stderr; rich loads at the first step,
    which the driver reports once the engine runs (so the import overlaps it)."""
    bar = None

    def step(text: str) -> None:
        nonlocal bar
        if bar is None:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            console = Console(stderr=True)  # no spinner (and no blank line left) unless a terminal
            bar = stack.enter_context(Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                               TimeElapsedColumn(), console=console, transient=True,
                                               disable=not console.is_terminal))
            bar.add_task("analysing", total=None)
        bar.update(bar.task_ids[0], description=f"analysing: {text}")

    return step
