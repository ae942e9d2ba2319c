"""What an analysis must not hide or print (docs/analyzer.md, "Validation").

The trace library refuses timestamps that run backwards or leave the trace's span and
ClockOffsets that would make them do so. What the engine can only count -- receives whose
byte count differs from their send's, collective instances it cannot match, messages
without a partner (with --allow-unmatched), a time correction that did not converge -- is
kept in summary.json and becomes one warning line each (`warnings`). Last, a summary
whose figures are physically impossible (negative times, MPI time above the program's
time, more waiting than MPI time) is refused rather than printed.
"""

from __future__ import annotations

import math

from gridscope.errors import GridscopeError

# Sums of many float64 values: allow rounding, never a real excess.
_REL = 1e-9
_ABS = 1e-12


def warnings(meta: dict, summary: dict) -> list[str]:
    """One line per thing the analysis counted but could not use (empty when none)."""
    lines = []
    mismatches = int(meta.get("byte_mismatches", 0))
    if mismatches:
        lines.append(f"{mismatches} of {summary['messages']} received messages have a byte count that differs from "
                     "their send's (damaged events?); the traffic figures count the smaller of the two")
    incomplete = int(summary["incomplete_collectives"])
    if incomplete:
        total = incomplete + int(summary["collectives"])
        lines.append(f"{incomplete} of {total} collective instances could not be matched (a member's call is "
                     "missing, extra or of another operation) and are not analysed: their waiting is not counted")
    unmatched = summary["unmatched_messages"]
    if unmatched["sends"] or unmatched["receives"]:
        lines.append(f"{unmatched['sends']} sends without a receive and {unmatched['receives']} receives without "
                     "a send are not analysed (--allow-unmatched)")
    correction = summary["time_correction"]
    if correction.get("enabled") and not correction.get("converged", True):
        lines.append("the time correction did not converge (the trace's messages wait on each other in a cycle): "
                     "some clock-condition bounds were dropped and wait states may still be skewed")
    return lines


def impossible(summary: dict) -> str | None:
    """The first physically impossible figure of a summary, or None."""
    total, mpi = float(summary["total_time_s"]), float(summary["mpi_time_s"])
    for name, value in (("total time", total), ("MPI time", mpi)):
        if not math.isfinite(value) or value < 0:
            return f"{name} {value:g} s"
    if mpi > total * (1 + _REL) + _ABS:
        return f"MPI time {mpi:g} s above the total time {total:g} s"
    waiting = 0.0
    for pattern, split in summary["patterns"].items():
        for cls, value in split.items():
            if not math.isfinite(value) or value < 0:
                return f"{pattern} ({cls}) waiting {value:g} s"
            waiting += value
    # With --time-correct the wait states see corrected times while the call-path times
    # keep the original ones (docs/analyzer.md, "Clocks": not done), so a corrected receive
    # may wait longer than its original duration: that comparison holds only uncorrected.
    corrected = summary.get("time_correction", {}).get("enabled") and summary["time_correction"].get("max_shift_s")
    if not corrected and waiting > mpi * (1 + _REL) + _ABS:
        return f"waiting {waiting:g} s above the MPI time {mpi:g} s"
    for row in summary.get("threads", []):
        t, m, w = float(row["time_s"]), float(row["mpi_s"]), float(row["waiting_s"])
        if min(t, m, w) < 0 or m > t * (1 + _REL) + _ABS or w > m * (1 + _REL) + _ABS:
            return f"thread {row.get('rank')}.{row.get('thread')}: time {t:g} s, MPI {m:g} s, waiting {w:g} s"
    for row in summary.get("p2p", []):
        if not math.isfinite(float(row["max_rate_Bps"])) or float(row["min_transfer_s"]) < 0:
            return f"transfer rate {row['max_rate_Bps']} B/s from {row['from']} to {row['to']}"
    return None


def check(summary: dict, where) -> None:
    """Refuses a summary with an impossible figure: one GridscopeError line naming the trace."""
    problem = impossible(summary)
    if problem is not None:
        raise GridscopeError(where, f"impossible result ({problem}): the trace's timestamps are inconsistent")
