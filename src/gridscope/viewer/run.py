"""An analysis folder (`gridscope analyze -o OUT`, or a `diff` result) as the viewer sees it.

Holds: summary.json (required), profile.cubex (the Cube experiment, optional for a bare
trace view), the wait states (optional; waitstates.feather, or waitstates.parquet of older
analyses) and the trace named by summary["trace"]
(optional: a diff folder usually has none; the timeline is then switched off).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from gridscope.analysis.names import CRITICAL_PATH_FILE, LEGACY_WAITSTATES_FILE, WAITSTATES_FILE
from gridscope.errors import GridscopeError
from gridscope.viewer.waitstates import WaitStates, load_waitstates

SUMMARY = "summary.json"
PROFILE = "profile.cubex"
# Files of the run the server may hand out as downloads (nothing else of the folder is served).
DOWNLOADABLE = (SUMMARY, PROFILE, WAITSTATES_FILE, LEGACY_WAITSTATES_FILE, CRITICAL_PATH_FILE)


@dataclass
class CriticalPath:
    """Where the critical path runs (analysis.critical_path_pieces): stretches in time order,
    one rank each, and the links where it moves from the delaying to the waiting rank."""

    rank: np.ndarray      # int32
    start_ns: np.ndarray  # int64, ascending (stretches do not overlap)
    end_ns: np.ndarray
    link_cause_rank: np.ndarray
    link_cause_ns: np.ndarray    # ascending
    link_waiting_rank: np.ndarray
    link_waiting_ns: np.ndarray

    def __len__(self) -> int:
        return len(self.rank)

    @classmethod
    def empty(cls) -> "CriticalPath":
        i, t = np.zeros(0, np.int32), np.zeros(0, np.int64)
        return cls(i, t, t, i, t, i, t)

    @classmethod
    def from_frame(cls, path: pd.DataFrame) -> "CriticalPath":
        from gridscope.analysis.critical_path_pieces import links

        def ns(values) -> np.ndarray:
            return np.rint(np.asarray(values, dtype=np.float64) * 1e9).astype(np.int64)

        moves = links(path)
        return cls(path["rank"].to_numpy(np.int32), ns(path["start_s"]), ns(path["end_s"]),
                   moves["cause_rank"].to_numpy(np.int32), ns(moves["cause_s"]),
                   moves["waiting_rank"].to_numpy(np.int32), ns(moves["waiting_s"]))


class RunFolder:
    """Lazy access to the parts of an analysis folder."""

    bare_trace = False  # a trace opened without an analysis: timeline only

    @classmethod
    def for_trace(cls, anchor: Path) -> "RunFolder":
        """A bare trace (Vampir-style): no profile, no wait states; nothing written beside it."""
        run = cls.__new__(cls)
        run.folder = anchor.parent
        run.summary = {"trace": str(anchor)}
        run.bare_trace = True
        return run

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise GridscopeError(folder, "not an analysis folder (no such directory)")
        path = self.folder / SUMMARY
        if not path.is_file():
            raise GridscopeError(folder, f"not an analysis folder (no {SUMMARY}; run `gridscope analyze -o` first)")
        try:
            self.summary = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise GridscopeError(path, f"not valid JSON: {err}") from None
        from gridscope.analysis.summary_shape import check

        check(self.summary, path)  # a wrong type is one line naming the file

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def is_diff(self) -> bool:
        """A difference experiment (gridscope diff): values may be negative."""
        s = self.summary
        return bool(s.get("diff") or s.get("kind") == "diff" or "minuend" in s)

    @cached_property
    def trace_anchor(self) -> Path | None:
        from gridscope.viewer.trace import find_anchor

        trace = self.summary.get("trace")
        if not trace:
            self.trace_problem = f"{SUMMARY} names no trace, so there is no timeline"
            return None
        try:
            return find_anchor(trace)
        except GridscopeError as err:
            self.trace_problem = f"no timeline: {err.line()}"
            return None

    trace_problem: str | None = None

    @cached_property
    def experiment(self):
        path = self.folder / PROFILE
        if self.bare_trace or not path.is_file():
            return None
        from gridscope.cube import read_cubex

        return read_cubex(path)

    @cached_property
    def waitstates(self) -> WaitStates:
        return WaitStates.empty() if self.bare_trace else load_waitstates(self.folder)

    @cached_property
    def critical_path(self) -> CriticalPath:
        from gridscope.analysis.critical_path_pieces import read_critical_path

        frame = None if self.bare_trace else read_critical_path(self.folder)
        return CriticalPath.empty() if frame is None else CriticalPath.from_frame(frame)

    @cached_property
    def base_experiment(self):
        """A difference experiment's BASE profile (diff.json names its folder), for base and
        new values beside each delta; None when it is not there any more."""
        meta = self.summary.get("diff") if self.is_diff else None  # gridscope diff's record of its inputs
        base = meta.get("base") if isinstance(meta, dict) else None
        path = Path(base) / PROFILE if isinstance(base, str) else None
        if path is None or not path.is_file():
            return None
        from gridscope.cube import read_cubex

        try:
            return read_cubex(path)
        except GridscopeError:
            return None

    def rank_metahosts(self) -> dict[int, tuple[str, str]]:
        """rank -> (metahost, node) as the analysis saw them (its --metahosts map included)."""
        exp = self.experiment
        if exp is None or exp.locations is None or len(exp.locations) == 0:
            return {}
        loc = exp.locations
        return {int(r): (str(m), str(n)) for r, m, n in zip(loc["rank"], loc["metahost"], loc["node"])}
