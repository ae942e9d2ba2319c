"""Assemble the report: load runs, compute figures, draw charts, render the template."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Callable

from gridscope.diff.runs import AnalysisRun, load_run
from gridscope.diff.summary import diff_summary
from gridscope.errors import GridscopeError
from gridscope.report import charts
from gridscope.report.compare_data import COMPARE_JSON, compare_findings, load_compare
from gridscope.report.figures import (by_metahost, p2p_matrices, pattern_rows, run_figures,
                                      significant, table5, top_callpaths)
from gridscope.report.narrative import cycle_findings, diff_findings, run_findings
from gridscope.report.pattern_info import display, info, pattern_table
from gridscope.analysis.why import KIND_LABELS
from gridscope.report.why_data import followed, why_entry

Step = Callable[[str], None]

SECTIONS = {
    "summary": "Executive summary",
    "waitstates": "Wait states: grid vs local",
    "where": "Where the time is lost",
    "why": "Why: root causes",
    "metahosts": "Metahosts and network",
    "clocks": "Clock synchronisation",
    "cycles": "Across optimisation cycles",
    "diffs": "Differences between runs",
    "collectives": "Collectives: vanilla vs topology-aware",
    "method": "Method and glossary",
}


def split_inputs(paths: list[Path]) -> tuple[list[AnalysisRun], list[Path]]:
    """Analysis folders (summary.json) and compare results (compare.json) among PATHS."""
    runs, compares = [], []
    for path in paths:
        path = Path(path)
        if path.is_file() and path.name == COMPARE_JSON:
            compares.append(path)
        elif path.is_dir() and not (path / "summary.json").exists() \
                and (path / COMPARE_JSON).exists():
            compares.append(path / COMPARE_JSON)
        else:
            runs.append(load_run(path))
    return runs, compares


def _unique_names(runs: list[AnalysisRun]) -> list[str]:
    names = [r.name for r in runs]
    if len(set(names)) == len(names):
        return names
    return [f"{r.folder.resolve().parent.name}/{r.name}" for r in runs]


def _diff_entry(title: str, summary: dict) -> dict:
    meta = summary.get("diff", {})
    base_total = float(meta.get("base_total_time_s") or 0.0)
    rows = [dict(r, display=display(r["pattern"])) for r in summary.get("by_callpath", [])
            if float(r.get("seconds", 0)) != 0 and significant(r.get("percent_of_base"))][:12]
    patterns = []
    for name, split in summary.get("patterns", {}).items():
        total = float(split.get("grid", 0)) + float(split.get("local", 0))
        if total and significant(100 * total / base_total if base_total else None):
            patterns.append({"display": display(name), "grid": float(split.get("grid", 0)),
                             "local": float(split.get("local", 0)), "total": total,
                             "pct": 100 * total / base_total if base_total else None})
    patterns.sort(key=lambda r: r["total"])
    causes = [dict(r, display=display(r["pattern"]), kind_label=KIND_LABELS.get(r["kind"], r["kind"]))
              for r in summary.get("root_causes", [])
              if significant(r.get("percent_of_base"))][:8]
    from gridscope.diff.story import story_lines

    return {"causes": causes, "title": title, "total": float(summary["total_time_s"]),
            "story": [line.strip() for line in story_lines(summary.get("story") or {}, top=3)],
            "mpi": float(summary["mpi_time_s"]), "base_total": base_total,
            "total_pct": 100 * float(summary["total_time_s"]) / base_total if base_total else None,
            "mpi_pct": 100 * float(summary["mpi_time_s"]) / base_total if base_total else None,
            "patterns": patterns, "rows": rows, "chart": charts.diff_chart(rows)}


def _timeline(run: AnalysisRun) -> str:
    """Rank × time chart of waiting for RUN, when its folder has wait states."""
    from gridscope.report.timeline import load_matrix

    try:
        exp = run.experiment()
    except GridscopeError:
        return ""
    loc = exp.locations
    first = {m: i for i, m in enumerate(dict.fromkeys(loc["metahost"]))}
    order = sorted(zip(loc["rank"].astype(int), loc["metahost"].astype(str)),
                   key=lambda rank_host: (first[rank_host[1]], rank_host[0]))
    ranks = [rank for rank, _ in order]
    data = load_matrix(run.folder, ranks)
    if data is None:
        return ""
    return charts.timeline_chart(data["matrix"], data["t0"], data["t1"], ranks,
                                 [host for _, host in order])


def run_shape(summary: dict) -> dict:
    """The cards' figures: duration, critical path, MPI and waiting between Init and Finalize
    in %, start-up and shutdown (None where an older summary lacks them)."""
    run = summary.get("run") or {}
    share = lambda key: None if run.get(key) is None else 100 * run[key]  # noqa: E731
    return {"duration_s": summary.get("duration_s"), "critical_path_s": run.get("critical_path_s"),
            "mpi_pct": share("mpi_share"), "waiting_pct": share("waiting_share"),
            "init_finalize_s": summary.get("init_finalize_s")}


def story_entry(summary: dict) -> dict:
    """The findings, the critical path and the WAN links in the words every view uses."""
    from gridscope.analysis import story

    return {"findings": story.finding_items(summary), "none": story.no_findings_line(summary),
            "path": story.path_line(summary), "links": story.link_rows(summary)}


def prediction_line(pred: dict | None) -> str | None:
    """What a `gridscope predict` folder predicts from (None for measured runs)."""
    if not pred:
        return None
    speedup = ", ".join(f"{r} x{f:g}" for r, f in (pred.get("speedup") or {}).items())
    return (f"a prediction (gridscope predict), not a measurement: {pred.get('from')} replayed on "
            f"{pred.get('platform')} with {pred.get('collectives')} collectives"
            + (f", computation scaled {speedup}" if speedup else ""))


def _run_entry(name: str, run: AnalysisRun) -> dict:
    s = run.summary
    fig = run_figures(name, s)
    callpaths = top_callpaths(s)
    for row in callpaths:
        row["diagnosis"] = info(row["pattern"]).diagnosis
    messages = sum(int(r.get("messages", 0) or 0) for r in s.get("p2p", []))
    clock_extra = {k: v for k, v in s.items()
                   if k.startswith("clock") and k != "clock_violations"}
    patterns = pattern_rows(s)
    why = why_entry(s)
    if why is not None:
        why["chart"] = charts.why_chart(why["pairs"])
    findings = run_findings(fig, s)
    return {"timeline_chart": "", "why": why, "name": name, "shape": run_shape(s), "story": story_entry(s), "folder": str(run.folder.resolve()), "trace": s.get("trace"),
            "prediction": prediction_line(s.get("prediction")),
            "pattern_pct": {p["display"]: p["pct"] for p in patterns},
            "figures": fig, "patterns": patterns, "callpaths": callpaths,
            "callpath_chart": charts.callpath_chart(callpaths),
            "by_metahost": by_metahost(s)[:12], "p2p": p2p_matrices(s), "threads": s.get("threads") or [],
            "messages": messages, "clock_extra": clock_extra,
            "violation_pct": (100 * fig.clock_violations / messages) if messages else None,
            "findings": findings}


def build_context(runs: list[AnalysisRun], compares: list[Path], title: str | None = None,
                  step: Step = lambda _: None) -> dict:
    if not runs and not compares:
        raise GridscopeError(None, "report needs at least one analysis folder")
    analyses = [r for r in runs if not r.is_diff]
    given_diffs = [r for r in runs if r.is_diff]
    names = _unique_names(analyses)
    step("figures and charts per run")
    entries = [_run_entry(n, r) for n, r in zip(names, analyses)]
    context: dict = {
        "title": title or ("gridscope performance report" + (f": {names[-1]}" if names else "")),
        "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "runs": entries, "latest": entries[-1] if entries else None,
    }
    from gridscope.version import __version__
    context["version"] = __version__
    context["pattern_names"] = list(dict.fromkeys(p["display"] for e in entries
                                                  for p in e["patterns"]))
    if entries:
        step("waiting over time")
        entries[-1]["timeline_chart"] = _timeline(analyses[-1])
    step("wait-state charts")
    shown = {p["display"] for e in entries for p in e["patterns"] if significant(p["pct"])}
    context["waitstates_chart"] = charts.waitstates_chart(
        [(e["name"], [p for p in e["patterns"] if p["display"] in shown]) for e in entries])
    context["cycles"] = None
    if len(analyses) >= 2:
        step("table across cycles")
        table = table5([(n, r.summary) for n, r in zip(names, analyses)])
        context["cycles"] = {"names": names, "table": table,
                             "chart": charts.cycles_chart(names, table),
                             "findings": cycle_findings(names, table)}
    context["why_followed"] = followed([(n, r.summary) for n, r in zip(names, analyses)])
    step("differences between runs")
    diffs = []
    for (n0, r0), (n1, r1) in zip(zip(names, analyses), zip(names[1:], analyses[1:])):
        meta = {"base": str(r0.folder.resolve()), "new": str(r1.folder.resolve()),
                "collapsed_ranks": False, "operation": "new - base"}
        diffs.append(_diff_entry(f"{n0} → {n1}", diff_summary(r0.summary, r1.summary, meta)))
    for run in given_diffs:
        meta = run.summary.get("diff", {})
        diffs.append(_diff_entry(f"{run.name} (NEW {Path(str(meta.get('new', '?'))).name} − "
                                 f"BASE {Path(str(meta.get('base', '?'))).name})", run.summary))
    context["diffs"] = diffs
    context["diff_findings"] = diff_findings(diffs)
    context["compare"] = None
    if compares:
        step("collectives comparison")
        data = load_compare(compares[-1])
        context["compare"] = dict(data, chart=charts.compare_chart(data["rows"]),
                                  placements=list(dict.fromkeys(r["placement"]
                                                                for r in data["rows"])),
                                  findings=compare_findings(data))
    seen = list(dict.fromkeys(p["pattern"] for e in entries for p in e["patterns"]))
    table = pattern_table()
    glossary_ids = seen + [pid for pid, p in table.items() if p.is_pattern and pid not in seen]
    context["glossary"] = [info(pid) for pid in glossary_ids]
    present = {"summary", "method"}
    if entries:
        present |= {"waitstates", "where", "metahosts", "clocks"}
    if any(e["why"] is not None for e in entries):
        present.add("why")
    if context["cycles"]:
        present.add("cycles")
    if diffs:
        present.add("diffs")
    if context["compare"]:
        present.add("collectives")
    context["sections"] = [(sid, label) for sid, label in SECTIONS.items() if sid in present]
    context["present"] = present
    return context
