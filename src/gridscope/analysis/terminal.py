"""The readable terminal summary of an analysis (rich tables)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gridscope.analysis.metric_tree import METRICS
from gridscope.analysis.story import path_cell


def _pct(x: float, total: float) -> str:
    return f"{100.0 * x / total:5.1f} %" if total > 0 else "    -"


def _seconds(x: float) -> str:
    """Fixed precision so columns line up: millisecond resolution, tiny values shown as such."""
    return f"{x:.3f}" if x == 0 or abs(x) >= 0.001 else "<0.001"


def _time_correction_line(tc: dict) -> str:
    """One line: what the clock correction moved and the minimum latencies it used."""
    def link(x: dict) -> str:
        a, b = x["metahosts"]
        where = f"{a}-{b}" if x["class"] == "grid" else f"{a} {'node' if x['class'] == 'node' else 'nodes'}"
        return f"{where} {x['latency_s'] * 1e6:.3g} µs ({x['source']})"

    why = f"largest violation {tc.get('largest_violation_s', 0.0) * 1e6:.3g} µs"
    if tc.get("one_clock") and tc.get("collective_min_transfer_s") is not None:
        why += (f"; one clock: collectives need at most {tc['collective_min_transfer_s'] * 1e6:.3g} µs, "
                "their fastest completion")
    return (f"Time correction: {tc['corrected_receives']} receives, {tc['corrected_collectives']} collective ends "
            f"moved (max {tc['max_shift_s'] * 1e6:.3g} µs; {why}); minimum latencies: "
            + (", ".join(link(x) for x in tc.get("latencies", [])) or "-"))


def summary_console() -> Console:
    """A console for the summary: on a terminal its width; piped, lines as long as they are
    (call paths are never wrapped or split)."""
    import sys

    return Console() if sys.stdout.isatty() else Console(width=400, soft_wrap=True)


def print_summary(summary: dict, console: Console | None = None, top: int = 8) -> None:
    from gridscope.analysis.story import print_story

    console = console or summary_console()
    total = summary["total_time_s"]
    print_story(summary, console)
    hosts = escape(", ".join(f"{k} ({v})" for k, v in summary["metahosts"].items()))
    console.print(f"{summary['ranks']} ranks on {hosts}; {summary['events']:,} events; "
                  f"time summed over ranks {total:.6g} s, MPI {summary['mpi_time_s']:.6g} s "
                  f"({_pct(summary['mpi_time_s'], total).strip()}, MPI_Init/MPI_Finalize included); "
                  f"clock violations {summary['clock_violations']}")
    tc = summary["time_correction"]
    if tc["enabled"]:
        console.print(escape(_time_correction_line(tc)))
    threads = summary["thread_locations"]
    if threads["locations"]:
        console.print(f"Analysed with their ranks: {threads['locations']} thread locations that call MPI "
                      f"({threads['events']:,} events).")
    skipped = summary["unanalysed_locations"]
    if skipped["locations"]:
        console.print(f"[yellow]Not analysed: {skipped['locations']} locations without MPI events besides the "
                      f"ranks' master threads ({skipped['events']:,} events).[/]")
    display = {m.id: m.display for m in METRICS}
    table = Table(title="Wait states (seconds summed over ranks; % of total time)")
    for col in ("pattern", "grid", "local", "% time"):
        table.add_column(col, justify="left" if col == "pattern" else "right")
    rows = sorted(summary["patterns"].items(), key=lambda kv: -(kv[1]["grid"] + kv[1]["local"]))
    for name, v in rows:
        both = v["grid"] + v["local"]
        if both > 0:
            table.add_row(display.get(name, name), _seconds(v["grid"]), _seconds(v["local"]), _pct(both, total))
    if table.row_count:
        console.print(table)
    else:
        console.print("No wait states found.")
    if summary["by_callpath"]:
        where = Table(title=f"Where (top {top})")
        for col in ("pattern", "class", "call path", "seconds"):
            where.add_column(col, justify="right" if col == "seconds" else "left")
        for row in summary["by_callpath"][:top]:
            where.add_row(display.get(row["pattern"], row["pattern"]), row["class"], path_cell(row["callpath"], console),
                          _seconds(row["seconds"]))
        console.print(where)
    print_why(summary, console, top)
    from gridscope.analysis.story import wan_link_table

    links = wan_link_table(summary)
    if links is not None:
        console.print(links)


def print_why(summary: dict, console: Console, top: int = 8) -> None:
    """The root causes: who made the metahosts wait, and the critical path's top call paths."""
    from gridscope.analysis import why

    on = why.enabled(summary)
    if on is None:
        return  # a summary from before the root causes
    if not on:
        console.print("Root causes: " + why.not_analysed_reason(summary))
        return
    waiting = why.waiting_by_metahost(summary)
    console.print("[bold]Why[/] (delay costs: waiting time by its cause, seconds summed over ranks)")
    for item in waiting[:3]:
        console.print("  " + escape(item.sentence()))
    if not waiting:
        console.print("  No wait state with a cause found.")
    rows = summary.get("critical_path") or []
    if rows:
        length = why.path_length(summary)
        path = Table(title=f"Critical path (top {min(top, len(rows))} of {len(rows)}; "
                           f"{length:.6g} s long, summed over the ranks it runs on)")
        for col in ("call path", "metahost", "seconds", "% of path", "imbalance"):
            path.add_column(col, justify="left" if col in ("call path", "metahost") else "right")
        for row in rows[:top]:
            path.add_row(path_cell(row["callpath"], console), escape(row["metahost"]), _seconds(row["seconds"]),
                         _pct(row["seconds"], length), _seconds(row.get("imbalance_s", 0.0)))
        console.print(path)
