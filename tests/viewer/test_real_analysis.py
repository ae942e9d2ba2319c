"""The viewer and exports on a folder written by the real `gridscope analyze`.

Checks the contract between the analyzer and the viewer: the wait states' times are on
the viewer's time origin (seconds since the global offset), so every wait-state instance
starts exactly at an event of its rank in the dumped trace (an Enter, or a
MpiCollectiveBegin for collectives); the Cube metric
tree's grid/local children are recognised; the OTF2 export validates.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from test_browser import node_project  # noqa: F401 (fixture)
from viewer_shared import run_gridscope
from viewer_fixtures import synth_trace

from gridscope.analysis.waitstates import read_waitstates
from gridscope.viewer.comm import cell_list
from gridscope.viewer.run import RunFolder
from gridscope.viewer.server import ViewerData
from gridscope.viewer.trace import Trace, dump


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    base = tmp_path_factory.mktemp("real-analysis")
    anchor = synth_trace(base / "trace", ranks=8, metahosts=2, iterations=4)
    run_gridscope("analyze", anchor.parent, "-o", base / "run")
    return base / "run"


def test_waitstates_share_the_viewers_time_origin(analysed, tmp_path):
    run = RunFolder(analysed)
    dump(run.trace_anchor, tmp_path, events=True)
    trace = Trace.open(tmp_path)
    data = ViewerData(run, trace)
    w = run.waitstates
    assert len(w) > 0
    ev_loc, ev_time = np.asarray(trace.columns["ev_loc"]), np.asarray(trace.columns["ev_time"])
    for i in range(len(w)):
        loc = data.rows[data.row_of_rank[int(w.rank[i])]].index
        times = ev_time[ev_loc == loc]
        # start_s is rounded to float seconds by the analyzer: allow 1 ns
        assert np.min(np.abs(times - w.start_ns[i])) <= 1, (w.patterns[w.pattern[i]], w.start_ns[i])


def test_metric_tree_split_is_recognised(analysed):
    run = RunFolder(analysed)
    uniq = {m["uniq"] for m in ViewerData(run, None).profile.metrics}
    for pattern in run.waitstates.patterns:
        assert f"{pattern}_grid" in uniq and f"{pattern}_local" in uniq


def test_otf2_export_of_an_analysis(analysed, tmp_path):
    out = tmp_path / "vampir"
    run_gridscope("export", analysed, "--format", "otf2", "-o", out)
    check = subprocess.run(["otf2-print", "--silent", "-Werror", str(out / "traces.otf2")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    markers = subprocess.run(["otf2-marker", str(out / "traces.otf2")], capture_output=True, text=True, check=True).stdout
    assert sum(l.startswith("MARKER ") for l in markers.splitlines()) == len(read_waitstates(analysed))


def test_diff_folder_is_a_difference_view(analysed, tmp_path):
    other = synth_trace(tmp_path / "trace2", ranks=8, metahosts=2, iterations=4, region_name="solve")
    run_gridscope("analyze", other.parent, "-o", tmp_path / "run2")
    run_gridscope("diff", analysed, tmp_path / "run2", "-o", tmp_path / "diff")
    run = RunFolder(tmp_path / "diff")
    assert run.is_diff
    data = ViewerData(run, None)
    meta = data.meta()
    assert meta["diff"] and meta["has_profile"]
    overview = data.profile.overview()
    assert overview["diff"] is True
    # the renamed region: time moves from "compute" (negative) to "solve" (positive)
    paths = {c["id"]: c["path"] for c in overview["callpaths"]}
    time_id = next(m["id"] for m in overview["metrics"] if m["uniq"] == "time")
    by_path = {paths[c]: v for m, c, v in overview["mc"] if m == time_id}
    assert by_path["main/compute"] < 0 < by_path["main/solve"]
    # base and new beside each delta (issue 27): the base's values in the same ids;
    # "compute" is gone in the new run: base + delta = 0 there
    base = {paths[c]: v for m, c, v in overview["base_mc"] if m == time_id}
    assert base["main/compute"] > 0 and "main/solve" not in base
    assert base["main/compute"] + by_path["main/compute"] == pytest.approx(0, abs=1e-12)


def test_matrix_bytes_match_the_metric_trees_bytes_sent(analysed):
    """Issue 27: the "all" matrix counts what the metric tree's Bytes sent counts, and each
    rank's collective row sums to the bytes it sent in collectives (per the profile)."""
    from gridscope.cube import read_cubex
    from gridscope.viewer.trace import open_trace

    run = RunFolder(analysed)
    data = ViewerData(run, open_trace(run.trace_anchor, run.folder))
    sev = read_cubex(analysed / "profile.cubex").severities
    sent = sev[sev["metric"] == "bytes_sent"]
    every = data.comm_matrix("rank", None, None, "all")
    assert every["total_bytes"] == pytest.approx(float(sent["value"].sum()), rel=1e-9)
    assert every["total_bytes"] == pytest.approx(every["profile_bytes_sent"], rel=1e-9)
    coll = data.comm_matrix("rank", None, None, "collective")
    rows = np.zeros(len(coll["labels"]))
    for r, _, b, _ in cell_list(coll["cells"]):
        rows[r] += b
    in_collectives = sent[sent["callpath"].str.endswith("MPI_Allreduce")].groupby("rank")["value"].sum()
    assert len(in_collectives) == len(coll["ranks"]) and in_collectives.sum() > 0
    for rank, value in in_collectives.items():
        assert rows[coll["ranks"].index(int(rank))] == pytest.approx(value, rel=1e-9)
    p2p = data.comm_matrix("metahost", None, None, "p2p")
    assert p2p["total_bytes"] < every["total_bytes"] and p2p["collective_bytes"] is None


def test_scorep_trace_with_metahost_map(scorep_traces, tmp_path):
    """A Score-P trace analysed with --metahosts: the viewer groups rows by the map's metahosts."""
    import json

    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"epyc": ["epyc2"], "desktop": ["arnaud-Desktop"]}))
    run_gridscope("analyze", scorep_traces / "dorsal-mpi_pthread_hello_world", "--metahosts", mapping,
                  "-o", tmp_path / "run")
    run = RunFolder(tmp_path / "run")
    from gridscope.viewer.trace import open_trace

    data = ViewerData(run, open_trace(run.trace_anchor, run.folder))
    by_rank = {row.rank: row.metahost for row in data.rows}
    assert by_rank == {0: "epyc", 1: "desktop", 2: "epyc", 3: "desktop"}
    assert len(data.rows) == 12  # 4 ranks x 3 threads
    # rows are grouped: all epyc rows, then all desktop rows (or the other way round)
    order = [row.metahost for row in data.rows]
    assert order == sorted(order, key=order.index)
    assert not (scorep_traces / "dorsal-mpi_pthread_hello_world" / ".gridscope-cache").exists()


def test_zero_metrics_are_hidden_until_asked(node_project, analysed):  # noqa: F811
    """The real metric tree has one-sided and I/O bytes that this run does not have: the
    viewer hides such all-zero metrics until the "zero metrics" box is ticked."""
    from gridscope.cube import read_cubex
    from test_browser import run_check
    from test_cli_view import start_view

    proc, url = start_view(analysed)
    try:
        report = run_check(node_project, "zero", url, "")
    finally:
        proc.terminate()
        proc.wait()
    assert not report["page_errors"] and not report["console_errors"]
    sev = read_cubex(analysed / "profile.cubex").severities
    hidden = set(report["rows_with_zero"]) - set(report["rows"])
    assert {"bytes_put", "bytes_get"} <= hidden
    for uniq in hidden:
        assert not sev[sev["metric"] == uniq]["value"].abs().sum(), uniq
    assert "time" in report["rows"]
