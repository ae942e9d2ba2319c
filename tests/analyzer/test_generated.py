"""patterns/patterns.toml is the one declaration: generated files must not be stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_generated_files_are_current():
    proc = subprocess.run([sys.executable, str(REPO / "patterns" / "generate.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_metric_tree_matches_declaration():
    import tomllib

    from gridscope.analysis.metric_tree import METRICS, PATTERNS

    declared = tomllib.loads((REPO / "patterns" / "patterns.toml").read_text())["metric"]
    assert [m["id"] for m in declared] == [m.id for m in METRICS]
    assert list(PATTERNS) == [m["id"] for m in declared if m["kind"] == "pattern"]
