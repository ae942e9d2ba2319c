"""`gridscope merge PART... -o DIR`: join per-metahost trace parts into one archive.

Without a shared file system each metahost writes its own part (GRIDSCOPE_TRACE_DIR
with %m). The collector unifies the global definitions over MPI at finalize, so every
part carries the same global definitions and the event and local-definition files of its
own locations. Merging checks that the parts belong to one run and together hold every
location exactly once, joins them, and validates the result with the OTF2 reader.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from gridscope.errors import GridscopeError
from gridscope.record.launch import ANCHOR, prepare_output

GLOBAL_DEFS = "traces.def"
LOCATION_DIR = "traces"
_LOCATION_LINE = re.compile(r"^LOCATION\s+(\d+)\s", re.MULTILINE)


def _otf2_print(args: list[str]) -> subprocess.CompletedProcess:
    if shutil.which("otf2-print") is None:
        raise GridscopeError("otf2-print", "not found; install the Debian package otf2-tools")
    return subprocess.run(["otf2-print", *args], capture_output=True, text=True)


def _check_part(part: Path) -> None:
    if not part.is_dir():
        raise GridscopeError(part, "is not a folder")
    for name in (ANCHOR, GLOBAL_DEFS):
        if not (part / name).is_file():
            raise GridscopeError(part, f"is not a trace part (no {name})")
    if not (part / LOCATION_DIR).is_dir():
        raise GridscopeError(part, f"is not a trace part (no {LOCATION_DIR}/ folder)")


def _locations(part: Path) -> list[int]:
    proc = _otf2_print(["-G", str(part / ANCHOR)])
    found = [int(m) for m in _LOCATION_LINE.findall(proc.stdout)]
    if not found:
        raise GridscopeError(part, "global definitions name no locations (damaged part?)")
    return found


def _files_by_location(part: Path) -> dict[int, list[Path]]:
    out: dict[int, list[Path]] = {}
    for f in sorted((part / LOCATION_DIR).iterdir()):
        stem, dot, ext = f.name.partition(".")
        if dot and ext in ("evt", "def") and stem.isdigit():
            out.setdefault(int(stem), []).append(f)
    return out


def _ranges(ids: list[int]) -> str:
    ids = sorted(ids)
    spans, start = [], ids[0]
    for a, b in zip(ids, ids[1:] + [None]):
        if b != a + 1:
            spans.append(f"{start}" if start == a else f"{start}-{a}")
            start = b
    return ", ".join(spans)


def merge_parts(parts: list[Path], output: Path, force: bool = False) -> Path:
    """Join parts into output (holding traces.otf2); returns the anchor path."""
    if not parts:
        raise GridscopeError(None, "give at least one trace part to merge")
    for part in parts:
        _check_part(part)
    reference = (parts[0] / GLOBAL_DEFS).read_bytes()
    for part in parts[1:]:
        if (part / GLOBAL_DEFS).read_bytes() != reference:
            raise GridscopeError(part, f"global definitions differ from {parts[0]}'s: the "
                                       "parts come from different runs")
    expected = set(_locations(parts[0]))
    owner: dict[int, Path] = {}
    files: list[Path] = []
    for part in parts:
        for loc, paths in _files_by_location(part).items():
            if loc in owner:
                raise GridscopeError(part, f"location {loc} is also in {owner[loc]}")
            if loc not in expected:
                raise GridscopeError(part, f"location {loc} is not defined by the run")
            owner[loc] = part
            files += paths
    missing = sorted(expected - owner.keys())
    if missing:
        raise GridscopeError(None, f"no part holds location(s) {_ranges(missing)}; "
                                   "give every metahost's part")

    prepare_output(output, force)
    (output / LOCATION_DIR).mkdir(parents=True)
    shutil.copy2(parts[0] / ANCHOR, output / ANCHOR)
    shutil.copy2(parts[0] / GLOBAL_DEFS, output / GLOBAL_DEFS)
    from rich.progress import track

    for f in track(files, description="joining parts", transient=True,
                   disable=len(files) < 64):
        shutil.copy2(f, output / LOCATION_DIR / f.name)
    check = _otf2_print(["--silent", "-Werror", str(output / ANCHOR)])
    if check.returncode != 0:
        first = (check.stderr.strip().splitlines() or ["unknown error"])[0]
        raise GridscopeError(output, f"merged archive does not validate: {first}")
    return output / ANCHOR
