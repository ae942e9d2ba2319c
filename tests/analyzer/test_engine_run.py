"""EngineRun (gridscope.analysis.engine): the driver goes on at the engine's "output
written" line, reports a failed engine from its stderr, and never blocks on a full pipe."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gridscope.analysis import names as N
from gridscope.analysis.engine import EngineRun
from gridscope.errors import GridscopeError


def run(script: str) -> EngineRun:
    stderr = tempfile.TemporaryFile(mode="w+")
    popen = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=stderr, text=True)
    return EngineRun(popen, stderr, Path("trace/traces.otf2"))


def test_output_written_then_a_failing_shutdown_loses_nothing():
    with run(f"import sys; print({N.ENGINE_DONE!r}, flush=True); sys.exit(3)") as engine:
        engine.wait()  # no error: everything was written before the shutdown failed


def test_failure_before_the_output_is_the_engines_own_line():
    fails = f"import sys; sys.stderr.write({N.ENGINE_BINARY!r} + ': x/1.evt: truncated\\n'); sys.exit(2)"
    with run(fails) as engine:
        with pytest.raises(GridscopeError) as err:
            engine.wait()
    assert err.value.line() == "gridscope: x/1.evt: truncated"


def test_much_stderr_before_the_output_does_not_block():
    # 1 MiB on stderr, far beyond a pipe's 64 KiB, before the line the driver waits for
    with run(f"import sys; sys.stderr.write('w' * (1 << 20)); print({N.ENGINE_DONE!r}, flush=True)") as engine:
        engine.wait()
