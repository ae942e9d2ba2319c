"""The viewer with root causes: the critical path on the timeline (stretches and cause -> wait
links from critical_path.feather), its download, and the summary tab's tables."""

from __future__ import annotations

import json
import shutil
import threading

import pandas as pd
import pytest

from test_browser import SCREENSHOT_DIR, node_project, run_check  # noqa: F401 (fixture)
from test_cli_view import start_view
from test_server import get_json, request


@pytest.fixture(scope="module")
def path_run(demo_run, tmp_path_factory):
    """The demo run with a critical path: rank 4 (brs) for the first third, then rank 1, then 0,
    and root-cause rows in its summary."""
    run = tmp_path_factory.mktemp("path") / "run"
    shutil.copytree(demo_run, run, ignore=shutil.ignore_patterns(".gridscope-cache"))
    summary = json.loads((run / "summary.json").read_text())
    import gridscope.viewer.trace as vt

    third = 1  # set below from the trace's duration
    from gridscope.viewer.run import RunFolder

    trace = vt.open_trace(RunFolder(run).trace_anchor, run)
    third = trace.duration_ns / 3 / 1e9
    pd.DataFrame({"rank": pd.Series([4, 1, 0], dtype="int32"), "start_s": [0.0, third, 2 * third],
                  "end_s": [third, 2 * third, 3 * third]}).to_feather(run / "critical_path.feather")
    summary.update({
        "root_cause_analysis": {"enabled": True},
        "root_causes": [{"callpath": "main/compute", "metahost": "brs", "kind": "computation",
                         "pattern": "late_sender", "class": "grid", "short_term_s": 0.5, "long_term_s": 0.25,
                         "total_s": 0.75, "waiting_s": {"jsc": 0.75}}],
        "critical_path": [{"callpath": "main/compute", "metahost": "brs", "seconds": 1.5, "imbalance_s": 0.5}],
        # the story's keys (findings.py shapes them)
        "duration_s": 2.0, "init_finalize_s": 0.5,
        "run": {"duration_s": 2.0, "critical_path_s": 1.5, "application_s": 10.0, "application_mpi_s": 4.0,
                "application_waiting_s": 2.5, "mpi_share": 0.4, "waiting_share": 0.25},
        "findings": [{"cause": {"kind": "computation", "role": "rank", "callpath": "main/compute", "metahost": "brs",
                                "ranks": [4], "link": None}, "metahosts": ["brs"], "cost_s": 0.75, "share": 0.075,
                      "patterns": ["late_sender"], "advice": "Rank 4 on brs spends more in main/compute.",
                      "gain_s": None}]})
    (run / "summary.json").write_text(json.dumps(summary))
    return run, third * 1e9


@pytest.fixture(scope="module")
def server(path_run):
    import os

    from gridscope.viewer.server import make_server
    from viewer_shared import static_env

    os.environ.update(static_env())
    srv = make_server(path_run[0], "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def test_timeline_sends_the_path_and_its_links(server, path_run):
    _, third = path_run
    meta = get_json(server, "/api/meta")
    assert meta["critical_path_count"] == 3
    row = {r["rank"]: i for i, r in enumerate(meta["rows"])}
    t1 = meta["duration_ns"]
    whole = get_json(server, f"/api/timeline?t0=0&t1={t1}&width=1000")
    assert whole["critical"]["row"] == [row[4], row[1], row[0]]
    assert whole["critical"]["start"] == [0, round(third), round(2 * third)]
    assert whole["links"]["from"] == [row[4], row[1]] and whole["links"]["to"] == [row[1], row[0]]
    assert whole["links"]["tf"] == whole["links"]["tt"] == [round(third), round(2 * third)]
    # a window holding the first third only, and rows without the path
    early = get_json(server, f"/api/timeline?t0=0&t1={int(third) - 1000}&width=500")
    assert early["critical"]["row"] == [row[4]] and early["links"]["from"] == []
    rows = get_json(server, f"/api/timeline?t0=0&t1={t1}&width=500&r0=2&r1=4")
    assert rows["critical"]["row"] == [] and rows["links"]["from"] == []


def test_critical_path_file_is_downloadable(server):
    meta = get_json(server, "/api/meta")
    assert "critical_path.feather" in meta["downloads"]
    resp, body = request(server, "/files/critical_path.feather")
    assert resp.status == 200 and body[:6] == b"ARROW1"


def test_browser_draws_the_path_and_hides_it_on_request(node_project, path_run):  # noqa: F811
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOT_DIR / "viewer-critical-path.png"
    proc, url = start_view(path_run[0])
    try:
        report = run_check(node_project, "path", url, shot)
    finally:
        proc.terminate()
        proc.wait()
    assert not report["page_errors"] and not report["console_errors"]
    assert report["toggle_visible"] and report["critical"] == 3 and report["links"] == 2
    assert report["on"][:3] == [0xd0, 0x20, 0x8e]
    assert report["off"][:3] != [0xd0, 0x20, 0x8e]
    assert "Why: root causes" in report["summary_text"] and "main/compute" in report["summary_text"]
    # the same words as the terminal and the report lead with
    from gridscope.analysis import story

    summary = json.loads((path_run[0] / "summary.json").read_text())
    assert report["status_text"].startswith(" · ".join(story.shape_lines(summary)[:2]))
    assert report["status_text"].startswith("Run: 2.00 s from first to last event; critical path 1.50 s")
    assert report["findings"] == [item["title"] for item in story.finding_items(summary)]
    assert report["findings"] == ["Late rank: rank 4 on brs in main/compute — 750 ms of waiting caused (7.5 %)"]
    assert "What to try: Rank 4 on brs spends more in main/compute." in report["summary_text"]
    assert shot.stat().st_size > 10_000
