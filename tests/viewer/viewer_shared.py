"""Shared helpers for this folder: the project-wide ones (tests/gstest.py) plus static_env."""

from gstest import SCOREP_TRACES, gridscope_env, run_gridscope  # noqa: F401  (re-exported)


def static_env() -> dict[str, str]:
    """Serve the installed viewer files when they exist (what users get), else the sources."""
    import os

    from gridscope.errors import GridscopeError
    from gridscope.native import share_dir

    try:
        if (share_dir() / "viewer" / "index.html").is_file():
            return {}
    except GridscopeError:
        pass
    return {"GRIDSCOPE_VIEWER_STATIC": os.environ.get(
        "GRIDSCOPE_VIEWER_STATIC", str(Path(__file__).resolve().parents[2] / "viewer" / "static"))}
