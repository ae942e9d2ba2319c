"""`gridscope view` as users start it: prints a URL, serves, refuses bad input with one line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from viewer_shared import gridscope_env, run_gridscope, static_env

URL = re.compile(r"(http://127\.0\.0\.1:\d+/)")


def start_view(run, *extra):
    """Start `gridscope view RUN --no-browser --port 0`; return (process, url)."""
    env = gridscope_env(static_env())
    proc = subprocess.Popen([sys.executable, "-m", "gridscope", "view", str(run), "--no-browser", "--port", "0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    match = URL.search(line)
    if not match:
        proc.kill()
        pytest.fail(f"no URL printed: {line!r} {proc.stderr.read()}")
    return proc, match.group(1)


def test_view_prints_url_and_serves(demo_run):
    proc, url = start_view(demo_run)
    try:
        with urllib.request.urlopen(url + "api/meta") as resp:
            meta = json.load(resp)
        assert meta["run"] == demo_run.name
        with urllib.request.urlopen(url) as resp:
            assert b"gridscope" in resp.read()
    finally:
        proc.terminate()
        proc.wait()


def test_view_on_other_host_warns(demo_run):
    proc, _ = start_view(demo_run, "--host", "127.0.0.1")
    proc.terminate()
    proc.wait()
    assert "warning" not in proc.stderr.read()
    env = gridscope_env(static_env())
    proc = subprocess.Popen([sys.executable, "-m", "gridscope", "view", str(demo_run), "--no-browser",
                             "--port", "0", "--host", "0.0.0.0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    proc.terminate()
    proc.wait()
    assert "0.0.0.0" in line
    assert "warning: listening on 0.0.0.0" in proc.stderr.read()


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, "no such directory"),
    (lambda p: p.mkdir(), "no summary.json"),
    (lambda p: (p.mkdir(), (p / "summary.json").write_text("[1,")), "not valid JSON"),
])
def test_view_bad_input_is_one_line(tmp_path, setup, message):
    run = tmp_path / "run"
    setup(run)
    proc = run_gridscope("view", run, "--no-browser", check=False)
    assert proc.returncode == 2
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_view_bad_port(demo_run):
    proc = run_gridscope("view", demo_run, "--port", "70000", "--no-browser", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
