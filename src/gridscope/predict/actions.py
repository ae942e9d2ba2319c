"""A trace as per-rank action streams, written by the native `gridscope-actions` (which reads
the trace through the trace library; docs/predict.md gives the format)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError

TOOL = "gridscope-actions"
META = "meta.json"
# the stated approximation of a trace with threads: only each rank's master thread replays
OTHER_LOCATIONS = "non-rank locations (threads) not replayed, their events ignored"


@dataclass(frozen=True)
class Actions:
    folder: Path
    ranks: int
    metahosts: list[str]  # per rank, as the trace says
    nodes: list[str]  # per rank
    approximations: dict[str, int]  # what the replay expresses approximately -> how often


def extract(anchor: Path, folder: Path) -> Actions:
    proc = subprocess.run([str(native.binary(TOOL)), str(anchor), str(folder)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        line = (proc.stderr.strip().splitlines() or [f"{TOOL} failed (exit {proc.returncode})"])[-1]
        prefix = f"{TOOL}: "
        raise GridscopeError(None, line[len(prefix):] if line.startswith(prefix) else line)
    meta = json.loads((folder / META).read_text())
    approx = dict(meta["approximations"])
    if meta.get("other_locations"):
        approx[OTHER_LOCATIONS] = int(meta["other_locations"])
    return Actions(folder, int(meta["ranks"]), list(meta["metahosts"]), list(meta["nodes"]), approx)
