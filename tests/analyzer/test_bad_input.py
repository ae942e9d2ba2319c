"""Bad input: one clear line naming the file, exit 2, no traceback, no hang (also under -j 2 and
-j 3, with no engine process left behind)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from analyzer_helpers import MPI_ENV, fails_with, gridscope


@pytest.fixture
def copy_of(make_trace, tmp_path):
    def copy(name: str):
        dst = tmp_path / f"copy-{name}"
        shutil.copytree(make_trace(name), dst)
        return dst

    return copy


def truncate(path, fraction=0.5):
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])


def test_missing_trace(tmp_path):
    fails_with(tmp_path / "nope", out=tmp_path / "o", expect_where=tmp_path / "nope", expect_problem="no such trace")


def test_not_an_archive(tmp_path):
    bad = tmp_path / "x.otf2"
    bad.write_text("garbage\n")
    fails_with(bad, out=tmp_path / "o", expect_where=bad, expect_problem="cannot open the OTF2 archive")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_truncated_event_file(copy_of, tmp_path, jobs):
    trace = copy_of("late_sender")
    truncate(trace / "traces" / "1.evt")
    fails_with(trace, "-j", jobs, out=tmp_path / "o", expect_where=trace / "traces" / "1.evt",
               expect_problem="truncated")


def test_corrupt_event_stream(copy_of, tmp_path):
    trace = copy_of("late_sender")
    evt = trace / "traces" / "0.evt"
    data = bytearray(evt.read_bytes())
    for i in range(20, len(data) - 4):
        data[i] = (data[i] * 7 + 13) & 0xFF
    evt.write_bytes(bytes(data))
    fails_with(trace, out=tmp_path / "o", expect_where=evt, expect_problem="corrupt")


def test_missing_event_file_is_a_lost_rank(copy_of, tmp_path):
    """A rank without event file (killed before its first flush) does not stop the
    analysis of the others: it is named (docs/analyzer.md, "Partial traces")."""
    trace = copy_of("late_sender")
    (trace / "traces" / "2.evt").unlink()
    proc = gridscope("analyze", trace, "-o", tmp_path / "o", "-q", "--allow-unmatched")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["lost_ranks"] == [2]
    assert summary["repaired_regions"]["lost"] == 1
    assert "no events of rank(s) 2" in proc.stderr


def test_missing_definitions(copy_of, tmp_path):
    trace = copy_of("late_sender")
    (trace / "traces.def").unlink()
    fails_with(trace, out=tmp_path / "o", expect_where=trace / "traces.otf2", expect_problem="definitions")


def test_truncated_definitions(copy_of, tmp_path):
    trace = copy_of("late_sender")
    truncate(trace / "traces.def")
    fails_with(trace, out=tmp_path / "o", expect_where=trace / "traces.otf2", expect_problem="definitions")


def test_trace_without_mpi_events(make_trace, tmp_path):
    trace = make_trace("no_mpi")
    fails_with(trace, out=tmp_path / "o", expect_where=trace / "traces.otf2", expect_problem="no MPI events")


def test_unmatched_messages_are_reported(make_trace, tmp_path):
    trace = make_trace("unmatched")
    fails_with(trace, out=tmp_path / "o", expect_where=trace / "traces.otf2",
               expect_problem="1 unmatched messages (1 sends without a receive")
    proc = gridscope("analyze", trace, "-o", tmp_path / "o2", "-q", "--allow-unmatched")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "o2" / "summary.json").read_text())
    assert summary["unmatched_messages"] == {"sends": 1, "receives": 0}


def test_metahost_map_matching_nothing(make_trace, tmp_path):
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps({"X": ["nomatch-*"]}))
    fails_with(make_trace("late_sender"), "--metahosts", map_file, out=tmp_path / "o",
               expect_where=map_file, expect_problem="no metahost matches rank 0")


def test_bad_jobs(make_trace, tmp_path):
    proc = gridscope("analyze", make_trace("late_sender"), "-o", tmp_path / "o", "-j", "0")
    assert proc.returncode == 2 and "-j must be at least 1" in proc.stderr


@pytest.mark.parametrize("option", ["--latency-node", "--latency-host", "--latency-grid"])
def test_latency_options(make_trace, tmp_path, option):
    trace = make_trace("clc_grid")
    alone = gridscope("analyze", trace, "-o", tmp_path / "o", option, "1e-6")
    assert alone.returncode == 2 and "only with --time-correct" in alone.stderr
    negative = gridscope("analyze", trace, "-o", tmp_path / "o", "--time-correct", option, "-1e-6")
    assert negative.returncode == 2 and "Traceback" not in negative.stderr


@pytest.mark.parametrize("value", ["abc", "-1e-6", "nan", ""])
def test_engine_rejects_a_bad_latency(make_trace, tmp_path, value):
    from gridscope import native

    proc = subprocess.run([str(native.binary("gridscope-replay")), "--time-correct", "--latency-grid", value,
                           "-o", str(tmp_path / "o"), str(make_trace("clc_grid"))], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"gridscope-replay: --latency-grid: not a latency in seconds "
                                        f"(a number >= 0): {value}"]


def test_unknown_rules(make_trace, tmp_path):
    from gridscope import native

    proc = gridscope("analyze", make_trace("late_sender"), "-o", tmp_path / "o", "--rules", "scout")
    assert proc.returncode == 2 and "--rules" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()
    engine = subprocess.run([str(native.binary("gridscope-replay")), "--rules", "scout", "-o", str(tmp_path / "e"),
                             str(make_trace("late_sender"))], capture_output=True, text=True)
    assert engine.returncode == 2
    assert engine.stderr.splitlines() == ["gridscope-replay: --rules: scalasca or gridscope, not scout"]


def _group_gone(pgid: int, seconds: float = 600.0) -> bool:
    """No process (not even an unreaped one) is left in process group `pgid` (the bound is
    for a process that never ends; a loaded machine's slow exit stays far below it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def _run_in_own_group(cmd: list[str]) -> tuple[subprocess.CompletedProcess, bool]:
    """Runs `cmd` as the leader of a new process group; (its result, whether the group was
    empty afterwards)."""
    env = dict(os.environ, **MPI_ENV)
    popen = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, start_new_session=True)
    try:
        out, err = popen.communicate()
    finally:
        if popen.poll() is None:
            os.killpg(popen.pid, signal.SIGKILL)
            popen.wait()
    return subprocess.CompletedProcess(cmd, popen.returncode, out, err), _group_gone(popen.pid)


# 4 ranks on 3 processes: process 0 owns ranks 0 and 1, process 1 rank 2, process 2 rank 3.
@pytest.mark.parametrize(("damaged", "where"), [
    ("traces/3.evt", "traces/3.evt"),      # a child fails, the others wait for it in an exchange
    ("traces/0.evt", "traces/0.evt"),      # process 0 fails, its children wait for it
    ("traces.def", "traces.otf2"),         # every process fails (each reads the definitions)
])
def test_three_processes_fail_with_one_line_and_leave_nothing(copy_of, tmp_path, damaged, where):
    from gridscope import native

    trace = copy_of("late_sender")
    truncate(trace / damaged)
    (tmp_path / "e").mkdir()
    engine, ok = _run_in_own_group([native.binary("gridscope-replay"), "--processes", "3", "-o", tmp_path / "e",
                                    trace])
    assert engine.returncode == 2, engine.stderr
    lines = engine.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gridscope-replay: {trace / where}: "), engine.stderr
    assert ok, "an engine process was left behind"
    app, ok = _run_in_own_group([sys.executable, "-m", "gridscope", "analyze", trace, "-o", tmp_path / "o", "-j", "3",
                                 "-q"])
    assert app.returncode == 2, app.stderr
    assert app.stderr.splitlines() == [lines[0].replace("gridscope-replay: ", "gridscope: ", 1)], app.stderr
    assert ok, "a process was left behind"
