"""The numbers a report shows, computed from summary.json contents (plain functions)."""

from __future__ import annotations

from dataclasses import dataclass

from gridscope.diff.runs import CLASSES
from gridscope.report.pattern_info import TABLE5_PATTERNS, display, pattern_table


# Entries below this share of the total time are left out of top lists and charts.
NOISE_PCT = 0.05


def significant(share: float | None) -> bool:
    return share is None or abs(share) >= NOISE_PCT


def pct(part: float, total: float) -> float | None:
    return 100.0 * part / total if total else None


def inclusive_patterns(patterns: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each pattern with its sub-patterns added (Late Sender includes Wrong Order), the way
    Scalasca shows a collapsed metric and seed 002's Table 5 counts it."""
    table = pattern_table()
    parent = {pid: p.parent for pid, p in table.items()} or {"wrong_order": "late_sender"}
    out = {name: {c: float(split.get(c, 0.0)) for c in CLASSES} for name, split in patterns.items()}
    for name, split in patterns.items():
        up = parent.get(name, "")
        while up:
            if up in out:
                for c in CLASSES:
                    out[up][c] += float(split.get(c, 0.0))
            up = parent.get(up, "")
    return out


@dataclass(frozen=True)
class RunFigures:
    name: str
    total_s: float
    mpi_s: float
    wait_s: float          # all wait states, each second counted once
    grid_wait_s: float
    local_wait_s: float
    ranks: int
    metahosts: dict[str, int]
    clock_violations: int
    events: int

    @property
    def mpi_pct(self) -> float | None:
        return pct(self.mpi_s, self.total_s)

    @property
    def wait_pct(self) -> float | None:
        return pct(self.wait_s, self.total_s)

    @property
    def grid_share_pct(self) -> float | None:
        return pct(self.grid_wait_s, self.wait_s)


def run_figures(name: str, summary: dict) -> RunFigures:
    patterns = summary.get("patterns", {})
    grid = sum(float(s.get("grid", 0.0)) for s in patterns.values())
    local = sum(float(s.get("local", 0.0)) for s in patterns.values())
    return RunFigures(name=name, total_s=float(summary["total_time_s"]),
                      mpi_s=float(summary["mpi_time_s"]), wait_s=grid + local,
                      grid_wait_s=grid, local_wait_s=local,
                      ranks=int(summary.get("ranks", 0) or 0),
                      metahosts=dict(summary.get("metahosts", {}) or {}),
                      clock_violations=int(summary.get("clock_violations", 0) or 0),
                      events=int(summary.get("events", 0) or 0))


def pattern_rows(summary: dict) -> list[dict]:
    """Per pattern (exclusive values) grid, local, total seconds and % of total time."""
    total = float(summary["total_time_s"])
    rows = []
    for name, split in summary.get("patterns", {}).items():
        grid, local = float(split.get("grid", 0.0)), float(split.get("local", 0.0))
        if grid == 0 and local == 0:
            continue
        info = pattern_table().get(name)
        rows.append({"pattern": name, "display": display(name), "grid": grid, "local": local,
                     "total": grid + local, "pct": pct(grid + local, total),
                     "grid_pct": pct(grid, total), "local_pct": pct(local, total),
                     "description": info.description if info else ""})
    rows.sort(key=lambda r: -r["total"])
    return rows


def top_callpaths(summary: dict, limit: int = 12) -> list[dict]:
    total = float(summary["total_time_s"])
    rows = [dict(r, display=display(r["pattern"]), pct=pct(float(r["seconds"]), total))
            for r in summary.get("by_callpath", []) if float(r.get("seconds", 0)) != 0]
    rows = [r for r in rows if significant(r["pct"])]
    rows.sort(key=lambda r: -abs(float(r["seconds"])))
    return rows[:limit]


def application_times(summary: dict) -> tuple[float, float]:
    """(time, MPI time) between MPI_Init and MPI_Finalize, summed over ranks; a summary from
    before the run's shape was kept gives its totals."""
    run = summary.get("run") or {}
    if run.get("application_s") is not None:
        return float(run["application_s"]), float(run["application_mpi_s"])
    return float(summary["total_time_s"]), float(summary["mpi_time_s"])


def table5(summaries: list[tuple[str, dict]]) -> list[dict]:
    """Seed 002's Table 5 across cycles: MPI fraction and three wait states in % of the time
    between MPI_Init and MPI_Finalize (the start-up and the measurement's clock
    synchronisation are no part of the application's MPI time)."""
    times = [application_times(s) for _, s in summaries]
    rows = [{"label": "MPI fraction", "key": "mpi", "values": [pct(mpi, total) for total, mpi in times]}]
    for name in TABLE5_PATTERNS:
        values = []
        for (_, s), (total, _) in zip(summaries, times):
            split = inclusive_patterns(s.get("patterns", {})).get(name, {})
            values.append(pct(sum(split.values()), total))
        rows.append({"label": display(name), "key": name, "values": values})
    rows.append({"label": "Time between MPI_Init and MPI_Finalize (s, summed over ranks)", "key": "total_s",
                 "values": [total for total, _ in times], "unit": "s"})
    return rows


def falling(values: list[float | None]) -> bool:
    """True when every value is below the one before (the trend Table 5 reports)."""
    known = [v for v in values if v is not None]
    return len(known) >= 2 and all(b < a for a, b in zip(known, known[1:]))


def p2p_matrices(summary: dict) -> dict | None:
    """Metahost × metahost matrices of traffic, max rate and min transfer time."""
    rows = summary.get("p2p", [])
    if not rows:
        return None
    names = list(dict.fromkeys(list(summary.get("metahosts", {}) or {})
                               + [r.get("from") for r in rows] + [r.get("to") for r in rows]))
    names = [n for n in names if n is not None]
    cell = {(r.get("from"), r.get("to")): r for r in rows}

    def matrix(key):
        return [[(cell[(a, b)].get(key) if (a, b) in cell else None) for b in names]
                for a in names]

    return {"names": names, "bytes": matrix("bytes"), "messages": matrix("messages"),
            "max_rate": matrix("max_rate_Bps"), "min_transfer": matrix("min_transfer_s")}


def by_metahost(summary: dict) -> list[dict]:
    total = float(summary["total_time_s"])
    rows = [dict(r, display=display(r["pattern"]), pct=pct(float(r["seconds"]), total))
            for r in summary.get("by_metahost", []) if float(r.get("seconds", 0)) != 0]
    rows = [r for r in rows if significant(r["pct"])]
    rows.sort(key=lambda r: -abs(float(r["seconds"])))
    return rows
