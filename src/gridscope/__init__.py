"""gridscope: trace-based performance analysis of metacomputing MPI runs.

Heavy modules (pandas, numpy, the analysis) load only when used, so that the command
line starts fast.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "load"]


def load(folder):
    """Open an analysis folder (``gridscope analyze -o OUT``) as pandas DataFrames."""
    from gridscope.analysis import load as _load

    return _load(folder)
