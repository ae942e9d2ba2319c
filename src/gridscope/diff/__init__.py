"""Difference experiments between analysis folders (NEW − BASE, Cube algebra)."""

from gridscope.diff.compute import diff_runs
from gridscope.diff.runs import AnalysisRun, load_run

__all__ = ["AnalysisRun", "diff_runs", "load_run"]
