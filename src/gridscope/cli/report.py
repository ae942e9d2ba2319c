"""`gridscope report RUN...`: one self-contained HTML report (and PDF) of analyses."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gridscope.cli.app import app


@app.command(short_help="Self-contained HTML (and PDF) report of one or more analyses for a performance team.")
def report(
    runs: List[Path] = typer.Argument(
        ..., help="Analysis folders in cycle order (also diff folders, or a compare.json / "
                  "compare folder)."),
    out: Path = typer.Option(Path("report.html"), "-o", "--out", help="HTML file to write."),
    pdf: bool = typer.Option(False, "--pdf", help="Also print OUT as PDF (headless Chromium)."),
    compare: Optional[Path] = typer.Option(
        None, "--compare", help="Result of `gridscope compare` (compare.json or its folder)."),
    title: Optional[str] = typer.Option(None, "--title", help="Report title."),
) -> None:
    """Report for a performance team: summary, grid vs local wait states, where they occur,
    metahost traffic, clock quality; with several runs a table across optimisation cycles
    and the differences between consecutive runs."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from gridscope.report import write_report

    console = Console(stderr=True)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task("report", total=None)
        html, pdf_path = write_report(runs, out, pdf=pdf, compare=compare, title=title,
                                      step=lambda what: progress.update(task, description=what))
    print(f"wrote {html}" + (f" and {pdf_path}" if pdf_path else ""))
