"""MPI-3 programs of testdata/apps recorded under Open MPI and under MPICH (each test runs
once per library, conftest.mpi_kit; MPICH skips where it is not installed): non-blocking
collectives (Score-P's NonBlockingCollectiveRequest/Complete sequence), neighbourhood
collectives, persistent requests, MPI-IO, RMA fence epochs and two threads per rank. Each
trace validates with otf2-print, its events are counted against what the program does,
and `gridscope analyze` reads it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.collector import otf2text
from tests.collector.mpi_kits import APP_RANKS
from tests.collector.test_collectives import expected as blocking_bytes
from gridscope import native
from gstest import run_gridscope

N, INT, DOUBLE = APP_RANKS, 4, 8
APPS = Path(__file__).resolve().parents[2] / "testdata" / "apps"
TEST_APPS = Path(__file__).resolve().parent / "apps"
COMMON = {"MPI_Init": 1, "MPI_Finalize": 1}


def enters(evts) -> Counter:
    return otf2text.region_counts(evts)


def kinds(evts) -> Counter:
    return Counter(e.kind for e in evts if e.kind not in ("ENTER", "LEAVE"))


def analyses(anchor: Path, tmp_path: Path) -> dict:
    out = tmp_path / f"analysis-{anchor.parent.name}"
    run_gridscope("analyze", anchor, "-o", out, "-j", "2")
    return json.loads((out / "summary.json").read_text())


def nbc_pairs(evts) -> list[tuple[str, str, dict]]:
    """(region of the request, region of the completion, completion attrs) per request,
    checking that each request is completed once, later, on the same location."""
    stack, requested, out = [], {}, []
    for e in evts:
        if e.kind == "ENTER":
            stack.append(e.region())
        elif e.kind == "LEAVE":
            stack.pop()
        elif e.kind == "NON_BLOCKING_COLLECTIVE_REQUEST":
            requested[e.attrs["Request"]] = stack[-1]
        elif e.kind == "NON_BLOCKING_COLLECTIVE_COMPLETE":
            out.append((requested.pop(e.attrs["Request"]), stack[-1], e.attrs))
    assert not requested, f"never completed: {requested}"
    return out


@pytest.mark.slow
def test_issue_program_records_nonblocking_collectives(record_app, tmp_path):
    anchor = record_app(APPS / "nbc" / "nbc.c", ok="nbc done")
    evts = otf2text.events(anchor)
    for me in range(N):
        # 20 x (Iallreduce + Wait), Ibarrier + Wait
        assert enters(evts[me]) == Counter({**COMMON, "MPI_Comm_rank": 1, "MPI_Iallreduce": 20,
                                            "MPI_Ibarrier": 1, "MPI_Wait": 21}), me
        assert kinds(evts[me]) == Counter({"PROGRAM_BEGIN": 1, "PROGRAM_END": 1,
                                           "NON_BLOCKING_COLLECTIVE_REQUEST": 21,
                                           "NON_BLOCKING_COLLECTIVE_COMPLETE": 21}), me
        pairs = nbc_pairs(evts[me])
        want = [("MPI_Iallreduce", "ALLREDUCE", N * DOUBLE)] * 20 + [("MPI_Ibarrier", "BARRIER", 0)]
        assert [(r, a["Operation"], int(a["Sent"])) for r, _, a in pairs] == want
        assert all(w == "MPI_Wait" for _, w, _ in pairs)
        assert all(int(a["Received"]) == int(a["Sent"]) and a["Root"] == "NONE"
                   and a["Communicator"].startswith('"MPI_COMM_WORLD"') for _, _, a in pairs)
        otf2text.check_nesting(evts[me])
    analyses(anchor, tmp_path)


@pytest.mark.slow
def test_nonblocking_collective_bytes_follow_the_blocking_rules(record_app):
    """apps/collbytes.c with every collective made non-blocking (apps/nonblocking.h)."""
    anchor = record_app(TEST_APPS / "collbytes.c",
                    flags=("-include", str(TEST_APPS / "nonblocking.h")), ok="collbytes ok")
    evts = otf2text.events(anchor)
    for me in range(N):
        assert kinds(evts[me])["MPI_COLLECTIVE_END"] == 0
        pairs = nbc_pairs(evts[me])
        got = [(a["Operation"], int(a["Sent"]), int(a["Received"])) for _, _, a in pairs]
        assert got == blocking_bytes(me), f"rank {me}"
        roots = [a["Root"].split()[0] for r, _, a in pairs if r in ("MPI_Ireduce", "MPI_Ibcast")]
        assert roots == ["2", str(N - 1)]


@pytest.mark.slow
def test_neighbourhood_collectives_on_a_line(record_app, tmp_path):
    anchor = record_app(APPS / "mpi3" / "neighbor.c", ok="neighbor ok")
    evts = otf2text.events(anchor)
    for me in range(N):
        left, right = me > 0, me < N - 1  # neighbours that exist on the non-periodic line
        nnb = left + right
        assert enters(evts[me]) == Counter({
            **COMMON, "MPI_Comm_size": 1, "MPI_Cart_create": 1, "MPI_Comm_rank": 1,
            "MPI_Neighbor_alltoall": 1, "MPI_Ineighbor_allgather": 1,
            "MPI_Ineighbor_alltoallv": 1, "MPI_Waitall": 1, "MPI_Allreduce": 1,
            "MPI_Comm_free": 1}), me
        ends = [(e.attrs["Operation"], int(e.attrs["Sent"]), int(e.attrs["Received"]))
                for e in evts[me] if e.kind == "MPI_COLLECTIVE_END"]
        assert ends == [("ALLTOALL", nnb * 2 * INT, nnb * 2 * INT), ("ALLREDUCE", N * INT, N * INT)]
        pairs = nbc_pairs(evts[me])
        # alltoallv: 1 int to the left slot, 2 to the right; 2 arrive left, 1 right
        assert [(r, w, a["Operation"], int(a["Sent"]), int(a["Received"])) for r, w, a in pairs] == [
            ("MPI_Ineighbor_allgather", "MPI_Waitall", "ALLGATHER", nnb * 3 * INT, nnb * 3 * INT),
            ("MPI_Ineighbor_alltoallv", "MPI_Waitall", "ALLTOALLV",
             (left * 1 + right * 2) * INT, (left * 2 + right * 1) * INT)]
    analyses(anchor, tmp_path)


@pytest.mark.slow
def test_persistent_requests_in_a_ring(record_app, tmp_path):
    anchor = record_app(APPS / "mpi3" / "persistent.c", ok="persistent ok")
    evts = otf2text.events(anchor)
    rounds, count = 5, 16
    for me in range(N):
        # round 1: Startall + Waitall; rounds 2-5: 2 x (Start, Wait)
        assert enters(evts[me]) == Counter({
            **COMMON, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Send_init": 1,
            "MPI_Recv_init": 1, "MPI_Startall": 1, "MPI_Waitall": 1, "MPI_Start": 8,
            "MPI_Wait": 8, "MPI_Request_free": 2, "MPI_Allreduce": 1}), me
        assert kinds(evts[me]) == Counter({
            "PROGRAM_BEGIN": 1, "PROGRAM_END": 1, "MPI_COLLECTIVE_BEGIN": 1,
            "MPI_COLLECTIVE_END": 1, "MPI_ISEND": rounds, "MPI_ISEND_COMPLETE": rounds,
            "MPI_IRECV_REQUEST": rounds, "MPI_IRECV": rounds}), me
        sends = [e for e in evts[me] if e.kind == "MPI_ISEND"]
        recvs = [e for e in evts[me] if e.kind == "MPI_IRECV"]
        assert {int(e.attrs["Receiver"].split()[0]) for e in sends} == {(me + 1) % N}
        assert {int(e.attrs["Sender"].split()[0]) for e in recvs} == {(me + N - 1) % N}
        assert {int(e.attrs["Length"]) for e in sends + recvs} == {count * DOUBLE}
        assert len({e.attrs["Request"] for e in sends + recvs}) == 2 * rounds  # fresh ids
    analyses(anchor, tmp_path)


def region_roles(anchor: Path) -> dict[str, str]:
    return {a["Name"].split('"')[1]: a["Role"] for kind, _, a in otf2text.definitions(anchor)
            if kind == "REGION"}


@pytest.mark.slow
def test_mpi_io_write_and_read(record_app, tmp_path):
    anchor = record_app(APPS / "mpi3" / "mpiio.c", str(tmp_path / "shared.dat"), ok="mpiio ok")
    evts = otf2text.events(anchor)
    for me in range(N):
        assert enters(evts[me]) == Counter({
            **COMMON, "MPI_Comm_rank": 1, "MPI_File_open": 2, "MPI_File_write_at_all": 1,
            "MPI_File_close": 2, "MPI_File_read_at": 1, "MPI_Allreduce": 1,
            **({"MPI_File_delete": 1} if me == 0 else {})}), me
        otf2text.check_nesting(evts[me])
    roles = region_roles(anchor)
    assert (roles["MPI_File_open"], roles["MPI_File_close"], roles["MPI_File_delete"]) == (
        "FILE_IO_METADATA",) * 3
    assert (roles["MPI_File_write_at_all"], roles["MPI_File_read_at"]) == ("FILE_IO",) * 2
    analyses(anchor, tmp_path)


@pytest.mark.slow
def test_rma_fence_epochs(record_app, tmp_path):
    anchor = record_app(APPS / "mpi3" / "rma.c", ok="rma ok")
    evts = otf2text.events(anchor)
    for me in range(N):
        assert enters(evts[me]) == Counter({
            **COMMON, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Win_create": 1,
            "MPI_Win_fence": 4, "MPI_Put": 1, "MPI_Get": 1, "MPI_Accumulate": 1,
            "MPI_Win_free": 1, "MPI_Allreduce": 1}), me
        otf2text.check_nesting(evts[me])
    roles = region_roles(anchor)
    assert [roles[r] for r in ("MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Win_fence",
                               "MPI_Win_create")] == ["RMA", "RMA", "ATOMIC", "FUNCTION",
                                                      "FUNCTION"]
    analyses(anchor, tmp_path)


def location_defs(anchor: Path) -> dict[int, dict[str, str]]:
    return {ref: a for kind, ref, a in otf2text.definitions(anchor) if kind == "LOCATION"}


@pytest.mark.slow
def test_two_threads_per_rank_doing_point_to_point(record_app, tmp_path):
    """mpi3/threads.c: MPI_THREAD_MULTIPLE, the main thread and a Pthread each run a ring of
    10 x (Irecv, Send, Wait) at the same time. Each thread has its own location in its
    rank's group (Score-P's id: thread number << 32 | rank), holding its own events."""
    anchor = record_app(APPS / "mpi3" / "threads.c", ok="threads ok",
                    flags=("-pthread", "-I", str(native.include_dir())))  # user.h
    evts = otf2text.events(anchor)
    iterations, count = 10, 8
    ring = {"MPI_Irecv": iterations, "MPI_Send": iterations, "MPI_Wait": iterations}
    ring_kinds = {"MPI_IRECV_REQUEST": iterations, "MPI_SEND": iterations,
                  "MPI_IRECV": iterations}
    locs = location_defs(anchor)
    assert len(locs) == 2 * N
    offsets = otf2text.clock_offsets(anchor)
    for me in range(N):
        thread = 1 << 32 | me
        assert sorted(evts) == sorted(locs)
        assert enters(evts[me]) == Counter({
            "MPI_Init_thread": 1, "MPI_Finalize": 1, "MPI_Comm_rank": 1,
            "MPI_Comm_size": 1, **ring, "MPI_Allreduce": 1}), me
        assert kinds(evts[me]) == Counter({
            "PROGRAM_BEGIN": 1, "PROGRAM_END": 1, "MPI_COLLECTIVE_BEGIN": 1,
            "MPI_COLLECTIVE_END": 1, **ring_kinds}), me
        # the Pthread's location: its user region and its ring, nothing of the master's
        assert enters(evts[thread]) == Counter({"worker": 1, **ring}), me
        assert kinds(evts[thread]) == Counter(ring_kinds), me
        assert evts[thread][0].region() == "worker" and evts[thread][-1].region() == "worker"
        for loc, tag in ((me, "0"), (thread, "1")):
            otf2text.check_nesting(evts[loc])
            sends = [e for e in evts[loc] if e.kind == "MPI_SEND"]
            recvs = [e for e in evts[loc] if e.kind == "MPI_IRECV"]
            assert {(int(e.attrs["Receiver"].split()[0]), e.attrs["Tag"], int(e.attrs["Length"]))
                    for e in sends} == {((me + 1) % N, tag, count * INT)}
            assert {(int(e.attrs["Sender"].split()[0]), e.attrs["Tag"], int(e.attrs["Length"]))
                    for e in recvs} == {((me + N - 1) % N, tag, count * INT)}
            assert len(offsets[loc]) == 2  # the process's clock offsets, on every location
            assert int(locs[loc]["# Events"]) == len(evts[loc])
        assert locs[me]["Name"].startswith('"Master thread"')
        assert locs[thread]["Name"].startswith('"Pthread thread 1"')
        assert locs[thread]["Type"] == "CPU_THREAD"
        assert locs[thread]["Group"] == locs[me]["Group"] == f'"MPI Rank {me}" <{me}>'
    s = analyses(anchor, tmp_path)
    # the engine analyses every location that calls MPI: the Pthreads' rings match per rank
    # (tag 1, thread to thread) beside the masters' (tag 0), docs/analyzer.md
    assert s["thread_locations"] == {"locations": N, "events": sum(len(evts[1 << 32 | r]) for r in range(N))}
    assert s["unanalysed_locations"] == {"locations": 0, "events": 0}
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert sum(r["messages"] for r in s["p2p"]) == 2 * N * iterations
    assert s["messages"] == 2 * N * iterations
    # each Pthread's own row: its time is its "worker" region (first to last event, ticks of
    # the trace's timer), its MPI time the ring's calls inside it
    clock = otf2text.otf2_print("-G", anchor).split("Ticks per Seconds: ", 1)[1]
    resolution = int(clock.split(",", 1)[0])
    rows = {(t["rank"], t["thread"]): t for t in s["threads"]}
    assert set(rows) == {(r, 1) for r in range(N)}
    for me in range(N):
        row = rows[(me, 1)]
        assert 0 < row["mpi_s"] < row["time_s"]
        assert row["waiting_s"] <= row["mpi_s"]
        span = (evts[1 << 32 | me][-1].time - evts[1 << 32 | me][0].time) / resolution
        assert row["time_s"] == pytest.approx(span, rel=1e-9)