"""Issue 14: the real Score-P traces in ../shared/testdata/scorep replay on a platform given
by `--metahosts` + `--platform`; what the replay cannot express exactly is stated.

Expected figures are read off the traces by hand (otf2-print): point-to-point messages,
collective instances (one per communicator and call), the ranks each metahost of the map
gets (maps from ../shared/testdata/scorep/README.md), and the approximations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gstest import SCOREP_TRACES, run_gridscope

from gridscope.predict.actions import OTHER_LOCATIONS

# a 2-site platform per map; 4 dual-core nodes a site hold the largest trace's 4 ranks a site
SITE = 'nodes = 4\ncores = 2\nbandwidth = "1Gbps"\nlatency = "0.1ms"\n'
WAN = '[wan]\nbandwidth = "100Mbps"\nlatency = "5ms"\n'

HALVES = {2: {"A": ["rank:0"], "B": ["rank:1"]},
          4: {"A": ["rank:0-1"], "B": ["rank:2-3"]},
          8: {"A": ["rank:0-3"], "B": ["rank:4-7"]}}
BY_NODE = {"epyc": ["epyc2"], "desktop": ["arnaud-Desktop"]}

# trace -> (map, messages, collective instances, ranks per metahost, approximations)
CASES = {
    # 8 sends each way between the two ranks
    "pipit-ping-pong": (HALVES[2], 16, 0, {"A": 1, "B": 1}, {}),
    # a barrier on MPI_COMM_WORLD, then an allreduce on each half's split communicator
    "dorsal-mpi_allreduce": (HALVES[8], 0, 3, {"A": 4, "B": 4}, {}),
    # one gather to rank 0
    "dorsal-mpi_gather": (HALVES[4], 0, 1, {"A": 2, "B": 2}, {}),
    # one MPI_Bsend of 4 bytes: a buffered send replayed as a standard one
    "dorsal-mpi_bsend": (HALVES[2], 1, 0, {"A": 1, "B": 1},
                         {"MPI_Bsend replayed as MPI_Send": 1}),
    # one MPI_Ssend matched by an MPI_Irecv + MPI_Wait
    "dorsal-mpi_ssend_irecv": (HALVES[2], 1, 0, {"A": 1, "B": 1}, {}),
    # 4 ranks x 3 threads: the 2 pthreads of each rank (8 locations) are not replayed
    "dorsal-mpi_pthread_hello_world": (BY_NODE, 0, 0, {"epyc": 2, "desktop": 2},
                                       {OTHER_LOCATIONS: 8}),
}


def _platform(tmp_path: Path, sites: list[str]) -> Path:
    path = tmp_path / "two.toml"
    path.write_text("".join(f"[metahost.{s}]\n{SITE}" for s in sites) + WAN)
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_scorep_trace_predicts(tmp_path, name):
    trace = SCOREP_TRACES / name
    if not trace.is_dir():
        pytest.skip(f"{trace} not available")
    mapping, messages, collectives, per_metahost, approximations = CASES[name]
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps(mapping))
    platform = _platform(tmp_path, list(mapping))
    proc = run_gridscope("predict", trace, "-o", tmp_path / "pred", "--platform", platform,
                         "--metahosts", map_file)
    stated = [line for line in proc.stdout.splitlines() if line.startswith("approximation: ")]
    assert stated == [f"approximation: {what} ({n}x)" for what, n in approximations.items()]
    summary = json.loads((tmp_path / "pred" / "summary.json").read_text())
    assert summary["prediction"]["approximations"] == approximations
    assert summary["prediction"]["metahosts"] == str(map_file)
    assert summary["metahosts"] == per_metahost
    assert summary["messages"] == messages
    assert summary["collectives"] == collectives
    assert summary["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert summary["incomplete_collectives"] == 0


def test_scorep_trace_needs_a_site_per_metahost(tmp_path):
    # without --metahosts the ping-pong's one machine ("Linux") has no site on the platform
    trace = SCOREP_TRACES / "pipit-ping-pong"
    if not trace.is_dir():
        pytest.skip(f"{trace} not available")
    platform = _platform(tmp_path, ["A", "B"])
    proc = run_gridscope("predict", trace, "-o", tmp_path / "o", "--platform", platform,
                         check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "has no site for metahost 'Linux'" in proc.stderr
    bad_maps = [("missing.json", None, "cannot read metahost map"),
                ("one.json", {"A": ["rank:0"]}, "no metahost matches rank 1"),
                ("c.json", {"C": ["rank:0-1"]}, "has no site for metahost 'C'")]
    for i, (file_name, content, problem) in enumerate(bad_maps):
        map_file = tmp_path / file_name
        if content is not None:
            map_file.write_text(json.dumps(content))
        proc = run_gridscope("predict", trace, "-o", tmp_path / f"o{i}", "--platform", platform,
                             "--metahosts", map_file, check=False)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert proc.stderr.startswith("gridscope: ") and problem in proc.stderr, proc.stderr
