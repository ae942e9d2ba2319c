"""`gridscope demo`: the main job (seed 002's optimisation cycles, end to end)."""

from __future__ import annotations

from pathlib import Path

import typer

from gridscope.cli.app import app


@app.command(short_help="The main job: MetaTrace cycles on viola, collectives on grid5000-2, diffs and a report.")
def demo(
    out: Path = typer.Option(Path("demo-out"), "-o", "--out", help="Folder for everything."),
    no_compare: bool = typer.Option(False, "--no-compare",
                                    help="Leave out the collectives comparison."),
    full_compare: bool = typer.Option(False, "--full-compare",
                                      help="Compare every collective at four sizes (over a minute) "
                                           "instead of the demo's four collectives at two sizes."),
) -> None:
    """Record MetaTrace's optimisation cycles 0/1/2 on the simulated VIOLA metacomputer,
    analyse and diff them, compare collectives on grid5000-2 and write OUT/report.html."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from gridscope.demo import plan, run_demo, summarise
    from gridscope.errors import GridscopeError

    console = Console()
    if not console.is_terminal:  # logs and pipes: room for the tables
        console = Console(width=120)
    total = len(plan(out.resolve(), Path("apps")))
    failed: list[str] = []
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                  console=console) as progress:
        task = progress.add_task("demo", total=total)

        def started(step):
            progress.update(task, description=step.label)

        def done(outcome):
            progress.advance(task)
            mark = {"ok": "[green]✓[/]", "failed": "[red]✗[/]", "skipped": "[yellow]–[/]",
                    "omitted": "[dim]–[/]"}
            extra = f" ({outcome.seconds:.1f} s)" if outcome.status == "ok" else \
                f": {outcome.line}"
            progress.console.print(f"{mark[outcome.status]} {outcome.step.label}{extra}",
                                   highlight=False)
            if outcome.status not in ("ok", "omitted"):
                failed.append(outcome.step.label)

        run_demo(out, step_done=done, step_start=started,
                 omit=frozenset({"compare"} if no_compare else ()), full_compare=full_compare)

    summary = summarise(out.resolve())
    if summary:
        table = Table(title="Seed 002, Table 5: % of total time per cycle", title_justify="left")
        table.add_column("")
        for name in summary.names:
            table.add_column(name.replace("metatrace-", ""), justify="right")
        table.add_column("falls every cycle", justify="center")
        for row in summary.table:
            unit = row.get("unit") == "s"
            cells = [("–" if v is None else (f"{v:.2f} s" if unit else f"{v:.1f} %"))
                     for v in row["values"]]
            trend = "" if unit else ("[green]yes[/]" if summary.trends[row["label"]]
                                     else "[red]no[/]")
            table.add_row(row["label"], *cells, trend)
        console.print(table)
        if summary.late_sender_cgiteration_s is not None:
            pct = summary.late_sender_cgiteration_pct
            console.print(f"Late Sender in cgiteration, cycle 0 → 1: "
                          f"{summary.late_sender_cgiteration_s:+.3f} s"
                          + (f" ({pct:+.1f} % of cycle 0's time)" if pct is not None else ""))
    report = out / "report.html"
    if report.is_file():
        console.print(f"report: {report}")
    if failed:
        raise GridscopeError(out, f"{len(failed)} demo step(s) did not succeed: "
                                  f"{'; '.join(failed)} (see the lines above)")
