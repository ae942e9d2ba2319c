"""A difference experiment's system tree: per-rank BASE values (/api/profile/system?of=base)
beside the deltas, so the page can draw base, new and delta distributions (issue 27)."""

from __future__ import annotations

import json
import threading

import pytest

from gridscope.viewer.server import make_server
from test_browser import node_project, viewed  # noqa: F401  (the fixture is used by name)
from test_server import get_json, request
from viewer_fixtures import synth_trace
from viewer_shared import run_gridscope, static_env


@pytest.fixture(scope="module")
def diff_runs(tmp_path_factory):
    """base (6 iterations) and new (4) analysed, and their difference."""
    base = tmp_path_factory.mktemp("viewer-diff")
    for name, iterations in (("base", 6), ("new", 4)):
        synth_trace(base / f"trace-{name}", ranks=8, metahosts=2, iterations=iterations)
        run_gridscope("analyze", base / f"trace-{name}", "-o", base / name, "-q")
    run_gridscope("diff", base / "base", base / "new", "-o", base / "diff")
    return {name: base / name for name in ("base", "new", "diff")}


@pytest.fixture(scope="module")
def servers(diff_runs):
    import os

    os.environ.update(static_env())
    out = {}
    for name, folder in diff_runs.items():
        srv = make_server(folder, "127.0.0.1", 0)
        srv.data.wait_loaded()  # the trace is read in the background
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        out[name] = srv
    yield out
    for srv in out.values():
        srv.shutdown()
        srv.server_close()


def per_rank(srv, metric_uniq, callpath=None, of=""):
    """Per-rank values of a metric (inclusive) at a call path (inclusive; None: all)."""
    profile = get_json(srv, "/api/profile")
    metric = next(m["id"] for m in profile["metrics"] if m["uniq"] == metric_uniq)
    query = f"/api/profile/system?metric={metric}&mincl=1"
    if callpath is not None:
        query += f"&callpath={next(c['id'] for c in profile['callpaths'] if c['path'] == callpath)}&cincl=1"
    if of:
        query += f"&of={of}"
    return dict(get_json(srv, query)["values"])


@pytest.mark.parametrize("metric, callpath", [("time", None), ("time", "main/MPI_Allreduce"), ("visits", "main")])
def test_base_values_are_the_base_runs_own(servers, metric, callpath):
    base = per_rank(servers["base"], metric, callpath)
    new = per_rank(servers["new"], metric, callpath)
    delta = per_rank(servers["diff"], metric, callpath)
    of_base = per_rank(servers["diff"], metric, callpath, of="base")
    assert of_base == pytest.approx(base) and any(v != 0 for v in base.values())
    # base + delta is the new run's own value, rank by rank
    assert {r: of_base[r] + delta[r] for r in delta} == pytest.approx(new)


def test_base_values_bad_requests(servers):
    assert request(servers["diff"], "/api/profile/system?metric=0&of=old")[0].status == 400
    assert request(servers["diff"], "/api/profile/system?metric=999&of=base")[0].status == 404
    resp, body = request(servers["base"], "/api/profile/system?metric=0&of=base")  # not a difference
    assert resp.status == 404 and "BASE" in json.loads(body)["error"]


def test_diff_system_pane_shows_base_new_and_delta(node_project, diff_runs, servers):
    """The diff view's system pane: box plots of base, new and delta per rank (Time, all call
    paths), with min and max ranks and medians from the two runs themselves."""
    report = viewed(node_project, diff_runs["diff"], "diffdist")
    lines = {line["which"]: line for line in report["distributions"]}
    assert set(lines) == {"base", "new", "delta"}
    base, new = per_rank(servers["base"], "time"), per_rank(servers["new"], "time")
    for which, values in (("base", base), ("new", new)):
        line = lines[which]
        assert line["text"].startswith(f"{which}: min ")
        assert values[line["max_rank"]] == max(values.values()) and values[line["min_rank"]] == min(values.values())
        assert sorted(values.values())[len(values) // 2] == pytest.approx(line["median"])  # the upper median
    assert lines["delta"]["text"].startswith("Δ new − base: min ")
    assert lines["delta"]["median"] < 0  # 6 -> 4 iterations: less time on every rank
    # the metahost rows show base → new as the other trees do
    assert report["system_rows"] and all(" → " in basenew for basenew in report["system_rows"])
