"""The "why" of the waiting in words: the top causes per waiting metahost, from summary.json's
root_causes (docs/root-causes.md). Used by the terminal summary and the report."""

from __future__ import annotations

from dataclasses import dataclass

from gridscope.analysis import names as N


KIND_LABELS = {N.COMPUTATION: "computation", N.COMMUNICATION: "communication", N.WAN: "WAN transfer"}


@dataclass(frozen=True)
class CauseShare:
    """Waiting on one metahost caused by one call path x metahost x kind of cause."""

    callpath: str
    metahost: str
    kind: str
    seconds: float

    def what(self) -> str:
        if self.kind == N.WAN:
            return f"WAN transfer (in {self.callpath} on {self.metahost})"
        return f"{self.kind} in {self.callpath} on {self.metahost}"


@dataclass(frozen=True)
class Waiting:
    """The waiting on one metahost that delays explain, and its largest causes."""

    metahost: str
    seconds: float
    causes: tuple[CauseShare, ...]

    def sentence(self, top: int = 3) -> str:
        """"1.400 s of the waiting at FZJ caused by computation in X on FH-BRS; 0.500 s by WAN transfer (...)"."""
        shown = self.causes[:top]
        parts = [f"{_s(shown[0].seconds)} of the waiting at {self.metahost} caused by {shown[0].what()}"]
        parts += [f"{_s(c.seconds)} by {c.what()}" for c in shown[1:]]
        rest = self.seconds - sum(c.seconds for c in self.causes[:top])
        if len(self.causes) > top and rest > 0:
            parts.append(f"{_s(rest)} by {len(self.causes) - top} other cause{'s' if len(self.causes) - top > 1 else ''}")
        return "; ".join(parts)


def _s(seconds: float) -> str:
    """Milliseconds and up as seconds, shorter times in microseconds (tiny test traces)."""
    return f"{seconds:.3f} s" if seconds >= 0.001 else f"{seconds * 1e6:.1f} µs"


def waiting_by_metahost(summary: dict) -> list[Waiting]:
    """Per waiting metahost (most waiting first), the causes of its waiting, largest first
    (patterns and classes added up; ties in the summary's row order)."""
    per_host: dict[str, dict[tuple[str, str, str], float]] = {}
    for row in summary.get(N.ROOT_CAUSES) or []:
        key = (row[N.CALLPATH], row[N.METAHOST], row[N.KIND])
        for host, seconds in (row.get(N.WAITING_S) or {}).items():
            causes = per_host.setdefault(host, {})
            causes[key] = causes.get(key, 0.0) + float(seconds)
    out = []
    for host, causes in per_host.items():
        ranked = sorted(causes.items(), key=lambda kv: -kv[1])
        shares = tuple(CauseShare(cp, mh, kind, s) for (cp, mh, kind), s in ranked if s > 0)
        if shares:
            out.append(Waiting(host, sum(c.seconds for c in shares), shares))
    out.sort(key=lambda w: -w.seconds)
    return out


def enabled(summary: dict) -> bool | None:
    """Whether the analysis ran the root causes (None: a summary from before them)."""
    block = summary.get(N.ROOT_CAUSE_ANALYSIS)
    return bool(block.get("enabled")) if isinstance(block, dict) else None


def not_analysed_reason(summary: dict) -> str:
    """Why the root causes are missing, in one line for the terminal."""
    block = summary.get(N.ROOT_CAUSE_ANALYSIS) or {}
    if block.get("skipped_for_threads"):
        return ("not analysed: the ranks call MPI from several threads, and root causes follow "
                "each rank's master thread only (docs/root-causes.md).")
    if block.get("mode") == "auto":  # an analysis from when they were off above a size
        return (f"not analysed: {summary.get('events', 0):,} events, more than the "
                f"{block.get('auto_limit_events', 0):,} an older gridscope computed them for by default.")
    return "not analysed (--no-root-causes)."


def path_length(summary: dict) -> float:
    """The critical path's length: its seconds over all call paths and metahosts."""
    return sum(float(r[N.SECONDS]) for r in summary.get(N.CRITICAL_PATH) or [])
