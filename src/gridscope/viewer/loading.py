"""The trace's columns and the run's wait states, read in the background.

The first view of a large run dumps its trace (seconds at 1,024 ranks): the server listens
at once, answers the profile meanwhile and says how far the reading got; endpoints that
need the trace answer 503 until it is there (issue 27).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from gridscope.errors import GridscopeError


class NotLoaded(Exception):
    """The trace is still being read, or reading it failed."""


class BackgroundLoad:
    """Runs WORK(report) in a thread; report(fraction) tells how far it got (0..1)."""

    def __init__(self, work: Callable[[Callable[[float], None]], None], step: str = "reading the trace"):
        self.step = step
        self.fraction = 0.0
        self.error: str | None = None
        self.stopped = False  # stop() was called: an error after it is the stop, not news
        self.finished = threading.Event()
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gridscope-load")
        pool.submit(self._run, work)
        pool.shutdown(wait=False)  # the thread ends with WORK

    def _run(self, work) -> None:
        try:
            work(self._report)
        except GridscopeError as err:
            self.error = err.line()
        except Exception as err:  # a bug: one line for the user, not a silent hang
            self.error = f"gridscope: internal error while reading the trace: {type(err).__name__}: {err}"
        finally:
            self.finished.set()

    def _report(self, fraction: float) -> None:
        self.fraction = min(max(fraction, self.fraction), 1.0)

    @property
    def ok(self) -> bool:
        return self.finished.is_set() and self.error is None

    def status(self) -> dict:
        done = self.finished.is_set()
        return {"loading": not done, "step": self.step, "error": self.error,
                "progress": 100 if self.ok else int(self.fraction * 100)}

    def stop(self) -> None:
        """The server is closing: end a running dump instead of waiting for it."""
        from gridscope.viewer.trace import stop_background_tools

        self.stopped = True
        if not self.finished.is_set():
            stop_background_tools()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end (for tests and benchmarks); True if it ended."""
        return self.finished.wait(timeout)
