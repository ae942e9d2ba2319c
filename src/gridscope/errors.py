"""The one error type users see: a file (or thing) and what is wrong with it.

Raise ``GridscopeError(path, problem)`` for any bad input; the command line prints it as
one line and exits non-zero, never with a traceback.
"""

from __future__ import annotations

import os


class GridscopeError(Exception):
    """Bad input or a failed step, reported as ``gridscope: PATH: PROBLEM``."""

    exit_code = 2

    def __init__(self, where: str | os.PathLike | None, problem: str):
        self.where = os.fspath(where) if where is not None else None
        self.problem = problem
        super().__init__(self.line())

    def line(self) -> str:
        if self.where:
            return f"gridscope: {self.where}: {self.problem}"
        return f"gridscope: {self.problem}"
