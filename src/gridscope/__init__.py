"""gridscope: trace-based performance analysis of metacomputing MPI runs.

Heavy modules (pandas, numpy, the analysis) load only when used, so that the command
line starts fast.
"""

from gridscope.version import __version__

__all__ = ["__version__", "load"]


def load(folder):
    """Open an analysis folder (``gridscope analyze -o OUT``) as pandas DataFrames."""
    from gridscope.analysis import load as _load

    return _load(folder)
