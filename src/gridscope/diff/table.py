"""Terminal view of a difference: the largest changes in seconds and % of BASE's time."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gridscope.analysis.story import path_cell
from gridscope.analysis.why import KIND_LABELS
from gridscope.diff.story import story_lines
from gridscope.report.pattern_info import display


def _signed(value: float, digits: int = 3) -> str:
    return f"{value:+.{digits}f}"


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:+.1f} %"


def _style(value: float) -> str:
    return "green" if value < 0 else ("red" if value > 0 else "")


def _colored(value: float, text: str) -> str:
    """TEXT in green (less time) or red (more); no markup at all for no change ("[]" is no tag)."""
    style = _style(value)
    return f"[{style}]{text}[/]" if style else text


# Narrower consoles get the call-path tables as lists: a table's columns would have to fold
# region names; a list gives the call path its own lines, broken only after slashes.
WIDE_TABLES = 100


class PathRows:
    """Rows with one call-path column (cells may hold rich markup, the call path plain
    text), printed as a table on a wide console and as a list on a narrow one."""

    def __init__(self, title: str, columns: tuple[str, ...], path_column: str, right: tuple[str, ...]):
        self.title, self.columns, self.path, self.right = title, columns, path_column, right
        self.rows: list[tuple[str, ...]] = []

    def add(self, *cells: str) -> None:
        self.rows.append(cells)

    def print(self, console: Console) -> None:
        if not self.rows:
            return
        at = self.columns.index(self.path)
        if console.width >= WIDE_TABLES:
            table = Table(title=self.title, title_justify="left")
            for col in self.columns:
                table.add_column(col, justify="right" if col in self.right else "left", overflow="fold")
            for row in self.rows:
                table.add_row(*(path_cell(c, console) if i == at else c for i, c in enumerate(row)))
            console.print(table)
            return
        console.print(f"[italic]{escape(self.title)}[/]")
        for row in self.rows:
            console.print("  " + "  ".join(f"{col} {c}" if col in self.right else c
                                           for col, c in zip(self.columns, row) if col != self.path and c))
            for line in path_cell(row[at], console, width=console.width - 6).split("\n"):
                console.print("      " + line, soft_wrap=True)


def print_diff(result: dict, console: Console | None = None, top: int = 15) -> None:
    console = console or Console()
    base_total = result["base_total_time_s"]
    pct = (lambda v: _percent(100 * v / base_total if base_total else None))
    console.print(f"[bold]NEW − BASE[/]  (gains are negative)\n"
                  f"  BASE {escape(str(result['base']))}\n  NEW  {escape(str(result['new']))}")
    for line in story_lines(result.get("story") or {}):
        console.print(escape(line))
    console.print(f"  time summed over ranks {_signed(result['total_time_s'])} s ({pct(result['total_time_s'])}), "
                  f"MPI time {_signed(result['mpi_time_s'])} s ({pct(result['mpi_time_s'])})")
    ranks = result["ranks"]
    if ranks["base"] != ranks["new"]:
        note = ("system dimension collapsed" if result["collapsed_ranks"]
                else "ranks compared one by one; --collapse-ranks compares totals")
        console.print(f"  [yellow]rank counts differ: {ranks['base']} → {ranks['new']} ({note})[/]")

    patterns = Table(title="Wait states", title_justify="left")
    for col in ("pattern", "grid Δ s", "local Δ s", "total % of BASE"):
        patterns.add_column(col, justify="left" if col == "pattern" else "right")
    for name, split in sorted(result["patterns"].items(),
                              key=lambda kv: -abs(kv[1]["grid"] + kv[1]["local"])):
        total = split["grid"] + split["local"]
        if round(split["grid"], 3) == 0 and round(split["local"], 3) == 0:
            continue  # nothing that shows at the table's precision
        patterns.add_row(display(name), _signed(split["grid"]), _signed(split["local"]),
                         _colored(total, pct(total)))
    if patterns.row_count:
        console.print(patterns)

    rows = [r for r in result["by_callpath"] if round(r["seconds"], 3) != 0][:top]
    changes = PathRows("Largest changes by call path", ("what", "class", "call path", "Δ s", "% of BASE"),
                       "call path", ("Δ s", "% of BASE"))
    for r in rows:
        changes.add(display(r["pattern"]), str(r.get("class", "")), r["callpath"],
                    _colored(r["seconds"], _signed(r["seconds"])), _percent(r.get("percent_of_base")))
    if not rows:  # no wait-state lists in the summaries: show the profile's changes
        for r in [c for c in result["cube_changes"] if round(c["seconds"], 3) != 0][:top]:
            changes.add(r["display"], "", r["callpath"], _colored(r["seconds"], _signed(r["seconds"])),
                        _percent(r.get("percent_of_base")))
    if changes.rows:
        changes.print(console)
    else:
        console.print("  no differences")
    print_root_cause_changes(result, console, top)


def print_root_cause_changes(result: dict, console: Console, top: int = 15) -> None:
    """The changes of the delay costs (who causes the waiting) and of the critical path."""
    causes = PathRows("Root causes: changes of the delay costs",
                      ("cause", "call path", "on", "caused", "class", "Δ s", "short-term Δ", "long-term Δ", "% of BASE"),
                      "call path", ("Δ s", "short-term Δ", "long-term Δ", "% of BASE"))
    for r in [r for r in result.get("root_causes") or [] if round(r["total_s"], 3) != 0][:top]:
        causes.add(KIND_LABELS.get(r["kind"], r["kind"]), r["callpath"], escape(r["metahost"]), display(r["pattern"]),
                   r["class"], _colored(r["total_s"], _signed(r["total_s"])), _signed(r["short_term_s"]),
                   _signed(r["long_term_s"]), _percent(r.get("percent_of_base")))
    causes.print(console)
    path = PathRows("Critical path: changes", ("call path", "metahost", "Δ s", "imbalance Δ s"), "call path",
                    ("Δ s", "imbalance Δ s"))
    for r in [r for r in result.get("critical_path") or [] if round(r["seconds"], 3) != 0][:top]:
        path.add(r["callpath"], escape(r["metahost"]), _colored(r["seconds"], _signed(r["seconds"])),
                 _signed(r["imbalance_s"]))
    path.print(console)
