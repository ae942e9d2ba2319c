"""A successful command ends without the interpreter's clean-up (gridscope.cli._exit_at_once):
nothing it wrote or started may be lost by that."""

import subprocess
import sys

from gstest import gridscope_env, run_gridscope

_UNFLUSHED = """
import sys
from gridscope.cli import _exit_at_once
sys.stdout.write("no newline, still buffered")
sys.stderr.write("and on stderr")
_exit_at_once()
"""

_BUSY_THREAD = """
import sys, threading, time
from pathlib import Path
from gridscope.cli import _exit_at_once

def write_late():
    time.sleep(0.2)  # still running when the command ends
    Path(sys.argv[1]).write_text("written")

threading.Thread(target=write_late).start()
_exit_at_once()
"""


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=gridscope_env())


def test_the_standard_streams_are_flushed():
    proc = _python("-c", _UNFLUSHED)
    assert proc.returncode == 0
    assert proc.stdout == "no newline, still buffered"
    assert proc.stderr == "and on stderr"


def test_a_thread_still_running_is_awaited(tmp_path):
    target = tmp_path / "late.txt"
    proc = _python("-c", _BUSY_THREAD, str(target))
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "written"


def test_a_command_through_a_pipe_is_complete():
    """The whole help text, through a pipe (block-buffered), from the real entry point: its
    last option is the last line."""
    proc = run_gridscope("analyze", "--help")
    assert proc.stdout.splitlines()[-1].split()[:2] == ["-h,", "--help"], proc.stdout[-300:]
    assert "--no-root-causes" in proc.stdout


_EXIT_HANDLER = """
import atexit, sys
from pathlib import Path
from gridscope.cli import _exit_at_once

atexit.register(lambda: Path(sys.argv[1]).write_text("saved"))
_exit_at_once()
"""


def test_the_exit_handlers_run(tmp_path):
    """(a coverage tool saves its data in one)"""
    target = tmp_path / "saved.txt"
    proc = _python("-c", _EXIT_HANDLER, str(target))
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "saved"


def test_a_profiled_command_reports(tmp_path):
    proc = _python("-m", "cProfile", "-s", "tottime", "-m", "gridscope", "version")
    assert proc.returncode == 0, proc.stderr
    assert "function calls" in proc.stdout
