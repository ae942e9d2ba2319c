"""Seed 000's ray2mesh on grid5000-3 with 64 ranks (the issue's run): the summary leads with
the run's duration, its first finding is rank 0, the master every worker waits for, with
master advice, and every WAN direction has its figures beside the platform's nominal ones."""

from __future__ import annotations

import json

import pytest

from gstest import REPO, run_gridscope

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ray2mesh(tmp_path_factory):
    root = tmp_path_factory.mktemp("ray2mesh")
    apps = REPO / "testdata" / "apps"
    run_gridscope("cc", "--simulate", apps / "ray2mesh" / "ray2mesh.c", f"-I{apps / 'common'}", "-lm", "-O1",
                  "-o", root / "ray2mesh")
    run_gridscope("record", "--platform", "grid5000-3", "-np", "64", "-o", root / "rec", "--", root / "ray2mesh")
    out = run_gridscope("analyze", root / "rec", "-o", root / "an", "--no-gains").stdout
    return json.loads((root / "an" / "summary.json").read_text()), out


def test_first_finding_is_the_master(ray2mesh):
    s, _ = ray2mesh
    f = s["findings"][0]
    assert (f["cause"]["role"], f["cause"]["ranks"], f["cause"]["metahost"]) == ("master", [0], "bordeaux")
    assert "several masters" in f["advice"] and "collective" not in f["advice"]


def test_wan_directions_with_nominal_figures(ray2mesh):
    s, _ = ray2mesh
    links = {(x["from"], x["to"]): x for x in s["wan_links"]}
    assert {("bordeaux", "orsay"), ("orsay", "bordeaux"), ("bordeaux", "rennes"), ("rennes", "bordeaux")} <= set(links)
    for link in links.values():
        assert link["nominal"] == {"latency_s": pytest.approx(0.0078), "bandwidth_Bps": pytest.approx(136.08e6 / 8),
                                   "platform": "grid5000-3"}
    # the workers wait for the master's 8-byte replies: the WAN's 7.8 ms, not a queue's delay
    assert links[("bordeaux", "orsay")]["latency_s"] == pytest.approx(0.0078, rel=0.05)
    # the transfers into the master's site are what made the workers wait
    assert links[("orsay", "bordeaux")]["waiting_caused_s"] > 10 * links[("bordeaux", "orsay")]["waiting_caused_s"]


def test_terminal_leads_with_the_duration(ray2mesh):
    s, out = ray2mesh
    first = out.splitlines()[0]
    assert first.startswith(f"Run: {s['duration_s']:.3g} s from first to last event; critical path")
    assert out.splitlines()[4].startswith(" 1. Master bottleneck: rank 0 on bordeaux")
