"""Read OTF2 archives through `otf2-print` (the reference reader) for the tests.

otf2-print applies the clock offsets of each location, as every OTF2 reader does by
default, so the timestamps seen here are the corrected ones.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tests.collector import evtfile

_EVENT = re.compile(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$")
_ATTR = re.compile(r'([#\w][\w ]*?): ("[^"]*"(?: <\d+>)?|[^,]+)')


@dataclass
class Event:
    kind: str
    location: int
    time: int
    attrs: dict[str, str] = field(default_factory=dict)

    def region(self) -> str:
        return self.attrs["Region"].split('"')[1]


def _attrs(text: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in _ATTR.findall(text)}


# archive -> its event files' (name, size, mtime) when last found sound: a test that
# validates a trace and then prints it walks its files once
_sound: dict[Path, tuple] = {}


def check_event_files(anchor: Path) -> None:
    """Fails on an event file libotf2 would read forever (evtfile.py)."""
    anchor = Path(anchor).resolve()
    files = sorted((anchor.parent / anchor.stem).glob("*.evt"))
    state = tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    if _sound.get(anchor) == state:
        return
    chunk_size = evtfile.event_chunk_size(anchor)
    for evt in files:
        problem = evtfile.problems(evt, chunk_size)
        if problem:
            raise AssertionError(f"damaged event file: {problem}")
    _sound[anchor] = state


def otf2_print(*args: str | Path) -> str:
    if args and str(args[-1]).endswith(".otf2"):
        check_event_files(Path(args[-1]))
    proc = subprocess.run(["otf2-print", *map(str, args)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"otf2-print {args} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def validate(anchor: Path) -> subprocess.CompletedProcess:
    check_event_files(anchor)
    return subprocess.run(["otf2-print", "--silent", "-Werror", str(anchor)],
                          capture_output=True, text=True)


def events(anchor: Path) -> dict[int, list[Event]]:
    """Events per location, in file order."""
    out: dict[int, list[Event]] = defaultdict(list)
    for line in otf2_print(anchor).splitlines():
        m = _EVENT.match(line)
        if m and m.group(1) not in ("Event",):
            out[int(m.group(2))].append(Event(m.group(1), int(m.group(2)), int(m.group(3)),
                                              _attrs(m.group(4))))
    return dict(out)


def definitions(anchor: Path) -> list[tuple[str, int, dict[str, str]]]:
    defs = []
    for line in otf2_print("-G", anchor).splitlines():
        m = re.match(r"^([A-Z_]+)\s+(\d+)\s+(.*)$", line)
        if m:
            defs.append((m.group(1), int(m.group(2)), _attrs(m.group(3))))
    return defs


def clock_offsets(anchor: Path) -> dict[int, list[tuple[int, int, float]]]:
    """(time, offset, stddev) per location, from the local definitions."""
    out: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    pat = re.compile(r"^CLOCK_OFFSET\s+(\d+)\s+Time: (\d+), Offset: ([+-]?\d+), StdDev: (\S+)")
    for line in otf2_print("-C", anchor).splitlines():
        m = pat.match(line)
        if m:
            out[int(m.group(1))].append((int(m.group(2)), int(m.group(3)), float(m.group(4))))
    return dict(out)


def region_counts(evts: list[Event], kind: str = "ENTER") -> Counter:
    return Counter(e.region() for e in evts if e.kind == kind)


def check_nesting(evts: list[Event]) -> None:
    """Every Leave closes the innermost open region; nothing stays open."""
    stack: list[str] = []
    for e in evts:
        if e.kind == "ENTER":
            stack.append(e.region())
        elif e.kind == "LEAVE":
            assert stack, f"location {e.location}: Leave {e.region()} without Enter"
            top = stack.pop()
            assert top == e.region(), f"location {e.location}: Leave {e.region()} closes {top}"
    assert not stack, f"open regions at the end: {stack}"
