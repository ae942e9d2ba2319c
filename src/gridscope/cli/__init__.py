"""`gridscope` command line: collects the commands of this package and runs them.

Each module here (other than `app`) defines one command or a small group; adding a
command is adding a module.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

from gridscope.errors import GridscopeError

DEBUG_ENV = "GRIDSCOPE_DEBUG"


def _register_commands(args: list[str] | tuple[str, ...] = ()) -> None:
    """Imports the command modules: only the one named by the first argument when there is
    one (each module is named after its command; importing and building every command's
    options took a few ms of each command's start), else all of them (--help, an unknown
    command)."""
    import pkgutil

    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name != "app" and not m.name.startswith("_")]
    if args and args[0] in names:
        names = [args[0]]
    for name in names:
        importlib.import_module(f"{__name__}.{name}")


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that clean-ups run as for Ctrl-C. A
    BaseException of its own: click turns KeyboardInterrupt into "Aborted!"."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated


def _exit_at_once() -> None:
    """Ends a successful command without the interpreter's clean-up, which tore down the
    loaded modules (pyarrow, pandas, numpy) for ~10 ms at the end of each command: its files
    are closed; the exit handlers run (a coverage tool's, say) and the standard streams are
    flushed. The normal exit instead while a thread that is not a daemon still runs (a
    background load writing a cache file: it is awaited) or under a profiler or tracer
    (`python -m cProfile -m gridscope ...` reports after the command returns)."""
    import atexit
    import threading

    if sys.getprofile() is not None or sys.gettrace() is not None or any(
            t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(0)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: nothing more to write
            pass
    os._exit(0)


def main(argv: list[str] | None = None) -> None:
    from gridscope.analysis.prelaunch import early_engine
    from gridscope.outputs import os_error, output_of, removed_on_failure

    args = sys.argv[1:] if argv is None else list(argv)
    # A file-size limit makes writes fail (EFBIG) instead of killing us, and the engine
    # (the disposition is inherited); SIGTERM cleans up as Ctrl-C does.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    out = output_of(args)
    try:
        # (typer is imported after the engine started: prelaunch)
        with removed_on_failure(out), early_engine(args):
            _register_commands(args)
            from gridscope.cli.app import app

            app(args=args, prog_name="gridscope")
    except SystemExit as done:
        if argv is not None or done.code not in (None, 0):  # (a caller in this process goes on)
            raise
        _exit_at_once()
    except GridscopeError as err:
        print(err.line(), file=sys.stderr)
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        print("gridscope: interrupted", file=sys.stderr)
        sys.exit(130)
    except Terminated:
        print("gridscope: terminated", file=sys.stderr)
        sys.exit(143)
    except UnicodeDecodeError as err:  # an input that should be text is not (its reader did not say which)
        print(GridscopeError(None, f"an input file is not UTF-8 text: {err.reason} at byte {err.start}").line(),
              file=sys.stderr)
        sys.exit(GridscopeError.exit_code)
    except OSError as err:  # the file system refused: read-only, full, file-size limit, ...
        print(os_error(err, out).line(), file=sys.stderr)
        sys.exit(GridscopeError.exit_code)
    except Exception as err:  # a bug, not bad input: one line unless debugging
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"gridscope: internal error: {type(err).__name__}: {err} "
            f"(set {DEBUG_ENV}=1 for the traceback)",
            file=sys.stderr,
        )
        sys.exit(70)
