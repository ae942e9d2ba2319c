"""The native columnar dump against real Score-P traces and synthetic ones."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from gridscope.errors import GridscopeError
from gridscope.viewer.trace import Trace, dump, find_anchor, open_trace

EVENT_LINE = re.compile(r"^(ENTER|LEAVE|MPI_SEND|MPI_ISEND|MPI_RECV|MPI_IRECV|MPI_COLLECTIVE_BEGIN|"
                        r"MPI_COLLECTIVE_END|MPI_ISEND_COMPLETE|MPI_IRECV_REQUEST)\s")


def otf2_print_count(anchor) -> int:
    out = subprocess.run(["otf2-print", str(anchor)], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in out.splitlines() if EVENT_LINE.match(line))


@pytest.mark.parametrize("name", ["pipit-ping-pong", "dorsal-mpi_allreduce", "dorsal-mpi_bsend",
                                  "dorsal-mpi_gather", "dorsal-mpi_ssend_irecv",
                                  "dorsal-mpi_pthread_hello_world"])
def test_scorep_trace_dumps_every_event(scorep_traces, tmp_path, name):
    anchor = find_anchor(scorep_traces / name)
    dump(anchor, tmp_path, events=True)
    t = Trace.open(tmp_path)
    assert t.defs["events"] == otf2_print_count(anchor)
    assert len(t.columns["ev_time"]) == t.defs["events"]
    assert t.defs["repaired_regions"] == {"misnested": 0, "unclosed": 0, "stray_leave": 0, "truncated": 0, "lost": 0}
    assert t.defs["messages"]["unmatched_sends"] == 0
    assert t.defs["messages"]["unmatched_receives"] == 0
    # each location's segments are ordered, and the cumulative MPI time matches the segments
    for loc in range(len(t.defs["locations"])):
        time, cp, mpicum = (np.asarray(a) for a in t.segments(loc))
        if len(time) == 0:
            continue
        assert np.all(np.diff(time) > 0)
        dur = np.diff(time)
        in_mpi = (cp[:-1] >= 0) & t.cp_is_mpi[np.clip(cp[:-1], 0, None)]
        assert np.array_equal(mpicum[1:], np.cumsum(np.where(in_mpi, dur, 0)))


def test_ping_pong_messages(scorep_traces, tmp_path):
    t = open_trace(find_anchor(scorep_traces / "pipit-ping-pong"), tmp_path)
    c = t.columns
    assert len(c["msg_send_time"]) == 16
    assert set(zip(c["msg_send_loc"].tolist(), c["msg_recv_loc"].tolist())) == {(0, 1), (1, 0)}
    assert np.all(c["msg_recv_time"] > c["msg_send_time"])
    # the first message: 16 KiB from rank 0, sent 7397467382760060 ticks at 2095197216 ticks/s
    first = int(np.argmin(c["msg_send_time"]))
    assert int(c["msg_bytes"][first]) == 16384
    want = (7397467382760060 - 7397466976977800) * 10**9 // 2095197216
    assert int(c["msg_send_time"][first]) == want


def test_system_tree_gives_metahosts(scorep_traces, tmp_path):
    t = open_trace(find_anchor(scorep_traces / "dorsal-mpi_pthread_hello_world"), tmp_path)
    locs = t.locations()
    assert len(locs) == 12
    assert {l.rank for l in locs} == {0, 1, 2, 3}
    assert {l.node for l in locs if l.rank in (0, 2)} == {"epyc2"}
    assert {l.node for l in locs if l.rank in (1, 3)} == {"arnaud-Desktop"}
    assert {l.metahost for l in locs} == {"Linux"}  # Score-P: one metahost per machine node
    remapped = t.locations({0: ("epyc", "epyc2"), 2: ("epyc", "epyc2"),
                            1: ("desktop", "arnaud-Desktop"), 3: ("desktop", "arnaud-Desktop")})
    assert {l.metahost for l in remapped if l.rank == 1} == {"desktop"}


def test_metacomputer_root_names_metahosts(tmp_path):
    from viewer_fixtures import synth_trace

    t = open_trace(synth_trace(tmp_path / "t", ranks=6, metahosts=3, iterations=1), tmp_path)
    by_rank = {l.rank: l.metahost for l in t.locations()}
    assert by_rank == {0: "jsc", 1: "jsc", 2: "brs", 3: "brs", 4: "fzj", 5: "fzj"}


def test_dump_is_cached_beside_the_run(tmp_path):
    from viewer_fixtures import synth_trace

    anchor = synth_trace(tmp_path / "t", ranks=2, metahosts=1, iterations=1)
    run = tmp_path / "run"
    run.mkdir()
    first = open_trace(anchor, run).folder
    assert first.parent == run / ".gridscope-cache"
    assert open_trace(anchor, run).folder == first


def test_bad_traces_are_one_clear_error(tmp_path):
    with pytest.raises(GridscopeError, match="no OTF2 trace here"):
        find_anchor(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "traces.otf2").write_bytes(b"not an archive")
    with pytest.raises(GridscopeError, match="cannot read the trace"):
        dump(find_anchor(broken), tmp_path / "out")
    other = tmp_path / "x.txt"
    other.write_text("hi")
    with pytest.raises(GridscopeError, match="not an OTF2 anchor"):
        find_anchor(other)


def test_event_file_cut_short_is_shown_and_counted(tmp_path):
    """A rank's events cut inside an MPI call (a process killed outright) are shown up to
    the cut, its open regions closed there and counted (docs/analyzer.md, "Partial
    traces"), as the analyzer does."""
    from viewer_fixtures import synth_trace

    anchor = synth_trace(tmp_path / "t", ranks=2, metahosts=1, iterations=3)
    evt = tmp_path / "t" / "traces" / "1.evt"
    data = evt.read_bytes()
    evt.write_bytes(data[: len(data) // 2])
    t = open_trace(anchor, tmp_path)
    assert t.defs["repaired_regions"]["truncated"] == 1
    assert 0 < t.defs["events"] < 2 * (2 + 3 * 12)  # rank 1 lost part of its events


def test_synthetic_trace_is_valid_otf2(tmp_path):
    from viewer_fixtures import synth_trace

    anchor = synth_trace(tmp_path / "t", ranks=4, metahosts=2, iterations=2, region_name="<b>&\"quoted\"")
    check = subprocess.run(["otf2-print", "--silent", "-Werror", str(anchor)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    t = open_trace(anchor, tmp_path)
    assert t.regions[1]["name"] == "<b>&\"quoted\""
    assert t.defs["events"] == otf2_print_count(anchor) == 4 * (2 + 2 * 12)


def test_synth_rejects_bad_options(tmp_path):
    from gridscope.native import binary

    proc = subprocess.run([str(binary("gs-tracegen")), "synth", str(tmp_path / "x"), "--ranks", "3"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "want an even number" in proc.stderr


def test_misnested_user_regions_are_repaired(tmp_path):
    """The dump reads through the trace library, so it sees the analyzer's balanced regions
    (tests/analyzer/specs/repair.spec: 2 mis-nested, 2 unclosed, 1 stray Leave on rank 0)."""
    from pathlib import Path

    from gridscope import native

    spec = Path(__file__).resolve().parents[1] / "analyzer" / "specs" / "repair.spec"
    subprocess.run([str(native.binary("gs-tracegen")), str(spec), str(tmp_path / "t")], check=True)
    dump(tmp_path / "t" / "traces.otf2", tmp_path / "d", events=True)
    t = Trace.open(tmp_path / "d")
    assert t.defs["repaired_regions"] == {"misnested": 2, "unclosed": 2, "stray_leave": 1, "truncated": 0, "lost": 0}
    kinds = np.asarray(t.columns["ev_kind"])
    locs = np.asarray(t.columns["ev_loc"])
    for loc in (0, 1):  # every Enter has its Leave: the stray one is gone, the missing ones added
        assert np.count_nonzero((kinds == 1) & (locs == loc)) == np.count_nonzero((kinds == 2) & (locs == loc))
    # rank 0's time line ends at its last event (200 us), where the unclosed regions end
    time, _, _ = (np.asarray(a) for a in t.segments(0))
    assert time[-1] == 200_000
