"""`gridscope predict TRACE|RUN -o OUT`: what-if replay of a recorded run on a simulated grid."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gridscope.cli.app import app


@app.command(short_help="Predict a recorded run on another (simulated) grid, with other collectives or faster code.")
def predict(
    trace: Path = typer.Argument(..., help="Trace folder or traces.otf2, or a run/analysis folder."),
    output: Path = typer.Option(..., "-o", "--output", help="Folder to write: trace/ (the predicted "
                                "trace) and its analysis (as `gridscope analyze`)."),
    platform: Optional[str] = typer.Option(None, "--platform", help="Platform preset or TOML file "
                                           "(default: the one the run was recorded on)."),
    collectives: Optional[str] = typer.Option(None, "--collectives", help="vanilla (SMPI's), topo, "
                                              "auto, or a rule table file (default: as recorded, "
                                              "else vanilla)."),
    speedup: Optional[List[str]] = typer.Option(None, "--speedup", metavar="REGION[@RANKS]=FACTOR",
                                                help="Scale the computation inside a user region "
                                                "(0.8: 20 % faster), on RANKS only when given (5, "
                                                "4-7,9); repeatable."),
    placement: str = typer.Option("metahost", "--placement", help="metahost (each trace metahost "
                                  "onto the platform site of that name), block, round-robin, or a "
                                  "metahost map file naming each rank's site."),
    metahosts: Optional[Path] = typer.Option(None, "--metahosts", help="Metahost map JSON "
                                             "relabelling the trace's ranks (as `analyze --metahosts`; "
                                             "for Score-P traces), each metahost then onto the site "
                                             "of its name."),
    jobs: int = typer.Option(1, "-j", "--jobs", help="Analysis processes."),
    force: bool = typer.Option(False, "--force", help="Replace an existing prediction folder."),
) -> None:
    """Replay the recorded run's MPI calls and computation in SimGrid (SMPI) on PLATFORM and
    write the predicted trace plus its analysis; summary.json says it is a prediction."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from gridscope.predict import driver

    opts = driver.Options(trace=trace, output=output, platform=platform, collectives=collectives,
                          speedups=driver.parse_speedups(speedup or []), placement=placement,
                          metahosts=metahosts,
                          jobs=jobs, force=force)
    console = Console(stderr=True)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("predict", total=None)
        summary = driver.run(opts, progress=lambda msg: bar.update(task, description=msg))
    pred = summary[driver.PREDICTION_KEY]
    typer.echo(f"predicted total time {summary['total_time_s']:.3f} s on {pred['platform']} "
               f"({pred['collectives']} collectives)")
    for what, n in pred["approximations"].items():
        typer.echo(f"approximation: {what} ({n}x)")
    typer.echo(f"wrote {output}/{{trace/, profile.cubex, summary.json, waitstates.feather}}")
