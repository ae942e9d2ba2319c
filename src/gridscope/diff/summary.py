"""Differences of summary.json contents (NEW − BASE, missing entries count as zero)."""

from __future__ import annotations

from gridscope.diff.runs import CLASSES, DIFF_KEY
from gridscope.diff.story import change_story

P2P_VALUES = ("bytes", "messages", "max_rate_Bps", "min_transfer_s")
# Root causes (docs/root-causes.md): row keys and values, the first value leads (sort, percent)
ROOT_CAUSE_KEYS = ("callpath", "metahost", "kind", "pattern", "class")
ROOT_CAUSE_VALUES = ("total_s", "short_term_s", "long_term_s")
CRITICAL_PATH_KEYS = ("callpath", "metahost")
CRITICAL_PATH_VALUES = ("seconds", "imbalance_s")
CAUSE_PAIR_KEYS = ("cause", "waiting")
CAUSE_PAIR_VALUES = ("short_term_s", "long_term_s")
WAIT_CLASSES = ("direct", "indirect", "propagating", "terminal")


def percent_of(delta: float, total: float) -> float | None:
    """DELTA in % of TOTAL (None when TOTAL is zero: no meaningful percentage)."""
    return 100.0 * delta / total if total else None


def diff_patterns(base: dict, new: dict) -> dict[str, dict[str, float]]:
    names = list(dict.fromkeys(list(base) + list(new)))
    return {p: {c: float(new.get(p, {}).get(c, 0.0)) - float(base.get(p, {}).get(c, 0.0))
                for c in CLASSES} for p in names}


def diff_rows(base: list[dict], new: list[dict], keys: tuple[str, ...],
              values: tuple[str, ...], base_total: float) -> list[dict]:
    """Rows keyed by KEYS with each of VALUES as NEW − BASE, plus base_/new_ values.

    The first value also gets ``percent_of_base`` (of BASE's total time). Sorted by the
    size of the first value's change, largest first.
    """
    def index(rows):
        out: dict[tuple, dict] = {}
        for row in rows:
            key = tuple(row.get(k) for k in keys)
            acc = out.setdefault(key, {v: 0.0 for v in values})
            for v in values:
                acc[v] += float(row.get(v, 0.0) or 0.0)
        return out

    b, n = index(base), index(new)
    out = []
    for key in dict.fromkeys(list(b) + list(n)):
        row = dict(zip(keys, key))
        for v in values:
            old, cur = b.get(key, {}).get(v, 0.0), n.get(key, {}).get(v, 0.0)
            row[v] = cur - old
            row[f"base_{v}"] = old
            row[f"new_{v}"] = cur
        row["percent_of_base"] = percent_of(row[values[0]], base_total)
        out.append(row)
    out.sort(key=lambda r: -abs(r[values[0]]))
    return out


def diff_wait_classes(base: dict, new: dict) -> dict[str, dict[str, float]]:
    return {w: {c: float((new.get(w) or {}).get(c, 0.0)) - float((base.get(w) or {}).get(c, 0.0))
                for c in CLASSES} for w in WAIT_CLASSES}


def diff_root_causes(base: dict, new: dict, base_total: float) -> dict:
    """The root-cause keys of summary.json as NEW − BASE (a run without them counts as none)."""
    def both_on(s: dict) -> bool:
        return bool((s.get("root_cause_analysis") or {}).get("enabled"))

    out = {
        "root_cause_analysis": {"enabled": both_on(base) and both_on(new)},
        "root_causes": diff_rows(base.get("root_causes", []), new.get("root_causes", []),
                                 ROOT_CAUSE_KEYS, ROOT_CAUSE_VALUES, base_total),
        "cause_pairs": diff_rows(base.get("cause_pairs", []), new.get("cause_pairs", []),
                                 CAUSE_PAIR_KEYS, CAUSE_PAIR_VALUES, base_total),
        "wait_classes": diff_wait_classes(base.get("wait_classes") or {}, new.get("wait_classes") or {}),
        "critical_path": diff_rows(base.get("critical_path", []), new.get("critical_path", []),
                                   CRITICAL_PATH_KEYS, CRITICAL_PATH_VALUES, base_total),
    }
    for key in ("root_causes", "cause_pairs", "critical_path"):
        out[key] = [r for r in out[key] if any(r[v] != 0 for v in _values(key))]
    return out


def _values(key: str) -> tuple[str, ...]:
    return {"root_causes": ROOT_CAUSE_VALUES, "cause_pairs": CAUSE_PAIR_VALUES,
            "critical_path": CRITICAL_PATH_VALUES}[key]


def diff_summary(base: dict, new: dict, meta: dict) -> dict:
    """A summary.json (same shape as `analyze` writes) whose numbers are NEW − BASE."""
    base_total = float(base["total_time_s"])
    out = {
        "ranks": int(new.get("ranks", 0) or 0),
        "metahosts": dict(new.get("metahosts", {})),
        "events": int(new.get("events", 0) or 0) - int(base.get("events", 0) or 0),
        "total_time_s": float(new["total_time_s"]) - base_total,
        "mpi_time_s": float(new["mpi_time_s"]) - float(base["mpi_time_s"]),
        "clock_violations": int(new.get("clock_violations", 0) or 0)
        - int(base.get("clock_violations", 0) or 0),
        "patterns": diff_patterns(base["patterns"], new["patterns"]),
        "by_callpath": diff_rows(base.get("by_callpath", []), new.get("by_callpath", []),
                                 ("pattern", "class", "callpath"), ("seconds",), base_total),
        "by_metahost": diff_rows(base.get("by_metahost", []), new.get("by_metahost", []),
                                 ("pattern", "class", "metahost"), ("seconds",), base_total),
        "p2p": diff_rows(base.get("p2p", []), new.get("p2p", []), ("from", "to"),
                         P2P_VALUES, base_total),
    }
    for row in out["p2p"]:
        row.pop("percent_of_base", None)  # bytes are not time
    out.update(diff_root_causes(base, new, base_total))
    for key in ("duration_s", "init_finalize_s"):  # the run's shape: NEW − BASE when both have it
        if base.get(key) is not None and new.get(key) is not None:
            out[key] = float(new[key]) - float(base[key])
    out["story"] = change_story(base, new)
    out[DIFF_KEY] = dict(meta, base_total_time_s=base_total,
                         new_total_time_s=float(new["total_time_s"]),
                         base_mpi_time_s=float(base["mpi_time_s"]),
                         new_mpi_time_s=float(new["mpi_time_s"]),
                         base_ranks=int(base.get("ranks", 0) or 0))
    return out
