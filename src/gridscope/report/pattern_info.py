"""Names, descriptions and diagnosis hints of the wait-state patterns.

They are declared once in patterns/patterns.toml, generated into
``gridscope.analysis.metric_tree``; when that module is not there (a partial install),
display names fall back to a readable form of the id and the texts stay empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

# Table 5 of seed 002 (and the order reports list patterns in).
TABLE5_PATTERNS = ("wait_at_barrier", "late_sender", "wait_at_nxn")


@dataclass(frozen=True)
class PatternInfo:
    id: str
    display: str
    description: str = ""
    diagnosis: str = ""
    parent: str = ""
    is_pattern: bool = True


def _readable(identifier: str) -> str:
    words = identifier.replace("nxn", "N×N").split("_")
    small = {"at", "in", "of", "to"}
    return " ".join(w if w == "N×N" or (i and w in small) else w.capitalize()
                    for i, w in enumerate(words))


@lru_cache(maxsize=1)
def pattern_table() -> dict[str, PatternInfo]:
    try:
        from gridscope.analysis import metric_tree
    except ImportError:
        return {}
    out = {}
    for decl in getattr(metric_tree, "METRICS", ()):
        out[decl.id] = PatternInfo(decl.id, decl.display, decl.description, decl.diagnosis,
                                   decl.parent, decl.kind == "pattern")
    return out


def info(pattern: str) -> PatternInfo:
    return pattern_table().get(pattern) or PatternInfo(pattern, _readable(pattern))


def display(pattern: str) -> str:
    return info(pattern).display
