"""The executive summary's sentences, computed from the figures (no templates here)."""

from __future__ import annotations

from gridscope.report.figures import RunFigures, falling, pct, top_callpaths
from gridscope.report.pattern_info import info


def _p(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} %"


def run_findings(fig: RunFigures, summary: dict) -> list[dict]:
    """Findings for one analysed run: each {"title", "text", "hint"}."""
    out = []
    out.append({
        "title": f"{_p(fig.mpi_pct)} of the time is spent in MPI, {_p(fig.wait_pct)} waiting",
        "text": (f"Total {fig.total_s:.2f} s summed over {fig.ranks} ranks on "
                 f"{len(fig.metahosts) or 1} metahost(s). Of the waiting time, "
                 f"{_p(fig.grid_share_pct)} is grid (across metahosts) and the rest local."),
        "hint": ""})
    for row in top_callpaths(summary, limit=3):
        pattern = info(row["pattern"])
        out.append({
            "title": (f"{pattern.display} ({row.get('class', '?')}) in "
                      f"{row['callpath']}: {_p(row['pct'])} of the time"),
            "text": pattern.description,
            "hint": pattern.diagnosis})
    partial = _partial_finding(summary)
    if partial:
        out.insert(0, partial)
    if fig.clock_violations:
        out.append({"title": f"{fig.clock_violations} clock-condition violation(s)",
                    "text": "Some receives complete before their send started, after offset "
                            "correction: the affected waiting times are unreliable.",
                    "hint": "Analyse again with --time-correct."})
    return out


def cycle_findings(names: list[str], table: list[dict]) -> list[dict]:
    """What changed across optimisation cycles (seed 002 Table 5)."""
    rows = {row["key"]: row for row in table}
    totals = rows["total_s"]["values"]
    out = []
    change = pct(totals[-1] - totals[0], totals[0])
    out.append({"title": (f"Time between MPI_Init and MPI_Finalize {totals[0]:.2f} s → {totals[-1]:.2f} s "
                          f"({'–' if change is None else f'{change:+.1f} %'}) from {names[0]} "
                          f"to {names[-1]}"),
                "text": "Times are summed over all ranks.", "hint": ""})
    trend = [row["label"] for key, row in rows.items() if key != "total_s"
             and falling(row["values"])]
    rising = [row["label"] for key, row in rows.items() if key != "total_s"
              and not falling(row["values"])]
    if trend:
        out.append({"title": "Falling in every cycle: " + ", ".join(trend),
                    "text": "In % of each run's total time.", "hint": ""})
    if rising:
        out.append({"title": "Not falling in every cycle: " + ", ".join(rising),
                    "text": "See the table across cycles and the differences below.",
                    "hint": ""})
    return out


def diff_findings(diffs: list[dict]) -> list[dict]:
    """Per difference: how the duration and the critical path moved and what became of the
    findings (diff.story), then the largest gain and loss, for the summary."""
    out = []
    for d in diffs:
        if d.get("story"):
            out.append({"title": d["title"], "text": " ".join(d["story"]), "hint": ""})
        rows = d["rows"]
        gains = [r for r in rows if r["seconds"] < 0]
        losses = [r for r in rows if r["seconds"] > 0]
        parts = []
        for label, chosen in (("largest gain", min(gains, key=lambda r: r["seconds"], default=None)),
                              ("largest loss", max(losses, key=lambda r: r["seconds"], default=None))):
            if chosen is not None:
                share = chosen.get("percent_of_base")
                parts.append(f"{label}: {chosen['display']} ({chosen.get('class', '?')}) in "
                             f"{chosen['callpath']} {chosen['seconds']:+.3f} s"
                             + (f" ({share:+.1f} % of the base run)" if share is not None else ""))
        if parts:
            out.append({"title": d["title"], "text": "; ".join(parts), "hint": ""})
    return out


def _partial_finding(summary: dict) -> dict | None:
    """The run ended early or lost events (summary.json lost_ranks, truncated_ranks,
    ended_early_ranks, never_joined): what the analysis rests on, first."""
    from gridscope.analysis.partial import warning_lines

    lines = warning_lines(summary)
    if not lines:
        return None
    lost = len(summary.get("lost_ranks") or []) + len(summary.get("truncated_ranks") or [])
    early = len(summary.get("ended_early_ranks") or [])
    title = (f"Partial trace: {lost} rank(s) lost events" if lost else
             f"The run ended early on {early} rank(s)")
    return {"title": title, "text": "; ".join(lines) + ".",
            "hint": "The analysis covers the events the trace holds; waiting inside operations "
                    "that the ended ranks never joined is listed, not in the patterns."}

