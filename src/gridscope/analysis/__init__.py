"""Wait-state analysis: runs the native replay engine and turns its output into an
analysis folder (profile.cubex, summary.json, waitstates.feather).

Heavy imports (numpy, pandas) happen inside the modules that need them, not here.
"""

from __future__ import annotations


def load(folder):  # noqa: ANN001, ANN201 - thin lazy wrapper
    """``gridscope.analysis.load(OUT)``: the analysis folder as pandas DataFrames."""
    from gridscope.analysis.loader import load as _load

    return _load(folder)


__all__ = ["load"]
