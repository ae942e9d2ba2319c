"""The demo applications installed with gridscope (share/apps, from testdata/apps) and
how to build them, for `gridscope demo` and users who want to try the testbed."""

from __future__ import annotations

from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError
from gridscope.testbed.cc import compile_program

APPS = ("metatrace", "ray2mesh", "collbench")
COMMON = "common"  # shared header gs_app.h


def apps_dir() -> Path:
    return native.share_dir() / "apps"


def source(name: str) -> Path:
    if name not in APPS:
        raise GridscopeError(name, f"not a demo application ({', '.join(APPS)})")
    path = apps_dir() / name / f"{name}.c"
    if not path.is_file():
        raise GridscopeError(path, "demo application source is missing; reinstall gridscope")
    return path


def build_app(name: str, output: Path, simulate: bool, echo: bool = False) -> Path:
    """Compile a demo application (simulated: smpicc + collector; else mpicc)."""
    compile_program([str(source(name)), f"-I{apps_dir() / COMMON}", "-O2", "-lm"], output,
                    simulate, echo=echo)
    return output
