"""`gridscope diff BASE NEW`: difference experiment between two analysis folders."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gridscope.cli.app import app


@app.command()
def diff(
    base: Path = typer.Argument(..., help="Analysis folder of the original run (BASE)."),
    new: Path = typer.Argument(..., help="Analysis folder of the changed run (NEW)."),
    out: Optional[Path] = typer.Option(None, "-o", "--out",
                                       help="Output folder [default: diff-BASE-NEW]."),
    collapse_ranks: bool = typer.Option(
        False, "--collapse-ranks",
        help="Sum over all ranks first (compare runs with different rank counts as totals)."),
    top: int = typer.Option(15, "--top", min=1, help="Rows in the table of largest changes."),
) -> None:
    """NEW − BASE per metric × call path × rank (Cube algebra; gains are negative).

    Writes OUT/diff.cubex, OUT/diff.json and OUT/summary.json: OUT is itself an analysis
    folder that `report`, `view` and `diff` accept.
    """
    from rich.console import Console

    from gridscope.diff.compute import default_out, diff_runs
    from gridscope.diff.table import print_diff

    console = Console()
    if not console.is_terminal:  # logs and pipes: lines as long as they are
        console = Console(width=400, soft_wrap=True)
    target = out or default_out(base, new)
    with console.status("computing the difference experiment…"):
        result = diff_runs(base, new, target, collapse=collapse_ranks, top=top)
    print_diff(result, console, top=top)
    for line in result["warnings"]:
        typer.echo(f"gridscope: warning: {line}", err=True)
    console.print(f"wrote {target}/diff.cubex, diff.json, summary.json")
