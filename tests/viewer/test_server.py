"""The viewer's HTTP API on a synthetic run: answers, level of detail, security rules."""

from __future__ import annotations

import http.client
import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from gridscope.analysis.waitstates import read_waitstates
from gridscope.errors import GridscopeError
from gridscope.viewer.comm import cell_list
from gridscope.viewer.server import make_server

from viewer_shared import static_env


@pytest.fixture(scope="module")
def server(demo_run, tmp_path_factory):
    import os

    os.environ.update(static_env())
    srv = make_server(demo_run, "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def request(srv, path, method="GET", host=None):
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request(method, path, headers={"Host": host or f"127.0.0.1:{port}"})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp, body


def get_json(srv, path):
    resp, body = request(srv, path)
    assert resp.status == 200, body
    return json.loads(body)


def test_meta_describes_rows_grouped_by_metahost(server, demo_run):
    meta = get_json(server, "/api/meta")
    assert meta["has_trace"] and meta["has_profile"] and not meta["diff"]
    assert [r["metahost"] for r in meta["rows"]] == ["jsc"] * 4 + ["brs"] * 4
    assert [r["rank"] for r in meta["rows"]] == list(range(8))
    waits = read_waitstates(demo_run)
    assert meta["patterns"] == sorted(waits["pattern"].unique())
    assert meta["waitstate_count"] == len(waits)


def test_timeline_exact_and_binned_agree(server):
    meta = get_json(server, "/api/meta")
    t1 = meta["duration_ns"]
    exact = get_json(server, f"/api/timeline?t0=0&t1={t1}&width=4000")
    binned = get_json(server, f"/api/timeline?t0=0&t1={t1}&width=8")
    for e, b in zip(exact["rows"], binned["rows"]):
        assert e["exact"] and not b["exact"]
        mpi_cps = {i for i, cat in enumerate(meta["callpaths"]["category"]) if 2 <= cat <= 6}
        mpi_exact = sum(end - start for start, end, cp in zip(e["start"], e["end"], e["cp"]) if cp in mpi_cps)
        width = t1 / 8
        mpi_binned = sum(f / 1000 * width for f in b["mpi"])
        assert abs(mpi_binned - mpi_exact) <= 8 * width / 1000 + 8  # rounding to 0.1 % per bin


def test_timeline_sends_only_the_window(server, demo_run):
    meta = get_json(server, "/api/meta")
    t1 = meta["duration_ns"]
    whole = get_json(server, f"/api/timeline?t0=0&t1={t1}&width=2000")
    part = get_json(server, f"/api/timeline?t0=0&t1={t1 // 6}&width=2000&r0=2&r1=5")
    assert [r["row"] for r in part["rows"]] == [2, 3, 4]
    assert all(max(r["start"]) < t1 // 6 for r in part["rows"])
    assert len(part["messages"]["ts"]) < len(whole["messages"]["ts"])
    assert all(s <= t1 // 6 for s in part["messages"]["ts"])
    waits = read_waitstates(demo_run)
    assert len(whole["waits"]["start"]) == len(waits)
    # messages between metahosts are marked
    rows = meta["rows"]
    for a, b, grid in zip(whole["messages"]["from"], whole["messages"]["to"], whole["messages"]["grid"]):
        assert grid == (rows[a]["metahost"] != rows[b]["metahost"])
    assert any(whole["messages"]["grid"]) and not all(whole["messages"]["grid"])


def test_waitstate_list_and_profile(server, demo_run):
    waits = read_waitstates(demo_run)
    got = get_json(server, "/api/waitstates?pattern=late_sender&class=grid&limit=3")
    sel = waits[(waits.pattern == "late_sender") & (waits["class"] == "grid")]
    assert got["total"] == len(sel)
    assert got["instances"][0]["severity_s"] == pytest.approx(sel.severity_s.max())
    prof = get_json(server, "/api/profile")
    uniq = [m["uniq"] for m in prof["metrics"]]
    ls = uniq.index("late_sender_grid")
    system = get_json(server, f"/api/profile/system?metric={ls}&mincl=0")
    per_rank = dict((int(r), v) for r, v in system["values"])
    want = sel.groupby("rank").severity_s.sum()
    for rank, value in want.items():
        assert per_rank[int(rank)] == pytest.approx(value)


def test_comm_matrix_counts_every_message(server):
    meta = get_json(server, "/api/meta")
    m = get_json(server, "/api/comm?level=metahost")
    assert m["labels"] == ["jsc", "brs"]
    assert m["total_messages"] == meta["messages"]["matched"]
    r = get_json(server, "/api/comm?level=rank")
    cells = cell_list(r["cells"])
    assert sum(c[3] for c in cells) == meta["messages"]["matched"]
    # the ring: every rank sends only to its right neighbour
    assert {(c[0], c[1]) for c in cells} == {(i, (i + 1) % 8) for i in range(8)}
    assert r["labels"][0] == "Rank 0 (jsc)" and r["groups"] == [["jsc", 0, 4], ["brs", 4, 4]]


@pytest.mark.parametrize("path", ["/static/../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                                  "/static/.hidden", "/static//etc/passwd", "/files/../summary.json",
                                  "/files/.gridscope-cache", "/etc/passwd", "/api/nothing",
                                  "/static/js/../../../../etc/passwd"])
def test_no_path_traversal(server, path):
    resp, body = request(server, path)
    assert resp.status == 404
    assert b"root:" not in body and b"Traceback" not in body


@pytest.mark.parametrize("path", ["/api/timeline?t0=x&t1=1&width=1", "/api/timeline?t0=5&t1=1&width=10",
                                  "/api/timeline?t0=0&t1=10&width=0", "/api/timeline?t0=0&t1=10&width=99999",
                                  "/api/timeline", "/api/comm?level=planet", "/api/profile/system?metric=abc"])
def test_bad_requests_get_400(server, path):
    resp, body = request(server, path)
    assert resp.status == 400
    assert "error" in json.loads(body)


def test_unknown_things_get_404_and_methods_405(server):
    assert request(server, "/api/waitstates?pattern=nope")[0].status == 404
    assert request(server, "/api/profile/system?metric=999")[0].status == 404
    assert request(server, "/api/meta", method="POST")[0].status == 405
    assert request(server, "/api/meta", method="DELETE")[0].status == 405


def test_foreign_host_header_refused(server):
    resp, _ = request(server, "/api/meta", host="attacker.example:80")
    assert resp.status == 403


def test_static_files_and_downloads(server, demo_run):
    resp, body = request(server, "/")
    assert resp.status == 200 and b"<canvas" in body
    assert "script-src 'self'" in resp.getheader("Content-Security-Policy")
    resp, body = request(server, "/static/js/main.js")
    assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/javascript")
    resp, body = request(server, "/files/summary.json")
    assert resp.status == 200 and json.loads(body) == json.loads((demo_run / "summary.json").read_text())


def test_run_without_trace_or_profile(tmp_path, demo_run):
    import os

    os.environ.update(static_env())
    run = tmp_path / "diffrun"
    run.mkdir()
    summary = json.loads((demo_run / "summary.json").read_text())
    summary.pop("trace")
    summary["diff"] = {"minuend": "a", "subtrahend": "b"}
    (run / "summary.json").write_text(json.dumps(summary))
    shutil.copy(demo_run / "profile.cubex", run / "profile.cubex")
    srv = make_server(run, "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        meta = get_json(srv, "/api/meta")
        assert meta["diff"] and meta["has_profile"] and not meta["has_trace"]
        assert request(srv, "/api/timeline?t0=0&t1=10&width=10")[0].status == 404
        assert get_json(srv, "/api/profile")["diff"] is True
    finally:
        srv.shutdown()
        srv.server_close()


def test_bad_run_folders(tmp_path):
    with pytest.raises(GridscopeError, match="no such directory"):
        make_server(tmp_path / "missing")
    with pytest.raises(GridscopeError, match="no summary.json"):
        make_server(tmp_path)
    (tmp_path / "summary.json").write_text("{not json")
    with pytest.raises(GridscopeError, match="not valid JSON"):
        make_server(tmp_path)
    (tmp_path / "summary.json").write_text("{}")
    from gridscope.viewer.run import RunFolder

    for name in ("waitstates.parquet", "waitstates.feather"):  # parquet: older analyses
        (tmp_path / name).write_bytes(b"garbage")
        with pytest.raises(GridscopeError, match=f"{name}: cannot read wait states"):
            RunFolder(tmp_path).waitstates


def test_corrupt_profile_and_odd_summary(tmp_path, demo_run):
    import os

    os.environ.update(static_env())
    run = tmp_path / "odd"
    run.mkdir()
    summary = json.loads((demo_run / "summary.json").read_text())
    summary["total_time_s"] = float("nan")
    (run / "summary.json").write_text(json.dumps(summary))  # Python writes NaN
    srv = make_server(run, "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        meta = get_json(srv, "/api/meta")
        assert meta["summary"]["total_time_s"] is None and meta["has_trace"]
    finally:
        srv.shutdown()
        srv.server_close()
    (run / "profile.cubex").write_bytes(b"definitely not a tar file")
    with pytest.raises(GridscopeError):
        make_server(run, "127.0.0.1", 0)


def test_bare_scorep_trace_shows_its_timeline(scorep_traces, tmp_path, monkeypatch):
    import os

    os.environ.update(static_env())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = scorep_traces / "pipit-ping-pong"
    before = sorted(p.name for p in folder.iterdir())
    srv = make_server(folder, "127.0.0.1", 0)
    srv.data.wait_loaded()  # the trace is read in the background
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        meta = get_json(srv, "/api/meta")
        assert meta["has_trace"] and not meta["has_profile"] and meta["downloads"] == []
        assert [r["rank"] for r in meta["rows"]] == [0, 1]
        tl = get_json(srv, f"/api/timeline?t0=0&t1={meta['duration_ns']}&width=800")
        assert len(tl["messages"]["ts"]) == 16
        assert request(srv, "/files/profile.cubex")[0].status == 404  # nothing of the folder is served
    finally:
        srv.shutdown()
        srv.server_close()
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written beside the trace
    assert list((tmp_path / "cache" / "gridscope" / "viewer").glob("trace-*"))


def test_window_summary_sums_the_window_only(server):
    """The zoom window's function and process summaries: exclusive times inside it only."""
    meta = get_json(server, "/api/meta")
    t0, t1 = meta["start_ns"], meta["duration_ns"]
    whole = get_json(server, f"/api/window?t0={t0}&t1={t1}")
    half = get_json(server, f"/api/window?t0={t0}&t1={t0 + (t1 - t0) // 2}")
    assert whole["functions"] and 0 < half["total_s"] < whole["total_s"]
    # every location is busy the whole window at most, and MPI is part of it
    for p in whole["processes"]:
        assert 0 <= p["mpi_s"] <= p["busy_s"] <= (t1 - t0) / 1e9 + 1e-9
    assert {f["name"] for f in whole["functions"]} >= {"MPI_Recv", "MPI_Allreduce"}
    assert sorted((f["seconds"] for f in whole["functions"]), reverse=True) == [f["seconds"] for f in whole["functions"]]


def test_clipped_segments_keep_only_the_window():
    import numpy as np

    from gridscope.viewer.window import clipped_segments

    seg_time = np.asarray([0, 10, 30, 60, 100])
    seg_cp = np.asarray([1, 2, -1, 3, -1])
    cp, dt = clipped_segments(seg_time, seg_cp, 5, 70)
    assert cp.tolist() == [1, 2, 3] and dt.tolist() == [5, 20, 10]  # the idle one (-1) left out
    assert clipped_segments(seg_time, seg_cp, 70, 70)[0].size == 0
