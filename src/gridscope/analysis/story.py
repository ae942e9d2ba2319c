"""The story a summary tells first, in words every view shares (terminal, report, diff, viewer):
the run's duration and critical path, the MPI and waiting shares of the time between
MPI_Init and MPI_Finalize, the findings with their advice, where the critical path runs,
and the WAN links. Plain functions over summary.json contents; units from gridscope.units."""

from __future__ import annotations

from gridscope.analysis.findings import ranks_text
from gridscope.analysis.metric_tree import METRICS
from gridscope.analysis.run_shape import in_init_finalize
from gridscope.units import bytes_text, rate_text, seconds_text, share_text

NO_GAIN_S = 1e-3  # a predicted gain below this is no gain (the replay's own noise)
ROLE_LABELS = {"rank": "late rank", "ranks": "late ranks", "site": "slow site", "master": "master bottleneck",
               "collective_root": "late collective root", "link": "WAN direction"}
KIND_LABELS = {"computation": "computation", "communication": "communication", "wan_transfer": "WAN transfer"}


def shape_lines(summary: dict) -> list[str]:
    """Duration and critical path; MPI and waiting between Init and Finalize; start-up apart."""
    run = summary.get("run") or {}
    duration = summary.get("duration_s")
    first = f"Run: {seconds_text(duration)} from first to last event"
    if run.get("critical_path_s") is not None:
        first += f"; critical path {seconds_text(run['critical_path_s'])}"
    first += f"; {summary.get('ranks', 0)} ranks"
    lines = [first]
    if run.get("application_s") is not None:
        lines.append(f"Between MPI_Init and MPI_Finalize: MPI {share_text(run.get('mpi_share'))}, waiting "
                     f"{share_text(run.get('waiting_share'))} of {seconds_text(run['application_s'])} "
                     f"(summed over ranks)")
    if summary.get("init_finalize_s") is not None:
        lines.append(f"Start-up and shutdown (MPI_Init/MPI_Finalize, incl. clock synchronisation): "
                     f"{seconds_text(summary['init_finalize_s'])} summed over ranks")
    return lines


def finding_title(finding: dict) -> str:
    """"Master bottleneck: rank 0 on alpha in main/master/serve — 4.21 s of waiting caused (29.2 %)"."""
    c = finding["cause"]
    role = ROLE_LABELS.get(c.get("role", ""), KIND_LABELS.get(c["kind"], c["kind"]))
    if c.get("link"):
        who = f"{c['link'][0]} → {c['link'][1]} (seen in {c['callpath']})"
    elif c.get("role") == "site":
        who = f"{c['metahost']} ({ranks_text(c['ranks'])}) in {c['callpath']}"
    else:
        hosts = ", ".join(finding.get("metahosts") or [c["metahost"]])
        who = f"{ranks_text(c['ranks'])} on {hosts} in {c['callpath']}"
    parts = []
    if finding.get("cost_s", 0) > 0:
        parts.append(f"{seconds_text(finding['cost_s'])} of waiting caused ({share_text(finding.get('share'))})")
    if (finding.get("path_share") or 0) >= 0.01:
        parts.append(f"{seconds_text(finding['path_imbalance_s'])} of the critical path above the ranks' "
                     f"average ({share_text(finding['path_share'])})")
    text = f"{role[0].upper()}{role[1:]}: {who} — " + "; ".join(parts)
    gain = finding.get("gain_s")
    if gain is not None:
        text += (f"; fixing it: {seconds_text(gain)} shorter run (predicted)" if gain >= NO_GAIN_S
                 else "; fixing it alone would not shorten the run (predicted)")
    return text


def finding_items(summary: dict, top: int = 3) -> list[dict]:
    """The top findings as {"title", "advice", "patterns"}; [] when there are none."""
    display = {m.id: m.display for m in METRICS}
    return [{"title": finding_title(f), "advice": f.get("advice", ""),
             "patterns": ", ".join(display.get(p, p) for p in f.get("patterns", []))}
            for f in (summary.get("findings") or [])[:top]]


def no_findings_line(summary: dict) -> str:
    if summary.get("findings") is None:
        return "No findings: root causes were not analysed (--no-root-causes)."
    return "No culprit causes 2 % of the time or more: the run is balanced."


def path_entries(summary: dict, top: int = 3) -> list[tuple[str, str, float]]:
    """The critical path's largest entries outside MPI_Init/MPI_Finalize: (call path,
    metahost, share of the whole path)."""
    rows = summary.get("critical_path") or []
    length = sum(float(r["seconds"]) for r in rows)
    if length <= 0:
        return []
    return [(r["callpath"], r["metahost"], float(r["seconds"]) / length) for r in rows
            if not in_init_finalize(r["callpath"])][:top]


def start_up_share(summary: dict) -> float:
    """The share of the critical path in MPI_Init/MPI_Finalize (the start-up and shutdown)."""
    rows = summary.get("critical_path") or []
    length = sum(float(r["seconds"]) for r in rows)
    return sum(float(r["seconds"]) for r in rows if in_init_finalize(r["callpath"])) / length if length > 0 else 0.0


def path_line(summary: dict, top: int = 3) -> str | None:
    """"The critical path runs 88.7 % in transport on FZJ, 5.1 % in ...; MPI_Init and
    MPI_Finalize hold 4.0 % of it"."""
    entries = path_entries(summary, top)
    if not entries:
        return None
    parts = [f"{share_text(s)} in {cp} on {mh}" for cp, mh, s in entries]
    start_up = start_up_share(summary)
    tail = f"; MPI_Init and MPI_Finalize hold {share_text(start_up)} of it" if start_up >= 0.01 else ""
    return "The critical path runs " + ", ".join(parts) + tail + "."


def link_rows(summary: dict) -> list[dict]:
    """WAN links as text cells: measured and nominal side by side."""
    rows = []
    for link in summary.get("wan_links") or []:
        nominal = link.get("nominal") or {}
        rows.append({
            "link": f"{link['from']} → {link['to']}", "messages": f"{link['messages']:,}",
            "bytes": bytes_text(link["bytes"]),
            "latency": seconds_text(link.get("latency_s")),
            "nominal_latency": seconds_text(nominal.get("latency_s")) if nominal else "–",
            "bandwidth": rate_text(link.get("bandwidth_Bps")),
            "nominal_bandwidth": rate_text(nominal.get("bandwidth_Bps")) if nominal else "–",
            "waiting": seconds_text(link.get("waiting_caused_s", 0.0)),
        })
    return rows


LINK_COLUMNS = (("link", "link"), ("messages", "messages"), ("bytes", "bytes"), ("latency", "latency"),
                ("nominal_latency", "nominal"), ("bandwidth", "bandwidth"), ("nominal_bandwidth", "nominal"),
                ("waiting", "waiting caused"))


def wan_link_table(summary: dict):
    """The WAN links as a rich Table (None: no message crossed a WAN)."""
    from rich.markup import escape
    from rich.table import Table

    rows = link_rows(summary)
    if not rows:
        return None
    table = Table(title="WAN links (latency: shortest small transfer; bandwidth: fastest transfer of 32 KiB or more)")
    for key, label in LINK_COLUMNS:
        table.add_column(label, justify="left" if key == "link" else "right")
    for row in rows:
        table.add_row(*(escape(row[key]) for key, _ in LINK_COLUMNS))
    return table


def print_story(summary: dict, console, top: int = 3) -> None:
    """The first screen: the run's shape, the findings, where the critical path runs."""
    from rich.markup import escape

    for i, line in enumerate(shape_lines(summary)):
        console.print(f"[bold]{escape(line)}[/]" if i == 0 else escape(line))
    items = finding_items(summary, top)
    if items:
        console.print("[bold]Findings[/] (the largest share of the waiting or of the critical path first; "
                      "waiting summed over ranks):")
        for i, item in enumerate(items, 1):
            console.print(f" {i}. {escape(item['title'])}")
            console.print(f"    {escape(item['advice'])}")
    else:
        console.print(escape(no_findings_line(summary)))
    line = path_line(summary)
    if line:
        console.print(escape(line))


def path_cell(callpath: str, console=None, width: int | None = None) -> str:
    """A call path for a table cell (rich markup escaped), broken into lines after its
    slashes to fit WIDTH (default: a third of the console), never inside a region name."""
    from rich.markup import escape

    width = width or max(24, (console.width if console is not None else 400) // 3)
    lines, line = [], ""
    for part in callpath.split("/"):
        piece = part if not line else "/" + part
        if line and len(line) + len(piece) > width:
            lines.append(line + "/")
            line = part
        else:
            line += piece
    lines.append(line)
    return escape("\n".join(lines))
