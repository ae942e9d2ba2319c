"""A copy of the trace with the run's wait states added as OTF2 marker records.

The archive's files are copied unchanged (so every record the original holds survives),
then the native helper opens the copy and writes one marker per wait-state instance
(OTF2_MarkerWriter; Vampir draws markers on its timelines). Marker classes: group
"gridscope wait states", one category per pattern and class ("late_sender (grid)"),
severity HIGH for grid and MEDIUM for local instances; scope = the location that waited;
time and duration in the trace's ticks (start_s is seconds since the global offset).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from gridscope.errors import GridscopeError
from gridscope.export.source import ExportSource
from gridscope.viewer.trace import run_tool

MARKER_GROUP = "gridscope wait states"


def _clean(text: str) -> str:
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def marker_lines(src: ExportSource) -> list[str]:
    w = src.waitstates
    clock = src.trace.defs["clock"]
    res, offset = int(clock["resolution"]), int(clock["offset"])
    locs = src.trace.defs["locations"]
    master = src.master_location_of_rank()
    lines, refs = [], {}
    for i in range(len(w)):
        loc = master.get(int(w.rank[i]))
        if loc is None:
            continue
        pattern, klass = w.patterns[w.pattern[i]], w.classes[w.klass[i]]
        key = (pattern, klass)
        if key not in refs:
            refs[key] = len(refs)
            severity = "HIGH" if klass == "grid" else "MEDIUM"
            lines.append(f"D\t{refs[key]}\t{MARKER_GROUP}\t{_clean(f'{pattern} ({klass})')}\t{severity}")
        start = offset + (int(w.start_ns[i]) * res) // 1_000_000_000
        end = offset + (int(w.end_ns[i]) * res) // 1_000_000_000
        text = _clean(f"{pattern} ({klass}): {w.severity_s[i]:.9f} s waiting in {w.callpath[i]}")
        lines.append(f"M\t{refs[key]}\t{locs[loc.index]['id']}\t{start}\t{max(end - start, 0)}\t{text}")
    return lines


def write_otf2(src: ExportSource, out: Path) -> int:
    """Copy the archive of `src` into folder `out` and add the markers; returns their number."""
    if src.run is None:
        raise GridscopeError(src.anchor, "the otf2 export adds a run's wait states: give the analysis folder")
    anchor = src.anchor
    stem = anchor.with_suffix("")
    out.mkdir(parents=True)
    shutil.copy2(anchor, out / anchor.name)
    for extra in (".def", ".marker"):
        if stem.with_suffix(extra).is_file():
            shutil.copy2(stem.with_suffix(extra), out / (stem.name + extra))
    if stem.is_dir():
        shutil.copytree(stem, out / stem.name)
    lines = marker_lines(src)
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as tsv:
        tsv.write("\n".join(lines) + "\n")
    try:
        run_tool("markers", out / anchor.name, tsv.name, where=out / anchor.name)
    finally:
        Path(tsv.name).unlink(missing_ok=True)
    return sum(1 for l in lines if l.startswith("M"))
