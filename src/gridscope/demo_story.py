"""The demo's results as Markdown, for docs/report.md (benchmarks/demo/demo_docs.py writes it
there; tests/report/test_demo_docs.py checks the doc against a fresh demo run): per cycle
the duration, the first finding and where the critical path runs; per difference how they
moved; seed 002's Table 5 across the cycles."""

from __future__ import annotations

import json
from pathlib import Path

from gridscope.analysis.story import finding_title, path_line
from gridscope.demo import CYCLES, run_folder, summarise
from gridscope.units import seconds_text, share_text


def _summary(folder: Path) -> dict | None:
    path = folder / "summary.json"
    return json.loads(path.read_text()) if path.is_file() else None


def demo_markdown(out: Path) -> str:
    """What the demo in OUT found, in Markdown ("" when its cycles are missing)."""
    lines = []
    for c in CYCLES:
        s = _summary(run_folder(out, c))
        if s is None:
            return ""
        run = s.get("run") or {}
        lines.append(f"- **Cycle {c}** (`--opt {c}`): {seconds_text(s.get('duration_s'))} from first to last "
                     f"event, critical path {seconds_text(run.get('critical_path_s'))}; MPI "
                     f"{share_text(run.get('mpi_share'))} and waiting {share_text(run.get('waiting_share'))} of "
                     f"the time between MPI_Init and MPI_Finalize.")
        findings = s.get("findings") or []
        lines.append(f"  First finding: {finding_title(findings[0])}." if findings else "  No finding.")
        where = path_line(s, top=2)  # (smaller entries can tie and swap between runs)
        if where:
            lines.append(f"  {where}")
    for a, b in zip(CYCLES, CYCLES[1:]):
        diff = _summary(out / f"diff-opt{a}-opt{b}")
        if diff is not None:
            story = diff.get("story") or {}
            moved = [line for line in (story.get("duration"), story.get("critical_path")) if line]
            lines.append(f"- **Cycle {a} → {b}** (`gridscope diff`): " + " ".join(moved))
            lines += [f"  - {change['text']}" for change in (story.get("findings") or [])[:3]]
    table = summarise(out)
    if table is not None:
        lines += ["", "Seed 002's Table 5 across the cycles (% of the time between MPI_Init and MPI_Finalize, "
                  "summed over ranks; this model of MetaTrace on the simulated VIOLA):", "",
                  "| | " + " | ".join(f"opt{c}" for c in CYCLES) + " | falls every cycle |",
                  "|---|" + "---|" * len(CYCLES) + "---|"]
        for row in table.table:
            unit = row.get("unit") == "s"
            cells = ["–" if v is None else (f"{v:.2f} s" if unit else f"{v:.1f}") for v in row["values"]]
            trend = "" if unit else ("yes" if table.trends[row["label"]] else "no")
            lines.append(f"| {row['label']} | " + " | ".join(cells) + f" | {trend} |")
    return "\n".join(lines)
