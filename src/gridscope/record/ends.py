"""What the trace of a run that ended early holds, rank by rank: read from
`gridscope-trace-repair --ends` (collector/tools/ends.h) and said in a few lines."""

from __future__ import annotations

import signal
from dataclasses import dataclass

COMPLETE, FLUSHED, CUT, NONE = "complete", "flushed", "cut", "none"


@dataclass(frozen=True)
class RankEnd:
    rank: int
    kind: str            # COMPLETE, FLUSHED, CUT or NONE
    events: int
    end_s: float         # seconds from the trace's start to the rank's last event
    region: str | None   # innermost region open at the end
    status: int | None   # ProgramEnd's exit status (FLUSHED, COMPLETE)
    entered_s: float | None = None  # when the rank entered `region`

    @property
    def lost(self) -> bool:
        """Events of this rank are missing (it was killed before it could flush)."""
        return self.kind in (CUT, NONE)


def parse(text: str) -> list[RankEnd]:
    """The tools' lines: RANK KIND EVENTS END_S REGION STATUS ENTER_S, tab-separated."""
    ends = []
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) != 7 or f[1] not in (COMPLETE, FLUSHED, CUT, NONE):
            continue
        ends.append(RankEnd(int(f[0]), f[1], int(f[2]), float(f[3]),
                            None if f[4] == "-" else f[4], None if f[5] == "-" else int(f[5]),
                            None if f[6] == "-" else float(f[6])))
    return ends


def _status(status: int) -> str:
    if status > 128:
        try:
            return f"ended by {signal.Signals(status - 128).name}"
        except ValueError:
            pass
    return f"exit status {status}"


def describe(end: RankEnd) -> str:
    """One line: how far the rank's events go and why they stop there."""
    where = f" in {end.region}" if end.region else ""
    if end.kind == COMPLETE:
        return f"rank {end.rank}: complete (MPI_Finalize at {end.end_s:.6f} s)"
    if end.kind == FLUSHED:
        if end.region == "MPI_Abort":
            return f"rank {end.rank}: called MPI_Abort at {end.end_s:.6f} s " \
                   f"(error code {end.status}); every event up to it is kept"
        return f"rank {end.rank}: ended early{where} at {end.end_s:.6f} s " \
               f"({_status(end.status or 0)}); every event up to it is kept"
    if end.kind == CUT:
        return f"rank {end.rank}: killed outright; its events up to its last buffer flush " \
               f"({end.end_s:.6f} s,{where or ' outside any region'}) are kept, later ones " \
               "are lost (at most the --buffer size)"
    return f"rank {end.rank}: killed outright before its first buffer flush; none of its " \
           "events are kept"


def report(ends: list[RankEnd]) -> list[str]:
    """The lines `record` prints: every rank that did not end through MPI_Finalize."""
    return [describe(e) for e in ends if e.kind != COMPLETE]


def lost_ranks(ends: list[RankEnd]) -> list[int]:
    return [e.rank for e in ends if e.lost]
