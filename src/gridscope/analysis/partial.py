"""Partial traces: ranks that left no events, ranks whose events were cut short, ranks
that ended early, and the waiting of the others inside operations those ranks never
joined (docs/analyzer.md, "Partial traces").

The engine analyses what the trace holds: a rank without event file is read as empty and
a stream that ends inside an MPI call is closed at its last event (summary.json
`repaired_regions`: `lost`, `truncated`). Which ranks, and where they end, is read here by
`gridscope-trace-ends` (collector/tools/ends.h), only for traces that need it: a trace of
a run that ended early (its anchor was written at start-up or by the crash repair) or one
the engine found lost or truncated locations in."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError
from gridscope.record.ends import COMPLETE, CUT, FLUSHED, NONE, RankEnd, parse

ENDS_TOOL = "gridscope-trace-ends"
# Creators of the anchors of runs that ended early (collector/src/defs.c, tools/repair.c).
_EARLY_END_CREATORS = (b"(provisional definitions)", b"(definitions repaired after a crash)")
# Operations in which a rank waits for others: time spent inside one that another rank
# never joined is waiting for that rank.
_WAITING_OPS = frozenset(f"MPI_{n}" for n in (
    "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Allgather", "Allgatherv",
    "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan", "Recv", "Send", "Ssend", "Rsend", "Bsend",
    "Sendrecv", "Sendrecv_replace", "Wait", "Waitall", "Waitany", "Waitsome", "Probe",
    "Comm_split", "Comm_dup", "Comm_create", "Finalize"))


def needs_scan(anchor: Path, repaired: dict) -> bool:
    if int(repaired.get("lost", 0)) or int(repaired.get("truncated", 0)):
        return True
    head = anchor.read_bytes()[:4096]
    return any(mark in head for mark in _EARLY_END_CREATORS)


def scan(anchor: Path) -> list[RankEnd]:
    proc = subprocess.run([str(native.binary(ENDS_TOOL)), str(anchor.parent)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        line = (proc.stderr.strip().splitlines() or ["cannot read the trace"])[0]
        raise GridscopeError(anchor, line.split(": ")[-1])
    return parse(proc.stdout)


def partial_keys(ends: list[RankEnd]) -> dict:
    """summary.json's keys for a partial trace (all empty when every rank is complete)."""
    early = [e for e in ends if e.kind != COMPLETE]
    gone = {e.rank for e in early if e.kind in (CUT, NONE) or (e.kind == FLUSHED and
                                                                e.region not in _WAITING_OPS)}
    waiting = [e for e in early if e.region in _WAITING_OPS and e.entered_s is not None
               and e.rank not in gone]
    ops: dict[str, dict] = {}
    for e in waiting:
        op = ops.setdefault(e.region, {"operation": e.region, "waiting_ranks": [], "waiting_s": 0.0})
        op["waiting_ranks"].append(e.rank)
        op["waiting_s"] += e.end_s - e.entered_s
    return {
        "lost_ranks": [e.rank for e in early if e.kind == NONE],
        "truncated_ranks": [{"rank": e.rank, "end_s": e.end_s, "in": e.region}
                            for e in early if e.kind == CUT],
        "ended_early_ranks": [{"rank": e.rank, "end_s": e.end_s, "in": e.region,
                               "exit_status": e.status} for e in early if e.kind == FLUSHED],
        # what the others waited in: operations the lost, cut or failed ranks never joined
        "never_joined": [{**op, "waiting_s": round(op["waiting_s"], 9)} for op in ops.values()],
        "waiting_for_ended_ranks_s": round(sum(e.end_s - e.entered_s for e in waiting), 9),
    }


def warning_lines(summary: dict) -> list[str]:
    """One line each: lost ranks, cut ranks, ranks that ended early, the others' waiting."""
    lines = []
    if summary.get("lost_ranks"):
        lines.append("no events of rank(s) " + ", ".join(map(str, summary["lost_ranks"])) +
                     " (killed before their first buffer flush); the others are analysed")
    if summary.get("truncated_ranks"):
        lines.append("events of rank(s) cut short: " + "; ".join(
            f"rank {t['rank']} at {t['end_s']:.6f} s in {t['in'] or 'no region'}"
            for t in summary["truncated_ranks"]) + " (killed outright; later events lost)")
    if summary.get("ended_early_ranks"):
        lines.append("rank(s) ended before MPI_Finalize: " + "; ".join(
            f"rank {t['rank']} at {t['end_s']:.6f} s in {t['in'] or 'no region'}"
            for t in summary["ended_early_ranks"]))
    for op in summary.get("never_joined") or []:
        ranks = op["waiting_ranks"]
        lines.append(f"{op['waiting_s']:.6f} s waited in {op['operation']} by rank(s) "
                     f"{', '.join(map(str, ranks))}, which the ranks that ended never joined "
                     "(summary.json never_joined; not in the wait-state patterns)")
    return lines
