"""Where the native parts (collector, replay engine, collectives) are installed.

A wheel carries them in ``gridscope/_native/{bin,lib,include,share}``. During development
``GRIDSCOPE_NATIVE_DIR`` may point at a ``cmake --install`` prefix instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from gridscope.errors import GridscopeError

NATIVE_ENV = "GRIDSCOPE_NATIVE_DIR"


def native_dir() -> Path:
    override = os.environ.get(NATIVE_ENV)
    if override:
        return Path(override)
    return Path(__file__).resolve().parent / "_native"


def _existing(path: Path, what: str) -> Path:
    if not path.exists():
        raise GridscopeError(
            path, f"{what} is missing; reinstall gridscope (make install) or set {NATIVE_ENV}"
        )
    return path


def binary(name: str) -> Path:
    """A native executable, e.g. ``binary("gridscope-replay")``."""
    return _existing(native_dir() / "bin" / name, "native program")


def library(name: str) -> Path:
    """A native library file, e.g. ``library("libgridscope_collector.so")``."""
    return _existing(native_dir() / "lib" / name, "native library")


def include_dir() -> Path:
    return _existing(native_dir() / "include", "native headers")


def share_dir() -> Path:
    return _existing(native_dir() / "share", "native data")
