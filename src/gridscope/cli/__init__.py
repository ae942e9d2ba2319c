"""`gridscope` command line: collects the commands of this package and runs them.

Each module here (other than `app`) defines one command or a small group; adding a
command is adding a module.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

from gridscope.cli.app import app
from gridscope.errors import GridscopeError

DEBUG_ENV = "GRIDSCOPE_DEBUG"


def _register_commands() -> None:
    for module in pkgutil.iter_modules(__path__):
        if module.name != "app" and not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


def main(argv: list[str] | None = None) -> None:
    _register_commands()
    try:
        app(args=argv, prog_name="gridscope")
    except GridscopeError as err:
        print(err.line(), file=sys.stderr)
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        print("gridscope: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:  # a bug, not bad input: one line unless debugging
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"gridscope: internal error: {type(err).__name__}: {err} "
            f"(set {DEBUG_ENV}=1 for the traceback)",
            file=sys.stderr,
        )
        sys.exit(70)
