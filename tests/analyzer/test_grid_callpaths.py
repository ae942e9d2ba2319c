"""Grid/local split and call-path attribution on a synthetic two-metahost trace
(specs/callpaths.spec), the Cube file and the waitstates table of the same analysis."""

from __future__ import annotations

import json

import pandas as pd
import pytest

US = 1e-6
RECV = "main/iteration/ReadFieldsFromTrace/MPI_Recv"
BARRIER = "main/iteration/MPI_Barrier"


@pytest.fixture(scope="module")
def analysed(make_trace, tmp_path_factory):
    from gridscope.analysis.driver import AnalyzeOptions, analyze

    out = tmp_path_factory.mktemp("callpaths")
    analyze(AnalyzeOptions(make_trace("callpaths"), out))
    return out


def rows(summary, key):
    return {(r["pattern"], r["class"], r[key]): pytest.approx(r["seconds"]) for r in summary}


def test_by_callpath(analysed):
    s = json.loads((analysed / "summary.json").read_text())
    got = {(r["pattern"], r["class"], r["callpath"]): r["seconds"] for r in s["by_callpath"]}
    assert got.keys() == {("late_sender", "grid", RECV), ("late_sender", "local", RECV),
                          ("wait_at_barrier", "grid", BARRIER)}
    assert got[("late_sender", "grid", RECV)] == pytest.approx(25 * US)
    assert got[("late_sender", "local", RECV)] == pytest.approx(5 * US)
    assert got[("wait_at_barrier", "grid", BARRIER)] == pytest.approx(15 * US)


def test_by_metahost_and_p2p(analysed):
    s = json.loads((analysed / "summary.json").read_text())
    got = {(r["pattern"], r["class"], r["metahost"]): r["seconds"] for r in s["by_metahost"]}
    assert got == {("late_sender", "grid", "jsc"): pytest.approx(25 * US),
                   ("late_sender", "local", "jsc"): pytest.approx(5 * US),
                   ("wait_at_barrier", "grid", "jsc"): pytest.approx(15 * US)}
    p2p = {(r["from"], r["to"]): r for r in s["p2p"]}
    assert set(p2p) == {("brs", "jsc"), ("jsc", "jsc")}
    assert p2p[("brs", "jsc")]["bytes"] == 1000 and p2p[("brs", "jsc")]["messages"] == 1
    # send event at 30 us, receive completes at 40 us: 10 us, 1000 B / 10 us
    assert p2p[("brs", "jsc")]["min_transfer_s"] == pytest.approx(10 * US)
    assert p2p[("brs", "jsc")]["max_rate_Bps"] == pytest.approx(1000 / (10 * US))
    assert p2p[("jsc", "jsc")]["min_transfer_s"] == pytest.approx(10 * US)  # 40 -> 50


def test_cube_file(analysed):
    from gridscope.cube import read_cubex

    exp = read_cubex(analysed / "profile.cubex")
    assert list(exp.locations["metahost"]) == ["jsc", "jsc", "brs", "brs"]
    assert list(exp.locations["node"]) == ["jsc01", "jsc01", "brs01", "brs02"]
    assert RECV in exp.callpaths and BARRIER in exp.callpaths
    sev = exp.severities.set_index(["metric", "callpath", "rank"])["value"]
    assert sev[("late_sender_grid", RECV, 0)] == pytest.approx(25 * US)
    assert sev[("late_sender_local", RECV, 1)] == pytest.approx(5 * US)
    assert sev[("wait_at_barrier_grid", BARRIER, 0)] == pytest.approx(10 * US)
    # rank 0 spends 35 us in MPI_Recv: 25 us waiting, 10 us left in the MPI metric
    assert sev[("mpi", RECV, 0)] == pytest.approx(10 * US)
    # time is exclusive: on rank 0 `iteration` (0-90) keeps what its children do not
    # cover: 90 - 39 (ReadFieldsFromTrace 1-40) - 5 (MPI_Send) - 20 (MPI_Barrier) = 26 us
    assert sev[("time", "main/iteration", 0)] == pytest.approx(26 * US)
    total_time = exp.severities[exp.severities["metric"].isin(
        ["time", "mpi", "late_sender_grid", "late_sender_local", "wait_at_barrier_grid",
         "barrier_completion_grid"])]["value"].sum()
    assert total_time == pytest.approx(4 * 100 * US)


def test_waitstates_table(analysed):
    w = pd.read_feather(analysed / "waitstates.feather")  # plain pandas reads the file as is
    assert list(w.columns) == ["pattern", "class", "rank", "start_s", "end_s", "severity_s", "callpath"]
    ls = w[w["pattern"] == "late_sender"].sort_values("rank")
    assert list(ls["rank"]) == [0, 1]
    assert list(ls["class"].astype(str)) == ["grid", "local"]
    assert ls.iloc[0]["start_s"] == pytest.approx(5 * US)
    assert ls.iloc[0]["end_s"] == pytest.approx(30 * US)
    assert ls.iloc[0]["callpath"] == RECV


def test_load(analysed):
    import gridscope.analysis as analysis

    a = analysis.load(analysed)
    assert a.summary["ranks"] == 4
    assert set(a.severities.columns) >= {"metric", "callpath", "rank", "metahost", "value"}
    assert a.matrix("bytes").loc["brs", "jsc"] == 1000
    assert len(a.waitstates) == 4
