"""Fortran programs of testdata/apps/fortran recorded under Open MPI and MPICH: `use mpi`
(persistent requests, Waitany, in-place reductions), `include 'mpif.h'` (blocking and
non-blocking collectives on a named sub-communicator, Sendrecv), their `use mpi_f08` ports
(persistent_f08, nbc_f08: the same calls, so the same expected events) and `use mpi_f08`
(a Cartesian line, a Testall loop, Ireduce). Open MPI's Fortran bindings call PMPI_
directly, so these pass through the collector's Fortran entry points (wrapgen/fortran.py);
MPICH's mpif.h/`use mpi` bindings and its mpi_f08 procedures with choice buffers call the
C MPI_ functions (the C wrappers), its other mpi_f08 procedures call PMPI_ directly and
pass through the MPICH build's f08 entry points (docs/collector.md, "Fortran").
Exact event counts per rank, bytes, peers, tags, communicators; otf2-print -Werror (in
record_app); `gridscope analyze`."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from gridscope.record import mpi_abi
from gstest import run_gridscope
from tests.collector import otf2text
from tests.collector.mpi_kits import APP_RANKS as N
from tests.collector.test_mpi3_apps import analyses, enters, kinds, nbc_pairs

pytestmark = pytest.mark.slow

FORTRAN = Path(__file__).resolve().parents[2] / "testdata" / "apps" / "fortran"
WRAPGEN = Path(__file__).resolve().parents[2] / "collector" / "wrapgen"
INT, DOUBLE = 4, 8
ENDS = ("PROGRAM_BEGIN", "PROGRAM_END")


def peer(e: otf2text.Event, key: str) -> int:
    return int(e.attrs[key].split()[0])


def comm_name(attrs: dict[str, str]) -> str:
    return attrs["Communicator"].split('"')[1]


def coll_ends(evts) -> list[tuple[str, str, int, int, str]]:
    return [(e.attrs["Operation"], e.attrs["Root"].split()[0], int(e.attrs["Sent"]),
             int(e.attrs["Received"]), comm_name(e.attrs))
            for e in evts if e.kind == "MPI_COLLECTIVE_END"]


@pytest.mark.parametrize("program", ["persistent_mpi", "persistent_f08"])
def test_persistent_requests(record_app, tmp_path, program):
    anchor = record_app(FORTRAN / f"{program}.f90", ok=f"{program} ok")
    evts = otf2text.events(anchor)
    rounds, count = 4, 8
    for me in range(N):
        right, left = (me + 1) % N, (me + N - 1) % N
        ev = evts[me]
        assert enters(ev) == Counter({
            "MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Send_init": 1,
            "MPI_Recv_init": 1, "MPI_Startall": rounds, "MPI_Waitall": rounds,
            "MPI_Request_free": 2, "MPI_Irecv": 1, "MPI_Isend": 1, "MPI_Waitany": 2,
            "MPI_Allreduce": 2, "MPI_Finalize": 1}), me
        msgs = rounds + 1  # each round one send and one receive, then the Isend/Irecv pair
        assert kinds(ev) == Counter({
            **dict.fromkeys(ENDS, 1), "MPI_ISEND": msgs, "MPI_ISEND_COMPLETE": msgs,
            "MPI_IRECV_REQUEST": msgs, "MPI_IRECV": msgs, "MPI_COLLECTIVE_BEGIN": 2,
            "MPI_COLLECTIVE_END": 2}), me
        sends = [e for e in ev if e.kind == "MPI_ISEND"]
        recvs = [e for e in ev if e.kind == "MPI_IRECV"]
        assert [(peer(e, "Receiver"), e.attrs["Tag"], int(e.attrs["Length"])) for e in sends] \
            == [(right, "5", count * DOUBLE)] * rounds + [(right, "6", count * DOUBLE)]
        # receives completed with MPI_STATUSES_IGNORE (Waitall) still name their source
        assert sorted((peer(e, "Sender"), e.attrs["Tag"], int(e.attrs["Length"]))
                      for e in recvs) == \
            sorted([(left, "5", count * DOUBLE)] * rounds + [(left, "6", count * DOUBLE)])
        assert len({e.attrs["Request"] for e in sends + recvs}) == 2 * msgs  # fresh ids
        # MPI_IN_PLACE (a Fortran common block) counts as in place: (N-1) x bytes
        assert coll_ends(ev) == [("ALLREDUCE", "NONE", (N - 1) * DOUBLE, (N - 1) * DOUBLE,
                                  "MPI_COMM_WORLD"),
                                 ("ALLREDUCE", "NONE", (N - 1) * INT, (N - 1) * INT,
                                  "MPI_COMM_WORLD")]
        otf2text.check_nesting(ev)
    s = analyses(anchor, tmp_path)
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}
    assert s["messages"] == N * (rounds + 1)


@pytest.mark.parametrize("program", ["nbc_mpif", "nbc_f08"])
def test_collectives_on_a_named_communicator(record_app, tmp_path, program):
    anchor = record_app(FORTRAN / f"{program}.f90", ok=f"{program} ok")
    evts = otf2text.events(anchor)
    half = N // 2  # size of each half (even ranks, odd ranks)
    for me in range(N):
        ev = evts[me]
        assert enters(ev) == Counter(dict.fromkeys((
            "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_split", "MPI_Comm_set_name",
            "MPI_Iallreduce", "MPI_Wait", "MPI_Ibcast", "MPI_Ibarrier", "MPI_Waitall",
            "MPI_Gather", "MPI_Reduce", "MPI_Sendrecv", "MPI_Comm_free", "MPI_Allreduce",
            "MPI_Finalize"), 1)), me
        assert kinds(ev) == Counter({
            **dict.fromkeys(ENDS, 1), "NON_BLOCKING_COLLECTIVE_REQUEST": 3,
            "NON_BLOCKING_COLLECTIVE_COMPLETE": 3, "MPI_COLLECTIVE_BEGIN": 3,
            "MPI_COLLECTIVE_END": 3, "MPI_SEND": 1, "MPI_RECV": 1}), me
        root_of_half = me // 2 == 0  # the half's rank 0
        # Bcast: the root sends to each of the half's 2 members, every member receives
        pairs = [(r, w, a["Operation"], a["Root"].split()[0], int(a["Sent"]),
                  int(a["Received"]), comm_name(a)) for r, w, a in nbc_pairs(ev)]
        assert pairs == [
            ("MPI_Iallreduce", "MPI_Wait", "ALLREDUCE", "NONE", N * 4 * DOUBLE,
             N * 4 * DOUBLE, "MPI_COMM_WORLD"),
            ("MPI_Ibcast", "MPI_Waitall", "BCAST", "0", half * 4 * DOUBLE if root_of_half else 0,
             4 * DOUBLE, "halves"),
            ("MPI_Ibarrier", "MPI_Waitall", "BARRIER", "NONE", 0, 0, "MPI_COMM_WORLD")], me
        last = me == N - 1
        assert coll_ends(ev) == [
            ("GATHER", str(N - 1), INT, N * INT if last else 0, "MPI_COMM_WORLD"),
            ("REDUCE", "0", 4 * DOUBLE, half * 4 * DOUBLE if root_of_half else 0, "halves"),
            ("ALLREDUCE", "NONE", N * INT, N * INT, "MPI_COMM_WORLD")], me
        send = next(e for e in ev if e.kind == "MPI_SEND")
        recv = next(e for e in ev if e.kind == "MPI_RECV")
        assert (peer(send, "Receiver"), send.attrs["Tag"], int(send.attrs["Length"])) == \
            ((me + 1) % N, "3", INT)
        assert (peer(recv, "Sender"), recv.attrs["Tag"], int(recv.attrs["Length"])) == \
            ((me + N - 1) % N, "3", INT)
        otf2text.check_nesting(ev)
    s = analyses(anchor, tmp_path)
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}


def test_use_mpi_f08(record_app, tmp_path):
    anchor = record_app(FORTRAN / "line_f08.f90", ok="line_f08 ok")
    tests = {int(r): int(t) for r, t in re.findall(r"line_f08 tests (\d+) (\d+)",
                                                   record_app.stdout)}
    assert sorted(tests) == list(range(N))
    evts = otf2text.events(anchor)
    for me in range(N):
        ev, polls = evts[me], tests[me]
        nnb = (me > 0) + (me < N - 1)  # neighbours on the non-periodic line
        assert enters(ev) == Counter({
            "MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Cart_create": 1,
            "MPI_Neighbor_allgather": 1, "MPI_Irecv": 1, "MPI_Isend": 1, "MPI_Testall": polls,
            "MPI_Ireduce": 1, "MPI_Wait": 1, "MPI_Comm_free": 1, "MPI_Allreduce": 1,
            "MPI_Finalize": 1}), me
        # every Testall that found the pair pending tests both requests
        assert kinds(ev) == Counter({
            **dict.fromkeys(ENDS, 1), "MPI_COLLECTIVE_BEGIN": 2, "MPI_COLLECTIVE_END": 2,
            "MPI_IRECV_REQUEST": 1, "MPI_ISEND": 1, "MPI_ISEND_COMPLETE": 1, "MPI_IRECV": 1,
            "MPI_REQUEST_TEST": 2 * (polls - 1), "NON_BLOCKING_COLLECTIVE_REQUEST": 1,
            "NON_BLOCKING_COLLECTIVE_COMPLETE": 1}), me
        ends = coll_ends(ev)
        assert ends[0][:4] == ("ALLGATHER", "NONE", nnb * INT, nnb * INT)
        assert ends[0][4] != "MPI_COMM_WORLD"  # the Cartesian communicator
        assert ends[1] == ("ALLREDUCE", "NONE", N * INT, N * INT, "MPI_COMM_WORLD")
        recv = next(e for e in ev if e.kind == "MPI_IRECV")
        assert (peer(recv, "Sender"), recv.attrs["Tag"], int(recv.attrs["Length"])) == \
            ((me + N - 1) % N, "9", INT)
        [(_, wait, a)] = nbc_pairs(ev)
        assert (wait, a["Operation"], a["Root"].split()[0], int(a["Sent"]),
                int(a["Received"])) == ("MPI_Wait", "REDUCE", "1", INT, N * INT if me == 1 else 0)
        otf2text.check_nesting(ev)
    s = analyses(anchor, tmp_path)
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}


def mpich_f08_zero_based() -> frozenset[str]:
    """The completion functions whose MPICH mpi_f08 binding returns 0-based indices, as
    the generator declares them (collector/wrapgen/fortran.py)."""
    sys.path.insert(0, str(WRAPGEN))
    try:
        import fortran
    finally:
        sys.path.remove(str(WRAPGEN))
    return fortran.MPICH_F08_ZERO_BASED


def test_f08_completion_indices(record_app, mpi_kit, tmp_path):
    anchor = record_app(FORTRAN / "indices_f08.f90", ok="indices_f08 ok")
    got = re.findall(r"indices_f08 (\w+) (\d+)", record_app.stdout)
    zero_based = mpich_f08_zero_based() if mpi_kit.name == mpi_abi.MPICH else frozenset()
    for name in ("waitany", "testany", "waitsome", "testsome"):
        first = 0 if f"MPI_{name.capitalize()}" in zero_based else 1
        # requests 2 (the Irecv) and 3 (the Isend) complete, in either order: the base the
        # library counts from is the one the generator decodes with
        assert sorted(int(i) for n, i in got if n == name) == [first + 1, first + 2], name
    evts = otf2text.events(anchor)
    for me in range(N):
        ev = evts[me]
        assert enters(ev)["MPI_Waitany"] == 2, me  # one completion per call
        # every completion found its own request: each send completes, each receive names
        # its sender (rank 0 of MPI_COMM_SELF) and tag
        assert kinds(ev) == Counter({
            **dict.fromkeys(ENDS, 1), "MPI_ISEND": 4, "MPI_ISEND_COMPLETE": 4,
            "MPI_IRECV_REQUEST": 4, "MPI_IRECV": 4, "MPI_COLLECTIVE_BEGIN": 1,
            "MPI_COLLECTIVE_END": 1}), me
        assert [(peer(e, "Sender"), e.attrs["Tag"], int(e.attrs["Length"])) for e in ev
                if e.kind == "MPI_IRECV"] == [(0, str(k), INT) for k in range(1, 5)], me
        otf2text.check_nesting(ev)
    s = analyses(anchor, tmp_path)
    assert s["unmatched_messages"] == {"sends": 0, "receives": 0}


def test_mpich_large_count_f08_is_refused(record_app, mpi_kit, tmp_path):
    """MPICH's mpi_f08 large-count procedures call MPI_<Name>_c, which the collector does
    not wrap: the program is refused with one line, nothing is recorded."""
    if mpi_kit.name != mpi_abi.MPICH:
        pytest.skip("Open MPI 4.1's mpi_f08 has no MPI_COUNT_KIND procedures")
    exe = record_app.build(FORTRAN / "large_count_f08.f90", ())
    out = tmp_path / "refused"
    proc = run_gridscope("record", "-o", out, "--", *mpi_kit.launch, "2", exe, check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        f"gridscope: {exe}: calls MPI_Recv, MPI_Send with MPI_COUNT_KIND counts (MPICH's "
        "mpi_f08 large-count procedures, MPI-4's MPI_<Name>_c), which gridscope does not "
        "record")
    assert not out.exists()
