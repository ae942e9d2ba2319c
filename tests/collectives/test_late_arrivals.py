"""`gridscope compare --late-site/--late-by`: collbench with one metahost late at every timed
call (issue 15), end to end on 8 ranks, and its bad input."""

from __future__ import annotations

import json

import pytest

from gridscope.compare import collbench
from gridscope.errors import GridscopeError
from gstest import run_gridscope

LATE_S = 0.05  # rennes' offset: far above anything a call takes on 8 ranks
WAN_LATENCY_S = 7.8e-3  # grid5000-2, end to end


@pytest.mark.slow
def test_one_site_late_end_to_end(tmp_path):
    out = tmp_path / "late"
    run_gridscope("compare", "--platform", "grid5000-2", "-np", "8", "-o", out, "--placement",
                  "block", "--modes", "vanilla,topo", "--ops", "bcast,barrier", "--sizes", "1024",
                  "--late-site", "rennes", "--late-by", "50", "--no-analysis")
    doc = json.loads((out / "compare.json").read_text())
    assert doc["late"] == {"site": "rennes", "seconds": LATE_S}
    rows = {r["op"]: r for r in doc["rows"]}
    assert set(rows) == {"bcast", "barrier"}
    for mode in ("vanilla", "topo"):
        bench = json.loads((out / "block" / mode / "collbench.json").read_text())
        # 8 ranks on two metahosts: 4 each, the second half (block placement) on rennes
        assert bench["late"] == [{"site": "rennes", "seconds": LATE_S, "ranks": 4}]
        results = {r["op"]: r for r in bench["results"]}
        for op, r in results.items():
            # every rank started at the common instant, rennes' ranks LATE_S after it
            assert r["late_starts"] == 0 and r["start_spread_us"] == 0.0, r
            # ... so the arrivals are LATE_S apart (to the clock's resolution)
            assert r["skew_us"] * 1e-6 == pytest.approx(LATE_S, abs=1e-6), r
            # compare reports what the call adds after the last arrival, not the offset
            assert rows[op][f"{mode}_s"] == pytest.approx(r["after_last_us"] * 1e-6, abs=1e-9)
        barrier = results["barrier"]
        # the on-time ranks can leave only once the late site's arrival crossed the WAN
        assert barrier["after_last_us"] * 1e-6 >= WAN_LATENCY_S
        # ... so an on-time rank's own time holds the offset and that latency
        assert barrier["max_us"] * 1e-6 >= LATE_S + WAN_LATENCY_S
    # no bound after a late arrival (the data may already be there)
    assert all(r["bound_s"] is None for r in doc["rows"])


def test_collbench_arguments_carry_the_late_site(tmp_path):
    args = collbench.arguments(["bcast"], [8], 8, tmp_path / "o.json",
                               late=collbench.Late("rennes", 0.05))
    assert args[-2:] == ["--late", "rennes=0.05"]
    assert "--late" not in collbench.arguments(["bcast"], [8], 8, tmp_path / "o.json")


def test_collbench_parse_late_takes_the_time_after_the_last_arrival(tmp_path):
    out = tmp_path / "o.json"
    out.write_text(json.dumps({"results": [{"op": "bcast", "bytes": 8, "min_us": 1.0,
                                            "avg_us": 2.0, "max_us": 108000.0,
                                            "after_last_us": 8000.0, "skew_us": 100000.0,
                                            "start_spread_us": 0.0}]}))
    assert collbench.lookup(collbench.parse(out), "bcast", 8) == pytest.approx(8e-3)


def test_collbench_parse_refuses_calls_that_missed_the_common_start(tmp_path):
    out = tmp_path / "o.json"
    out.write_text(json.dumps({"results": [{"op": "bcast", "bytes": 8, "max_us": 1.0,
                                            "after_last_us": 1.0, "late_starts": 3}]}))
    with pytest.raises(GridscopeError, match="3 calls started after"):
        collbench.parse(out)


@pytest.mark.parametrize("args, message", [
    (["--late-site", "rennes"], "--late-site and --late-by go together"),
    (["--late-by", "10"], "--late-site and --late-by go together"),
    (["--late-site", "lyon", "--late-by", "10"], "not a metahost of grid5000-2"),
    (["--late-site", "rennes", "--late-by", "0"], "--late-by must be a positive"),
    (["--late-site", "rennes", "--late-by", "inf"], "--late-by must be a positive"),
    (["--late-site", "rennes", "--late-by", "10", "--app", "/bin/true", "--modes",
      "vanilla,topo"], "does not apply to --app"),
])
def test_late_bad_input(tmp_path, args, message):
    proc = run_gridscope("compare", "--platform", "grid5000-2", "-np", "4", *args,
                         "-o", tmp_path / "o", check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
