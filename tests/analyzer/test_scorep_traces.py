"""Every real Score-P trace in ../shared/testdata/scorep analyses without error."""

from __future__ import annotations

import json

import pytest


MAPS = {
    "dorsal-mpi_pthread_hello_world": {"epyc": ["epyc2"], "desktop": ["arnaud-Desktop"]},
    "dorsal-mpi_allreduce": {"A": ["rank:0-3"], "B": ["rank:4-7"]},
    "dorsal-mpi_gather": {"A": ["rank:0-1"], "B": ["rank:2-3"]},
    "pipit-ping-pong": {"A": ["rank:0"], "B": ["rank:1"]},
}
TRACES = ["dorsal-mpi_allreduce", "dorsal-mpi_bsend", "dorsal-mpi_gather",
          "dorsal-mpi_pthread_hello_world", "dorsal-mpi_ssend_irecv", "pipit-ping-pong"]


@pytest.mark.parametrize("name", TRACES)
def test_scorep_trace_without_map(name, scorep_traces, analyse):
    s = analyse(scorep_traces / name)
    assert s["ranks"] >= 2
    assert s["total_time_s"] > 0
    assert len(s["metahosts"]) == 1  # Score-P traces: one `machine` node
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}
    # only the pthread trace has locations besides the ranks' master threads (4 ranks x 2
    # Pthreads, 4 events each; otf2-print -G lists them)
    threads = {"locations": 8, "events": 32} if name == "dorsal-mpi_pthread_hello_world" else \
        {"locations": 0, "events": 0}
    assert s["unanalysed_locations"] == threads
    # they define MPI-IO and RMA regions (and Score-P's I/O paradigms) but hold no I/O or
    # one-sided events: no bytes of that kind
    assert "transfers" not in s


@pytest.mark.parametrize("name", sorted(MAPS))
def test_scorep_trace_with_map(name, scorep_traces, analyse, tmp_path):
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps(MAPS[name]))
    s = analyse(scorep_traces / name, metahosts=map_file)
    assert list(s["metahosts"]) == list(MAPS[name])
    plain = analyse(scorep_traces / name)
    # the split moves seconds between classes but never changes a pattern's total
    for p, v in s["patterns"].items():
        assert v["grid"] + v["local"] == pytest.approx(plain["patterns"][p]["grid"] + plain["patterns"][p]["local"])


def test_ping_pong_has_grid_messages(scorep_traces, analyse, tmp_path):
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps(MAPS["pipit-ping-pong"]))
    s = analyse(scorep_traces / "pipit-ping-pong", metahosts=map_file)
    pairs = {(r["from"], r["to"]): r for r in s["p2p"]}
    assert pairs[("A", "B")]["messages"] == 8 and pairs[("B", "A")]["messages"] == 8
    assert s["patterns"]["late_sender"]["local"] == 0
