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


def test_wait_states_written_then_the_output():
    script = f"print({N.ENGINE_WAITS_WRITTEN!r}, flush=True); print({N.ENGINE_DONE!r}, flush=True)"
    with run(script) as engine:
        assert engine.wait_for_wait_states()
        engine.wait()


def test_without_root_causes_the_output_comes_first():
    with run(f"print({N.ENGINE_DONE!r}, flush=True)") as engine:
        assert not engine.wait_for_wait_states()
        engine.wait()  # already read: returns at once


def test_failure_after_the_wait_states_is_reported():
    fails = (f"import sys; print({N.ENGINE_WAITS_WRITTEN!r}, flush=True); "
             f"sys.stderr.write({N.ENGINE_BINARY!r} + ': root causes: out of memory\\n'); sys.exit(2)")
    with run(fails) as engine:
        assert engine.wait_for_wait_states()
        with pytest.raises(GridscopeError) as err:
            engine.wait()
    assert err.value.line() == "gridscope: root causes: out of memory"


@pytest.mark.parametrize("jobs", [1, 2])
def test_engine_says_when_its_wait_states_are_written(make_trace, tmp_path, jobs):
    """With root causes the engine announces its wait states before its root-cause pass, with
    each process's rows per phase as meta.json gives them afterwards; without, it does not.
    One process alone also says how many rows are on disk as it writes them: 0 first (its
    call paths are written), then growing counts up to all of them."""
    import json

    from gridscope import native

    trace = make_trace("late_sender") / "traces.otf2"
    engine = str(native.binary(N.ENGINE_BINARY))
    for root_causes in ("on", "off"):
        out = tmp_path / f"{root_causes}-{jobs}"
        out.mkdir()
        proc = subprocess.run([engine, "--processes", str(jobs), "-o", str(out), "--root-causes", root_causes,
                               str(trace)], capture_output=True, text=True, check=True)
        reports = [line for line in proc.stdout.splitlines() if line.startswith(N.ENGINE_WAIT_ROWS)]
        lines = [line for line in proc.stdout.splitlines() if line not in reports]
        rows = sorted(out.glob("waits.*.rows.json"))
        counts = [int(line[len(N.ENGINE_WAIT_ROWS):]) for line in reports]
        meta = json.loads((out / "meta.json").read_text())
        if jobs == 1:
            assert counts[0] == 0 and counts == sorted(counts)
            assert counts[-1] == sum(meta["process_stats"][0]["wait_rows"]) > 0
            assert proc.stdout.index(reports[-1]) < proc.stdout.index(lines[0])
        else:
            assert counts == []
        if root_causes == "off":
            assert lines == [N.ENGINE_DONE] and rows == []
            continue
        assert lines == [N.ENGINE_WAITS_WRITTEN, N.ENGINE_DONE]
        assert [json.loads((out / N.WAIT_ROWS_FILE.format(process=p)).read_text())["wait_rows"]
                for p in range(jobs)] == [s["wait_rows"] for s in meta["process_stats"]]
        assert len(rows) == jobs and sum(map(sum, (s["wait_rows"] for s in meta["process_stats"]))) > 0


def test_once_the_output_is_written_the_exit_is_not_awaited():
    # the "engine" says its output is written, then exits only when told (its stdin closes):
    # leaving the block must not wait for that exit (the engine frees a large trace's memory)
    stderr = tempfile.TemporaryFile(mode="w+")
    script = f"import sys; print({N.ENGINE_DONE!r}, flush=True); sys.stdin.read()"
    popen = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=stderr, text=True)
    with EngineRun(popen, stderr, Path("trace/traces.otf2")) as engine:
        engine.wait()
    assert popen.poll() is None  # still running: not awaited
    popen.stdin.close()
    assert popen.wait() == 0
