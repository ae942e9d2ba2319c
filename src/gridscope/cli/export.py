"""`gridscope export TRACE|RUN --format perfetto|otf2|parquet -o OUT`."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from gridscope.cli.app import app


class Format(str, Enum):
    perfetto = "perfetto"
    otf2 = "otf2"
    parquet = "parquet"


@app.command()
def export(
    source: Path = typer.Argument(..., help="A trace (folder with traces.otf2, or the .otf2 file) or an analysis folder."),
    format: Format = typer.Option(..., "--format", "-f", help="perfetto (Chrome trace JSON), otf2 (copy + wait-state markers) or parquet."),
    output: Path = typer.Option(..., "-o", "--output", help="File (perfetto, parquet) or folder (otf2) to create."),
    force: bool = typer.Option(False, "--force", help="Replace OUT if it exists."),
) -> None:
    """Export a trace and, for an analysis folder, its wait states, for Perfetto, Vampir or pandas."""
    from rich.console import Console

    from gridscope.errors import GridscopeError
    from gridscope.export.source import prepare_output, resolve

    console = Console(stderr=True)
    _, run = resolve(source)
    if format is Format.otf2 and run is None:
        raise GridscopeError(source, "the otf2 export adds a run's wait states: give the analysis folder")
    prepare_output(output, force)
    try:
        what = _write(source, format, output, console)
    except BaseException:
        _remove_partial(output)  # never leave half a file that looks like a result
        raise
    print(f"gridscope export: wrote {output} ({what})")


def _remove_partial(output: Path) -> None:
    import shutil

    if output.is_dir():
        shutil.rmtree(output, ignore_errors=True)
    elif output.exists():
        output.unlink()


def _write(source: Path, format: Format, output: Path, console) -> str:
    from contextlib import ExitStack

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from gridscope.export.source import open_source

    with ExitStack() as stack:
        with console.status("Reading the trace…"):
            src = stack.enter_context(open_source(source, output.resolve().parent))
        progress = stack.enter_context(Progress(
            TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,} events"),
            TimeElapsedColumn(), console=console, transient=True))
        task = progress.add_task(f"Writing {format.value}", total=max(len(src.trace.columns["ev_time"]), 1))

        def step(done, total):
            progress.update(task, completed=done, total=max(total, 1))

        if format is Format.parquet:
            from gridscope.export.parquet import write_parquet

            what = f"{write_parquet(src, output, step):,} events"
        elif format is Format.perfetto:
            from gridscope.export.perfetto import write_perfetto

            counts = write_perfetto(src, output, step)
            what = f"{counts['slices']:,} slices, {counts['flows']:,} messages, {counts['waitstates']:,} wait states"
        else:
            from gridscope.export.otf2 import write_otf2

            what = f"trace copy with {write_otf2(src, output):,} wait-state markers"
    return what
