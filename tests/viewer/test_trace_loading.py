"""The server listens before the trace is read (issue 27): the profile answers at once,
trace endpoints answer 503 with the progress, then the data; a trace that cannot be read
reaches the page and the terminal as one line.

The read is held by an event (no test waits for a time to pass)."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

import gridscope.viewer.server as server_module
from gridscope.errors import GridscopeError
from gridscope.viewer.server import make_server
from test_browser import CHROMIUM, node_project  # noqa: F401  (the fixture is used by name)
from test_cli_view import start_view
from test_server import get_json, request
from viewer_shared import static_env

PATIENT = 600  # s: only a hang reaches it, never a loaded machine

@pytest.fixture()
def held_read(monkeypatch):
    """open_trace that reports 42 % and then waits for `release` before it reads."""
    release, reached = threading.Event(), threading.Event()
    real = server_module.open_trace

    def held(anchor, folder, progress=None, **kw):
        if progress is not None:
            progress(0.42)
        reached.set()
        release.wait()
        return real(anchor, folder, progress=progress, **kw)

    monkeypatch.setattr(server_module, "open_trace", held)
    yield release, reached
    release.set()  # never leave a thread waiting


@pytest.fixture()
def fresh_run(tmp_path, demo_run) -> Path:
    """A copy of the demo run without its cache: its first view dumps the trace."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run, ignore=shutil.ignore_patterns(".gridscope-cache"))
    return run


@pytest.fixture()
def damaged_run(tmp_path, demo_run) -> Path:
    """The demo run's profile with a trace that is no OTF2 archive."""
    run, trace = tmp_path / "damaged", tmp_path / "broken-trace"
    run.mkdir()
    trace.mkdir()
    (trace / "traces.otf2").write_bytes(b"not an archive")
    summary = json.loads((demo_run / "summary.json").read_text())
    summary["trace"] = str(trace / "traces.otf2")
    (run / "summary.json").write_text(json.dumps(summary))
    shutil.copy(demo_run / "profile.cubex", run / "profile.cubex")
    return run


def serving(run):
    import os

    os.environ.update(static_env())
    srv = make_server(run, "127.0.0.1", 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def test_profile_answers_while_the_trace_is_read(fresh_run, held_read):
    release, reached = held_read
    srv = serving(fresh_run)
    try:
        assert reached.wait(PATIENT)
        meta = get_json(srv, "/api/meta")
        assert meta["has_trace"] and meta["has_profile"] and "rows" not in meta
        assert meta["load"] == {"loading": True, "step": "reading the trace", "error": None, "progress": 42}
        assert get_json(srv, "/api/profile")["metrics"]
        for path in ("/api/timeline?t0=0&t1=10&width=10", "/api/timeline/group?t0=0&t1=10&width=10&metahost=jsc",
                     "/api/window?t0=0&t1=10", "/api/comm", "/api/waitstates?pattern=late_sender"):
            resp, body = request(srv, path)
            assert resp.status == 503, path
            answer = json.loads(body)
            assert answer["loading"] and answer["progress"] == 42 and "42 %" in answer["error"]
        release.set()
        srv.data.wait_loaded()
        meta = get_json(srv, "/api/meta")
        assert meta["load"]["progress"] == 100 and not meta["load"]["loading"] and len(meta["rows"]) == 8
        assert meta["patterns"] == ["late_sender", "wait_at_nxn"]
        assert get_json(srv, f"/api/timeline?t0=0&t1={meta['duration_ns']}&width=100")["rows"]
    finally:
        srv.shutdown()
        srv.server_close()


def test_dump_reports_progress(fresh_run):
    from gridscope.viewer.trace import dump

    anchor = Path(json.loads((fresh_run / "summary.json").read_text())["trace"])
    heard = []
    dump(anchor, fresh_run / "out", progress=heard.append)
    assert heard and heard == sorted(heard) and 0 < heard[-1] <= 1


def test_unreadable_trace_is_one_line_for_the_server(damaged_run):
    srv = serving(damaged_run)
    try:
        with pytest.raises(GridscopeError, match="traces.otf2: cannot read the trace"):
            srv.data.wait_loaded()
        assert get_json(srv, "/api/profile")["metrics"]  # the profile is still there
        resp, body = request(srv, "/api/timeline?t0=0&t1=10&width=10")
        answer = json.loads(body)
        assert resp.status == 503 and not answer["loading"]
        assert answer["error"].startswith("gridscope: ") and "cannot read the trace" in answer["error"]
        assert "\n" not in answer["error"]
        assert get_json(srv, "/api/meta")["load"]["error"] == answer["error"]
    finally:
        srv.shutdown()
        srv.server_close()


def test_unreadable_trace_is_one_line_in_the_terminal(damaged_run):
    proc, _ = start_view(damaged_run)
    first: list[str] = []
    reader = threading.Thread(target=lambda: first.append(proc.stderr.readline()), daemon=True)
    reader.start()  # the CLI prints the background error as it happens
    reader.join(PATIENT)
    proc.terminate()
    proc.wait()
    line = first[0] if first else ""
    rest = proc.stderr.read()
    assert "cannot read the trace" in line and "traces.otf2" in line, line + rest
    assert "Traceback" not in line + rest


def test_page_shows_loading_then_the_picture(node_project, fresh_run, held_read):
    release, _ = held_read
    srv = serving(fresh_run)
    url = f"http://127.0.0.1:{srv.server_address[1]}/"
    proc = subprocess.Popen(["node", "browser_check.mjs", "loading", url, ""], cwd=node_project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**__import__("os").environ, "CHROMIUM": CHROMIUM})
    try:
        first = proc.stdout.readline()
        release.set()  # the page has shown the loading state (or the check failed)
        out, err = proc.communicate()
    finally:
        release.set()
        srv.shutdown()
        srv.server_close()
    assert proc.returncode == 0, err
    assert first == "saw-loading\n", first + out
    report = json.loads(out)
    assert report["ok"], report.get("error")
    assert not report["page_errors"] and not report["console_errors"]
    seen = report["while_loading"]
    assert seen["ready"] == "1" and seen["loaded"] is None and seen["canvas_ready"] == "0"
    assert seen["text"] == "reading the trace… 42 %"
    assert all(n > 0 for n in seen["trees"]), seen["trees"]
    assert "reading the trace" in seen["status"]
    after = report["after"]
    assert after["loading"] is None and after["rows"] == 8 and after["chips"] == 2
    assert "events, 8 locations" in after["status"]


def test_page_shows_an_unreadable_trace(node_project, damaged_run):
    from test_browser import viewed

    report = viewed(node_project, damaged_run, "loaderror")
    shown = report["load_error"]
    assert shown["canvas"] and "cannot read the trace" in shown["canvas"] and "traces.otf2" in shown["canvas"]
    assert shown["status_is_error"] and shown["status"] == shown["canvas"]
    assert shown["trees"] > 0  # the profile is still browsable


def test_closing_the_viewer_ends_a_running_dump():
    """A viewer closed during a first view does not wait for the dump: the helper is ended
    (here a stand-in that would run for ten minutes)."""
    from gridscope.viewer import trace

    done = []
    worker = threading.Thread(target=lambda: done.append(trace._run_streaming(["sleep", "600"], lambda line: None)))
    worker.start()
    while not trace._STREAMING and worker.is_alive():  # until the helper runs
        threading.Event().wait(0.01)
    trace.stop_background_tools()
    worker.join(PATIENT)
    assert not worker.is_alive() and done[0].returncode != 0 and not trace._STREAMING
