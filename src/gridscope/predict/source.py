"""What a prediction starts from: TRACE (a trace folder or traces.otf2) or RUN (a folder of
`gridscope record --platform` or of `gridscope analyze`), and what the recording says about
itself (record.json: platform, collectives, hosts)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

ANCHOR = "traces.otf2"
RECORD_SETTINGS = "record.json"
SUMMARY = "summary.json"
PRESET_PREFIX = "preset "


@dataclass(frozen=True)
class Source:
    anchor: Path
    platform: str | None  # the platform the run was recorded on (simulated runs), else None
    collectives: str | None  # vanilla | topo | auto when recorded by the testbed


def _anchor_of(path: Path) -> Path:
    if path.is_file():
        if path.suffix != ".otf2":
            raise GridscopeError(path, "not an OTF2 anchor file (*.otf2), trace folder or run folder")
        return path
    if (path / ANCHOR).is_file():
        return path / ANCHOR
    if (path / SUMMARY).is_file():  # an analysis folder names its trace
        try:
            trace = json.loads((path / SUMMARY).read_text())["trace"]
        except (ValueError, KeyError, TypeError):
            raise GridscopeError(path / SUMMARY, "does not name the analysed trace") from None
        if not Path(trace).is_file():
            raise GridscopeError(path / SUMMARY, f"names trace {trace}, which does not exist")
        return Path(trace)
    raise GridscopeError(path, "holds no trace (traces.otf2) and no analysis (summary.json)")


def resolve(path: Path) -> Source:
    path = Path(path).absolute()
    if not path.exists():
        raise GridscopeError(path, "no such trace or run")
    anchor = _anchor_of(path)
    settings = anchor.parent / RECORD_SETTINGS
    platform = coll = None
    if settings.is_file():
        try:
            data = json.loads(settings.read_text())
            platform, coll = data.get("platform"), data.get("coll")
            if isinstance(platform, str) and platform.startswith(PRESET_PREFIX):
                platform = platform[len(PRESET_PREFIX):]  # Platform.source of a preset
        except (ValueError, AttributeError):
            raise GridscopeError(settings, "is not valid JSON") from None
    return Source(anchor, platform, coll)
