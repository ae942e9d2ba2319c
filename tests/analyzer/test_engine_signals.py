"""Ctrl-C and SIGTERM stop every process of `gridscope-replay --processes N` (-j N) at once,
none left behind, not even unreaped. The engine is held busy deterministically: its
anchor file is a FIFO nobody writes, so each process blocks opening the trace."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest


def _group(pgid: int) -> list[str]:
    return subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True).stdout.split()


@pytest.mark.parametrize(("sig", "to_group"), [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_signal_stops_all_processes(tmp_path, sig, to_group):
    from gridscope import native

    trace = tmp_path / "trace"
    trace.mkdir()
    os.mkfifo(trace / "traces.otf2")
    (tmp_path / "out").mkdir()
    popen = subprocess.Popen([str(native.binary("gridscope-replay")), "--processes", "3", "-o", str(tmp_path / "out"),
                              str(trace / "traces.otf2")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        while len(_group(popen.pid)) < 3 and popen.poll() is None:  # no deadline: load only slows it
            time.sleep(0.02)
        assert len(_group(popen.pid)) == 3, "the engine did not start its 3 processes"
        time.sleep(0.1)  # all blocked opening the FIFO
        if to_group:  # Ctrl-C in a terminal
            os.killpg(popen.pid, sig)
        else:  # only process 0, e.g. `kill PID`
            os.kill(popen.pid, sig)
        popen.communicate()
    finally:
        if popen.poll() is None:
            os.killpg(popen.pid, signal.SIGKILL)
            popen.wait()
    assert popen.returncode == -sig
    assert _group(popen.pid) == [], "an engine process was left behind"
