"""`gridscope compare`: vanilla against topology-aware collectives on a simulated platform."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gridscope.cli.app import app


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


@app.command(short_help="Vanilla vs topology-aware vs auto collectives on a simulated platform, recorded and analysed.",
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def compare(
    ctx: typer.Context,
    platform: str = typer.Option(..., "--platform", help="Platform preset name or TOML file."),
    np: int = typer.Option(..., "-np", "--np", help="Number of ranks."),
    output: Path = typer.Option(..., "-o", "--output", help="Folder to write (compare.json, "
                                "compare.png, rules.txt, one trace and analysis per run)."),
    app_: Optional[Path] = typer.Option(None, "--app", help="A `gridscope cc --simulate` "
                                        "program to run instead of collbench (its arguments "
                                        "after `--`)."),
    placement: str = typer.Option("block,round-robin", "--placement",
                                  help="Placements to run: block, round-robin or both."),
    modes: str = typer.Option("vanilla,topo,auto", "--modes", help="Collective modes to run."),
    sizes: str = typer.Option("8,1024,65536,1048576", "--sizes",
                              help="Message sizes in bytes (collbench)."),
    ops: str = typer.Option("bcast,reduce,allreduce,gather,allgather,alltoall,barrier", "--ops",
                            help="Collectives to measure (collbench)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Rule table for auto (default: "
                                         "derived from this run's vanilla and topo timings)."),
    no_analysis: bool = typer.Option(False, "--no-analysis", help="Record only; skip the "
                                     "wait-state analysis."),
    force: bool = typer.Option(False, "--force", help="Replace an existing compare folder."),
    late_site: Optional[str] = typer.Option(None, "--late-site", help="Metahost whose ranks "
                                            "arrive late at every timed collbench call; times "
                                            "are then from the last arrival to the last rank "
                                            "leaving, and auto's rules come from extra on-time "
                                            "runs. Needs --late-by."),
    late_by: Optional[float] = typer.Option(None, "--late-by", help="How late --late-site "
                                            "arrives, in milliseconds (simulated computation "
                                            "after each timed call's barrier)."),
    vanilla_from: Optional[Path] = typer.Option(None, "--vanilla-from", help="Take the vanilla "
                                                "runs of an earlier collbench compare folder "
                                                "(same platform, ranks, placements; its sizes "
                                                "and ops covering these) instead of running them "
                                                "again: SimGrid's collectives are the slowest "
                                                "runs and do not change with the library."),
    predict: bool = typer.Option(False, "--predict", help="With --app: also predict the topo run "
                                 "from each vanilla recording (`gridscope predict --collectives "
                                 "topo`); with --modes vanilla the program runs once per placement."),
) -> None:
    """Run a program with vanilla, topology-aware and auto collectives on a simulated platform
    (SimGrid, vanilla = SMPI's 'ompi' selector), record and analyse every run, and write
    OUT/compare.json, a table, a plot and the wait-state comparison."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from gridscope.compare import collbench, driver, report, runs
    from gridscope.errors import GridscopeError

    try:
        size_list = tuple(int(s) for s in _csv(sizes))
    except ValueError:
        raise GridscopeError(None, f"--sizes {sizes!r}: want comma-separated byte counts") from None
    if (late_site is None) != (late_by is None):
        raise GridscopeError(None, "--late-site and --late-by go together")
    late = (collbench.Late(late_site, late_by / 1e3) if late_site is not None and late_by is not None
            else None)
    opts = driver.Options(
        platform=platform, ranks=np, output=output,
        app=[str(app_), *ctx.args] if app_ is not None else None,
        placements=tuple(_csv(placement)), modes=tuple(_csv(modes)), sizes=size_list,
        ops=tuple(_csv(ops)), rules=rules, analyze=not no_analysis, force=force, predict=predict, late=late,
        vanilla_from=vanilla_from)
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # logs and pipes: keep the table's columns whole
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("compare", total=None)
        result = driver.run(opts, progress=lambda msg: bar.update(task, description=msg))
    when = (f"{late_site} {late_by:g} ms late: time from the last arrival to the last rank "
            "leaving" if late else "time per call")
    report.print_table(console, f"{platform}, {np} ranks: {when} (vanilla = SimGrid "
                       f"'{driver.SELECTOR}' selector)", result.rows)
    modes_run = [m for m in report.MODES if m in opts.modes] + ([runs.PREDICTED] if predict else [])
    for pl, rows in result.waitstates.items():
        report.print_waitstates(console, pl, rows, [m for m in modes_run
                                                     if rows and f"{m}_s" in rows[0]])
    console.print(f"wrote {output}/compare.json, compare.png, waitstates.json"
                  + (f"; auto rules: {result.rules}" if result.rules else ""))
