"""Analysis folders as diff and report read them: ``summary.json`` + ``profile.cubex``.

Made by ``gridscope analyze -o OUT`` or by ``gridscope diff`` (closure: a difference is
again an analysis folder, marked by a ``"diff"`` key in its summary).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

SUMMARY = "summary.json"
PROFILE = "profile.cubex"
DIFF_KEY = "diff"
LIST_KEYS = ("by_callpath", "by_metahost", "p2p", "root_causes", "cause_pairs", "critical_path")
CLASSES = ("grid", "local")


@dataclass(frozen=True)
class AnalysisRun:
    folder: Path
    summary: dict

    @property
    def name(self) -> str:
        return self.folder.name or str(self.folder)

    @property
    def profile(self) -> Path:
        return self.folder / PROFILE

    @property
    def is_diff(self) -> bool:
        return DIFF_KEY in self.summary

    def experiment(self):
        from gridscope.cube import read_cubex

        if not self.profile.is_file():
            raise GridscopeError(self.profile, "analysis folder has no profile.cubex")
        return read_cubex(self.profile)


def _number(value, where: Path, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise GridscopeError(where, f"{key} is not a finite number: {value!r}")
    return float(value)


def check_summary(data, where: Path) -> dict:
    """Validate the parts of summary.json diff and report rely on; returns DATA."""
    from gridscope.analysis.summary_shape import check

    check(data, where)  # the types of every value the readers use
    for key in ("total_time_s", "mpi_time_s"):
        if key not in data:
            raise GridscopeError(where, f"summary lacks {key!r}")
        _number(data[key], where, key)
    patterns = data.get("patterns")
    if not isinstance(patterns, dict):
        raise GridscopeError(where, "summary lacks a 'patterns' object")
    for pattern, split in patterns.items():
        if not isinstance(split, dict):
            raise GridscopeError(where, f"patterns.{pattern} is not an object")
        for cls in CLASSES:
            _number(split.get(cls, 0.0), where, f"patterns.{pattern}.{cls}")
    for key in LIST_KEYS:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
            raise GridscopeError(where, f"{key} is not a list of objects")
    for row in data.get("by_callpath", []):
        for field in ("pattern", "callpath"):
            if not isinstance(row.get(field), str):
                raise GridscopeError(where, f"by_callpath entry lacks a text {field!r}")
        _number(row.get("seconds"), where, "by_callpath.seconds")
    return data


def load_run(folder: str | Path) -> AnalysisRun:
    folder = Path(folder)
    if not folder.is_dir():
        raise GridscopeError(folder, "not an analysis folder (no such directory)")
    path = folder / SUMMARY
    if not path.is_file():
        raise GridscopeError(folder, "not an analysis folder: summary.json is missing "
                                     "(make one with `gridscope analyze -o FOLDER`)")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise GridscopeError(path, f"not valid JSON ({err})") from None
    return AnalysisRun(folder, check_summary(data, path))
