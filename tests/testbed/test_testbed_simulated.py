"""Simulated runs end to end: `gridscope cc --simulate` + `gridscope record --platform`.

Covers the issue's "done when": every preset runs, the ping-pong reproduces the platform
figures within 5 %, runs are deterministic, and a held-out program yields a trace with the
right events, metahosts, WAN latency and clock offsets.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gstest import run_gridscope
from testbed_helpers import (PROGRAMS, build, clock_offsets_per_location, definitions, events,
                             machines, rank_hosts)

pytestmark = pytest.mark.slow

TWO_SITES = """
[metahost.alpha]
nodes = 2
cores = 2
bandwidth = "1Gbps"
latency = "50us"
[metahost.beta]
nodes = 2
cores = 2
bandwidth = "1Gbps"
latency = "50us"
[wan]
bandwidth = "100Mbps"
latency = "5ms"
"""
WAN_LATENCY_S = 5e-3


@pytest.fixture(scope="session")
def binaries(tmp_path_factory):
    out = tmp_path_factory.mktemp("testbed-bin")
    return {name: build(PROGRAMS / f"{name}.c", out / name, True)
            for name in ("heldout", "pingpong")}


def _summary(stdout: str, prefix: str) -> dict:
    line = next(l for l in stdout.splitlines() if l.startswith(prefix + " {"))
    return json.loads(line[len(prefix) + 1:])


@pytest.mark.parametrize("preset", ["grid5000-2", "grid5000-3", "viola", "lg-30-30",
                                    "lg-20-40"])
def test_every_preset_runs_a_program(preset, binaries, tmp_path):
    n = 3 if preset == "grid5000-3" else 2
    out = tmp_path / "trace"
    run_gridscope("record", "--platform", preset, "-np", n, "-o", out, "--",
                  binaries["heldout"])
    assert (out / "traces.otf2").is_file()
    xml = (out / "platform.xml").read_text()
    assert xml.count("<cluster ") == n


def test_wan_graph_beside_the_trace(binaries, tmp_path):
    """The WAN graph the collectives route over: every direction of asym-3's pairs with its
    own figures, end to end, in seconds and bytes per second, and each metahost's figures
    between two of its nodes."""
    out = tmp_path / "trace"
    asym = Path(__file__).resolve().parents[2] / "benchmarks" / "collectives" / "asym-3.toml"
    run_gridscope("record", "--platform", asym, "-np", 3, "-o", out, "--", binaries["heldout"])
    links = {tuple(line.split()[:2]): tuple(float(x) for x in line.split()[2:4])
             for line in (out / "wan.txt").read_text().splitlines()
             if line and not line.startswith("#")}
    assert links == {("lyon", "nancy"): (4e-3, 1e9 / 8), ("nancy", "lyon"): (4e-3, 1e9 / 8),
                     ("lyon", "sophia"): (12e-3, 100e6 / 8), ("sophia", "lyon"): (12e-3, 100e6 / 8),
                     ("nancy", "sophia"): (20e-3, 300e6 / 8),
                     ("sophia", "nancy"): (20e-3, 300e6 / 8),
                     ("lyon", "lyon"): (0.05e-3, 1e9 / 8),
                     ("nancy", "nancy"): (0.1e-3, 894.39e6 / 8),
                     ("sophia", "sophia"): (0.1e-3, 500e6 / 8)}
    assert json.loads((out / "record.json").read_text())["np"] == 3


@pytest.mark.parametrize("layout,latency,bandwidth", [
    (None, 7.8e-3, 136.08e6 / 8),     # rank 0 at Orsay, rank 1 at Rennes: the WAN
    ("2,0", 0.1e-3, 894.39e6 / 8),   # both at Orsay
])
def test_pingpong_reproduces_grid5000_figures(layout, latency, bandwidth, binaries, tmp_path):
    args = ["--layout", layout] if layout else ["-np", "2"]
    proc = run_gridscope("record", "--platform", "grid5000-2", *args, "-o", tmp_path / "t",
                         "--", binaries["pingpong"])
    measured = _summary(proc.stdout, "pingpong")
    assert measured["latency_s"] == pytest.approx(latency, rel=0.05)
    assert measured["bandwidth_Bps"] == pytest.approx(bandwidth, rel=0.05)


def test_two_runs_give_identical_event_streams(binaries, tmp_path):
    platform = tmp_path / "two.toml"
    platform.write_text(TWO_SITES)
    streams = []
    for run in ("a", "b"):
        out = tmp_path / run
        run_gridscope("record", "--platform", platform, "-np", 8, "-o", out, "--",
                      binaries["heldout"])
        streams.append(events(out / "traces.otf2"))
    assert len(streams[0]) > 100
    assert streams[0] == streams[1]


def _count(evs, kind, location=None, pattern=None):
    return sum(1 for e in evs if e.kind == kind and (location is None or e.location == location)
               and (pattern is None or re.search(pattern, e.text)))


def test_heldout_program_trace(binaries, tmp_path):
    platform = tmp_path / "two.toml"
    platform.write_text(TWO_SITES)
    out = tmp_path / "heldout"
    # a metahost name left in the environment must not override the platform's
    proc = run_gridscope("record", "--platform", platform, "-np", 8, "-o", out, "--",
                         binaries["heldout"], env={"GRIDSCOPE_METAHOST": "stale"})
    assert "heldout: sum of ranks 28" in proc.stdout
    anchor = out / "traces.otf2"
    defs = definitions(anchor)
    # metahosts named as in the TOML, ranks placed block-wise, two per node
    assert machines(defs) == ["alpha", "beta"]
    assert rank_hosts(defs) == {0: "alpha-0", 1: "alpha-0", 2: "alpha-1", 3: "alpha-1",
                                4: "beta-0", 5: "beta-0", 6: "beta-1", 7: "beta-1"}
    evs = events(anchor)
    locations = sorted({e.location for e in evs})
    assert len(locations) == 8
    for loc in locations:
        sends = 2 if loc == 0 else 1
        recvs = 2 if loc == 4 else 1
        assert _count(evs, "MPI_SEND", loc) == sends, loc
        assert _count(evs, "MPI_RECV", loc) == recvs, loc
        for op in ("BCAST", "ALLREDUCE", "BARRIER"):
            assert _count(evs, "MPI_COLLECTIVE_END", loc, rf"Operation: {op},") == 1, (loc, op)
    assert _count(evs, "MPI_SEND", 0, r"Receiver: 4 .*Tag: 42, Length: 1$") == 1
    # the WAN latency shows in the timestamps: rank 4 waits in MPI_Recv for rank 0's
    # message, which needs the end-to-end WAN latency after rank 0 enters MPI_Send
    ticks = _ticks_per_second(defs)
    send_enter = _enter_before(evs, 0, "MPI_SEND", r"Tag: 42,")
    recv_leave = _leave_after(evs, 4, "MPI_RECV", r"Tag: 42,")
    transfer = (recv_leave - send_enter) / ticks
    assert transfer == pytest.approx(WAN_LATENCY_S, rel=0.02)
    # ... and a message inside a metahost is two orders of magnitude faster
    ring = (_leave_after(evs, 1, "MPI_RECV", r"Tag: 7,")
            - _enter_before(evs, 0, "MPI_SEND", r"Tag: 7,")) / ticks
    assert ring < WAN_LATENCY_S / 20
    offsets = clock_offsets_per_location(anchor)
    assert sorted(offsets) == locations
    assert all(n >= 2 for n in offsets.values())


def _ticks_per_second(defs: str) -> int:
    return int(re.search(r"Ticks per Seconds: (\d+)", defs)[1])


def _index(evs, location, kind, pattern):
    return next(i for i, e in enumerate(evs)
                if e.location == location and e.kind == kind and re.search(pattern, e.text))


def _enter_before(evs, location, kind, pattern) -> int:
    i = _index(evs, location, kind, pattern)
    return next(e.time for e in reversed(evs[:i]) if e.location == location and e.kind == "ENTER")


def _leave_after(evs, location, kind, pattern) -> int:
    i = _index(evs, location, kind, pattern)
    return next(e.time for e in evs[i:] if e.location == location and e.kind == "LEAVE")


def test_failing_program_reports_smpirun_error(tmp_path):
    src = tmp_path / "crash.c"
    src.write_text('#include <mpi.h>\n#include <stdio.h>\nint main(int c, char **v) {\n'
                   '  MPI_Init(&c, &v); fprintf(stderr, "about to fail\\n");\n'
                   '  MPI_Abort(MPI_COMM_WORLD, 3); return 0; }\n')
    binary = build(src, tmp_path / "crash", True)
    proc = run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", tmp_path / "t",
                         "--", binary, check=False)
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    # SimGrid itself exits 0 after MPI_Abort; gridscope still reports the failure
    assert last.startswith(f"gridscope: {binary}: smpirun failed (the program called MPI_Abort)")
    assert "smpirun.log" in last
    assert "about to fail" in proc.stderr  # the tail of the program's messages
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args,message", [
    (["--platform", "grid5000-2", "--layout", "1,2,3", "--", "/bin/true"],
     "gives 3 counts for 2 metahosts"),
    (["--platform", "grid5000-2", "-np", "2", "--", "./no-such-program"],
     "program does not exist"),
    (["--platform", "grid5000-2", "-np", "2", "--", "mpirun", "./app"],
     "give the program itself"),
    (["--platform", "nowhere.toml", "-np", "2", "--", "/bin/true"],
     "platform file does not exist"),
])
def test_bad_record_arguments(args, message, tmp_path):
    proc = run_gridscope("record", "-o", tmp_path / "t", *args, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_existing_output_needs_force_and_must_be_a_trace(binaries, tmp_path):
    out = tmp_path / "t"
    run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", out, "--",
                  binaries["heldout"])
    proc = run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", out, "--",
                         binaries["heldout"], check=False)
    assert proc.returncode == 2 and "use --force" in proc.stderr
    run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", out, "--force", "--",
                  binaries["heldout"])
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "thesis.tex").write_text("x")
    proc = run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", precious,
                         "--force", "--", binaries["heldout"], check=False)
    assert proc.returncode == 2 and "not a gridscope trace folder" in proc.stderr
    assert (precious / "thesis.tex").exists()


def test_crashing_program_reports_exit_status(tmp_path):
    src = tmp_path / "segv.c"
    src.write_text('#include <mpi.h>\nint main(int c, char **v) {\n  MPI_Init(&c, &v);\n'
                   '  volatile int *p = 0; *p = 1;\n  MPI_Finalize(); return 0; }\n')
    binary = build(src, tmp_path / "segv", True)
    proc = run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", tmp_path / "t",
                         "--", binary, check=False)
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"gridscope: {binary}: smpirun failed (exit 139)")  # SIGSEGV
    assert "Traceback" not in proc.stderr


def test_program_given_by_bare_name_in_the_current_folder(binaries, tmp_path):
    folder = binaries["heldout"].parent
    proc = run_gridscope("record", "--platform", "grid5000-2", "-np", 2, "-o", tmp_path / "t",
                         "--", "heldout", cwd=folder)
    assert "heldout: sum of ranks 1" in proc.stdout
    assert (tmp_path / "t" / "traces.otf2").is_file()
