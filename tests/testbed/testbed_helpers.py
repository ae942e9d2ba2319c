"""Helpers for the testbed tests: build programs with `gridscope cc`, read traces with
otf2-print (Debian otf2-tools), so the checks do not depend on our own reader."""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from gstest import REPO, run_gridscope

PROGRAMS = Path(__file__).resolve().parent / "programs"
APPS = REPO / "testdata" / "apps"
APP_INCLUDE = APPS / "common"


def build(source: Path, out: Path, simulate: bool, *flags: str) -> Path:
    args = ["cc", *(["--simulate"] if simulate else []), str(source), f"-I{APP_INCLUDE}",
            "-O1", *flags, "-o", str(out)]
    run_gridscope(*args)
    assert out.is_file()
    return out


@dataclass(frozen=True)
class Event:
    kind: str
    location: int
    time: int
    text: str


_EVENT = re.compile(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s+(.*)$")


def events(anchor: Path) -> list[Event]:
    out = subprocess.run(["otf2-print", str(anchor)], capture_output=True, text=True,
                         check=True).stdout
    found = []
    for line in out.splitlines():
        m = _EVENT.match(line)
        if m:
            found.append(Event(m[1], int(m[2]), int(m[3]), m[4]))
    return found


def definitions(anchor: Path) -> str:
    return subprocess.run(["otf2-print", "-G", str(anchor)], capture_output=True, text=True,
                          check=True).stdout


def clock_offsets_per_location(anchor: Path) -> dict[int, int]:
    out = subprocess.run(["otf2-print", "-C", str(anchor)], capture_output=True, text=True,
                         check=True).stdout
    counts: dict[int, int] = defaultdict(int)
    for line in out.splitlines():
        m = re.match(r"^CLOCK_OFFSET\s+(\d+)\s+Time:", line)
        if m:
            counts[int(m[1])] += 1
    return dict(counts)


def machines(defs: str) -> list[str]:
    """Names of the system-tree nodes of class `machine` (the metahosts)."""
    return re.findall(r'^SYSTEM_TREE_NODE\s+\d+\s+Name: "([^"]+)" <\d+>, Class: "machine"',
                      defs, flags=re.M)


def rank_hosts(defs: str) -> dict[int, str]:
    """MPI rank -> name of its node (the parent of its location group)."""
    found = re.findall(r'^LOCATION_GROUP\s+\d+\s+Name: "MPI Rank (\d+)" <\d+>, Type: PROCESS, '
                       r'Parent: "node::([^"]+)"', defs, flags=re.M)
    return {int(r): host for r, host in found}
