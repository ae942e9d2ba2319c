"""The numbers of the report's "Why: root causes" section, from summary.json contents
(docs/root-causes.md): top causes, the critical path, wait classes, site pairs, and the
largest causes of the first run followed across runs."""

from __future__ import annotations

from gridscope.analysis import names as N
from gridscope.analysis.why import KIND_LABELS, enabled, not_analysed_reason, path_length, waiting_by_metahost
from gridscope.report.figures import pct, significant
from gridscope.report.pattern_info import display

TOP = 12


def cause_rows(summary: dict, limit: int = TOP) -> list[dict]:
    total = float(summary["total_time_s"])
    rows = [dict(r, display=display(r[N.PATTERN]), kind_label=KIND_LABELS.get(r[N.KIND], r[N.KIND]),
                 pct=pct(float(r[N.TOTAL_S]), total)) for r in summary.get(N.ROOT_CAUSES) or []]
    return [r for r in rows if significant(r["pct"])][:limit]


def path_rows(summary: dict, limit: int = TOP) -> list[dict]:
    length = path_length(summary)
    return [dict(r, share=pct(float(r[N.SECONDS]), length)) for r in (summary.get(N.CRITICAL_PATH) or [])[:limit]]


def pair_kinds(summary: dict) -> list[dict]:
    """Per (cause metahost, waiting metahost): seconds by kind of cause, largest pair first."""
    pairs: dict[tuple[str, str], dict[str, float]] = {}
    for row in summary.get(N.ROOT_CAUSES) or []:
        for waiting, seconds in (row.get(N.WAITING_S) or {}).items():
            kinds = pairs.setdefault((row[N.METAHOST], waiting), {k: 0.0 for k in N.CAUSE_KINDS})
            kinds[row[N.KIND]] = kinds.get(row[N.KIND], 0.0) + float(seconds)
    out = [{N.CAUSE: c, N.WAITING: w, **kinds, "total": sum(kinds.values())} for (c, w), kinds in pairs.items()]
    out.sort(key=lambda r: -r["total"])
    return out


def followed(summaries: list[tuple[str, dict]], limit: int = 5) -> dict | None:
    """The largest causes (call path, metahost, kind; patterns and classes added up) of the
    first run, and their seconds in every run: how the main cause changes across cycles."""
    def by_cause(summary: dict) -> dict[tuple[str, str, str], float]:
        out: dict[tuple[str, str, str], float] = {}
        for r in summary.get(N.ROOT_CAUSES) or []:
            key = (r[N.CALLPATH], r[N.METAHOST], r[N.KIND])
            out[key] = out.get(key, 0.0) + float(r[N.TOTAL_S])
        return out

    if len(summaries) < 2 or not all(enabled(s) for _, s in summaries):
        return None
    tables = [by_cause(s) for _, s in summaries]
    keys = sorted(tables[0], key=lambda k: -tables[0][k])[:limit]
    if not keys:
        return None
    first_pairs = pair_kinds(summaries[0][1])
    crossing = [p for p in first_pairs if p[N.CAUSE] != p[N.WAITING]]
    return {"names": [n for n, _ in summaries],
            "rows": [{"callpath": k[0], "metahost": k[1], "kind_label": KIND_LABELS.get(k[2], k[2]),
                      "values": [t.get(k, 0.0) for t in tables]} for k in keys],
            "totals": [sum(t.values()) for t in tables],
            # the coupling between the metahosts: waiting one metahost causes on another
            "across": [across_metahosts(s) for _, s in summaries],
            "top_pair": crossing[0] if crossing else None}


def across_metahosts(summary: dict) -> float:
    """Seconds of waiting that ranks of one metahost cause on ranks of another."""
    return sum(p["total"] for p in pair_kinds(summary) if p[N.CAUSE] != p[N.WAITING])


def why_entry(summary: dict) -> dict | None:
    """Everything the section shows for one run (None: a summary from before root causes)."""
    on = enabled(summary)
    if on is None:
        return None
    classes = summary.get(N.WAIT_CLASSES) or {}
    return {"enabled": on, "reason": None if on else "Root causes " + not_analysed_reason(summary),
            "causes": cause_rows(summary), "path": path_rows(summary),
            "path_length": path_length(summary), "pairs": pair_kinds(summary),
            "sentences": [w.sentence() for w in waiting_by_metahost(summary)[:3]],
            "classes": [{"name": name, **{c: float((classes.get(name) or {}).get(c, 0.0)) for c in N.CLASSES}}
                        for name in N.WAIT_CLASS_NAMES]}
