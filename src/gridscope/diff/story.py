"""What changed between two runs, in words: the duration, where the critical path runs and
how it moved, and the findings that appeared, vanished, moved or changed (matched by their
culprit). Plain functions over two summary.json contents; the terminal, diff.json and the
report use them."""

from __future__ import annotations

from gridscope.analysis.story import finding_title, path_entries
from gridscope.units import seconds_text, share_text


def _culprit(finding: dict) -> tuple:
    c = finding["cause"]
    who = tuple(c["link"]) if c.get("link") else tuple(c.get("ranks") or ())
    return c.get("role"), c["callpath"], who


def _place(finding: dict) -> tuple:
    """What a finding is about, whoever the culprit: a moved finding keeps it."""
    c = finding["cause"]
    return c.get("role"), c["callpath"]


def _where(entry: tuple[str, str, float] | None) -> str:
    return "–" if entry is None else f"{entry[0]} on {entry[1]} ({share_text(entry[2])} of it)"


def path_change(base: dict, new: dict) -> str | None:
    """"The critical path moved from X on A (62.0 % of it) to Y on B (88.7 % of it)." or
    "... stays in X on A (62.0 % → 58.1 % of it)."""
    b, n = path_entries(base, 1), path_entries(new, 1)
    if not b and not n:
        return None
    b0, n0 = (b[0] if b else None), (n[0] if n else None)
    if b0 and n0 and b0[:2] == n0[:2]:
        return (f"The critical path stays in {n0[0]} on {n0[1]} ({share_text(b0[2])} → {share_text(n0[2])} "
                f"of it).")
    return f"The critical path moved from {_where(b0)} to {_where(n0)}."


def duration_change(base: dict, new: dict) -> str | None:
    b, n = base.get("duration_s"), new.get("duration_s")
    if b is None or n is None:
        return None
    change = f" ({100 * (n - b) / b:+.1f} %)" if b else ""
    return f"Run duration {seconds_text(b)} → {seconds_text(n)}{change}."


def finding_changes(base: dict, new: dict) -> list[dict]:
    """Findings of both runs matched by culprit: {"change": appeared|vanished|moved|changed,
    "text", "base_cost_s", "new_cost_s"}, largest cost first."""
    old = {_culprit(f): f for f in base.get("findings") or []}
    cur = {_culprit(f): f for f in new.get("findings") or []}
    out = []
    for key, f in cur.items():
        if key in old:
            b = old[key]
            out.append({"change": "changed", "base_cost_s": b["cost_s"], "new_cost_s": f["cost_s"],
                        "text": f"changed: {finding_title(f)} (waiting caused before: {seconds_text(b['cost_s'])})"})
    moved_from = {}
    for key, f in old.items():
        if key not in cur:
            moved_from.setdefault(_place(f), f)
    for key, f in cur.items():
        if key in old:
            continue
        b = moved_from.pop(_place(f), None)
        if b is not None:
            out.append({"change": "moved", "base_cost_s": b["cost_s"], "new_cost_s": f["cost_s"],
                        "text": f"moved: {finding_title(b)} → now {finding_title(f)}"})
        else:
            out.append({"change": "appeared", "base_cost_s": 0.0, "new_cost_s": f["cost_s"],
                        "text": f"appeared: {finding_title(f)}"})
    for f in moved_from.values():
        out.append({"change": "vanished", "base_cost_s": f["cost_s"], "new_cost_s": 0.0,
                    "text": f"vanished: {finding_title(f)}"})
    out.sort(key=lambda r: -max(r["base_cost_s"], r["new_cost_s"]))
    return out


def change_story(base: dict, new: dict) -> dict:
    """diff.json's and the diff summary's `story`."""
    return {"duration": duration_change(base, new), "critical_path": path_change(base, new),
            "findings": finding_changes(base, new)}


def story_lines(story: dict, top: int = 5) -> list[str]:
    lines = [line for line in (story.get("duration"), story.get("critical_path")) if line]
    changes = story.get("findings") or []
    lines += [f"  {c['text']}" for c in changes[:top]]
    if not changes:
        lines.append("  no finding in either run")
    return lines
