"""Done-when test of issue 2: an 8-rank Open MPI run across two metahosts (rank ranges),
checked against the calls the program made (apps/pattern.c)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

N = 8
ITERS = 2
DOUBLE, INT, CHAR = 8, 4, 1


def expected_enters(rank: int) -> Counter:
    per_iter = ["MPI_Irecv", "MPI_Isend", "MPI_Waitall",
                "MPI_Send" if rank % 2 == 0 else "MPI_Recv", "MPI_Sendrecv",
                "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Barrier", "MPI_Gather",
                "MPI_Allgather", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Scatter"]
    c = Counter(["MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_split",
                 "MPI_Allreduce", "MPI_Comm_free", "MPI_Finalize"])
    for _ in range(ITERS):
        c.update(per_iter)
    return c


def expected_collectives(rank: int) -> list[tuple[str, str, int, int]]:
    """(operation, root, sent, received) in program order (Score-P byte conventions)."""
    def rooted(op, root, block, at_root):
        return (op, str(root), *(at_root if rank == root else block))

    alltoallv = sum(((rank + j) % 3 + 1) * INT for j in range(N))
    one_iter = [
        ("ALLREDUCE", "NONE", N * 10 * DOUBLE, N * 10 * DOUBLE),
        rooted("BCAST", 3, (0, 5 * INT), (N * 5 * INT, 5 * INT)),
        rooted("REDUCE", 5, (4 * DOUBLE, 0), (4 * DOUBLE, N * 4 * DOUBLE)),
        ("BARRIER", "NONE", 0, 0),
        rooted("GATHER", 0, (2 * INT, 0), (2 * INT, N * 2 * INT)),
        ("ALLGATHER", "NONE", N * INT, N * INT),
        ("ALLTOALL", "NONE", N * INT, N * INT),
        ("ALLTOALLV", "NONE", alltoallv, alltoallv),
        rooted("SCATTER", 7, (0, 3 * INT), (N * 3 * INT, 3 * INT)),
    ]
    half = N // 2
    return one_iter * ITERS + [("ALLREDUCE", "NONE", (half - 1) * INT, (half - 1) * INT)]


def _root(attr: str) -> str:
    return attr.split(" ")[0]


@pytest.fixture(scope="module")
def trace(build_app, two_metahost_map, tmp_path_factory):
    out = tmp_path_factory.mktemp("record") / "trace"
    app = build_app("pattern")
    proc = run_gridscope("record", "--metahosts", two_metahost_map, "-o", out, "--",
                         "mpirun", "-np", str(N), app, str(ITERS))
    assert "pattern done" in proc.stdout
    assert f"trace written to {out}/traces.otf2" in proc.stderr
    return out / "traces.otf2"


@pytest.mark.slow
def test_archive_validates(trace):
    proc = otf2text.validate(trace)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_event_counts_match_calls(trace):
    evts = otf2text.events(trace)
    assert sorted(evts) == list(range(N))
    defs = otf2text.definitions(trace)
    declared = {i: int(a["# Events"]) for kind, i, a in defs if kind == "LOCATION"}
    for rank in range(N):
        ev = evts[rank]
        assert otf2text.region_counts(ev, "ENTER") == expected_enters(rank)
        assert otf2text.region_counts(ev, "LEAVE") == expected_enters(rank)
        kinds = Counter(e.kind for e in ev)
        assert kinds["PROGRAM_BEGIN"] == kinds["PROGRAM_END"] == 1
        sends = ITERS * (1 + (rank % 2 == 0))
        recvs = ITERS * (1 + (rank % 2 == 1))
        assert kinds["MPI_SEND"] == sends and kinds["MPI_RECV"] == recvs
        assert kinds["MPI_ISEND"] == kinds["MPI_ISEND_COMPLETE"] == ITERS
        assert kinds["MPI_IRECV_REQUEST"] == kinds["MPI_IRECV"] == ITERS
        assert kinds["MPI_COLLECTIVE_BEGIN"] == kinds["MPI_COLLECTIVE_END"] == 9 * ITERS + 1
        assert declared[rank] == len(ev)
        otf2text.check_nesting(ev)


@pytest.mark.slow
def test_bytes_and_peers(trace):
    evts = otf2text.events(trace)
    for rank in range(N):
        ev = evts[rank]
        colls = [(e.attrs["Operation"], _root(e.attrs["Root"]), int(e.attrs["Sent"]),
                  int(e.attrs["Received"])) for e in ev if e.kind == "MPI_COLLECTIVE_END"]
        assert colls == expected_collectives(rank)
        for e in ev:
            if e.kind == "MPI_ISEND":
                assert (_root(e.attrs["Receiver"]), e.attrs["Length"]) == \
                    (str((rank + 1) % N), str(16 * DOUBLE))
            if e.kind == "MPI_IRECV":
                assert (_root(e.attrs["Sender"]), e.attrs["Length"]) == \
                    (str((rank - 1) % N), str(16 * DOUBLE))
            if e.kind == "MPI_SEND" and e.attrs["Tag"] == "2":
                assert (_root(e.attrs["Receiver"]), e.attrs["Length"]) == (str(rank + 1), "12")
            if e.kind in ("MPI_SEND", "MPI_RECV") and e.attrs["Tag"] == "3":
                peer = e.attrs["Receiver" if e.kind == "MPI_SEND" else "Sender"]
                assert (_root(peer), e.attrs["Length"]) == (str(rank ^ 4), "7")
        # The last Allreduce names the split communicator: half of the ranks.
        last = [e for e in ev if e.kind == "MPI_COLLECTIVE_END"][-1]
        assert "MPI_COMM_WORLD" not in last.attrs["Communicator"]


@pytest.mark.slow
def test_system_tree_has_metahosts(trace):
    defs = otf2text.definitions(trace)
    nodes = {i: a for kind, i, a in defs if kind == "SYSTEM_TREE_NODE"}
    name = {i: a["Name"].split('"')[1] for i, a in nodes.items()}
    cls = {i: a["Class"].split('"')[1] for i, a in nodes.items()}
    parent = {i: a["Parent"] for i, a in nodes.items()}
    roots = [i for i in nodes if parent[i] == "UNDEFINED"]
    assert [cls[i] for i in roots] == ["metacomputer"]
    machines = sorted(name[i] for i in nodes if cls[i] == "machine")
    assert machines == ["fzj", "jsc"]
    groups = {i: a for kind, i, a in defs if kind == "LOCATION_GROUP"}
    for rank in range(N):
        assert groups[rank]["Name"].split('"')[1] == f"MPI Rank {rank}"
        node_id = int(groups[rank]["Parent"].split("<")[1].rstrip(">"))
        assert cls[node_id] == "node"
        machine_id = int(parent[node_id].split("<")[1].rstrip(">"))
        assert name[machine_id] == ("jsc" if rank < 4 else "fzj")
    locations = [a for kind, _, a in defs if kind == "LOCATION"]
    assert all(a["Name"].split('"')[1] == "Master thread" for a in locations)
    assert all(a["Type"] == "CPU_THREAD" for a in locations)


@pytest.mark.slow
def test_two_clock_offsets_per_location(trace):
    offsets = otf2text.clock_offsets(trace)
    assert sorted(offsets) == list(range(N))
    for rank, recs in offsets.items():
        assert len(recs) >= 2
        assert recs[0][0] < recs[1][0]  # init before finalize


@pytest.mark.slow
def test_metahosts_on_one_machine_share_its_clock(trace):
    """Both metahosts run on this machine: their masters read one clock, so every offset is
    0 exactly (no ping-pong, whose error under load exceeded a short message's transfer)."""
    offsets = otf2text.clock_offsets(trace)
    assert {(offset, stddev) for recs in offsets.values() for _, offset, stddev in recs} == {(0, 0.0)}


@pytest.mark.slow
def test_mpi_regions_follow_scorep(trace):
    defs = otf2text.definitions(trace)
    regions = {a["Name"].split('"')[1]: a for kind, _, a in defs if kind == "REGION"}
    roles = {"MPI_Allreduce": "COLL_ALL2ALL", "MPI_Bcast": "COLL_ONE2ALL",
             "MPI_Reduce": "COLL_ALL2ONE", "MPI_Barrier": "BARRIER",
             "MPI_Send": "POINT2POINT", "MPI_Irecv": "POINT2POINT", "MPI_Scan": "COLL_OTHER"}
    for name, role in roles.items():
        assert regions[name]["Role"] == role
        assert regions[name]["File"].split('"')[1] == "MPI"
    comms = {a["Name"].split('"')[1] for kind, _, a in defs if kind == "COMM"}
    assert {"MPI_COMM_WORLD", "MPI_COMM_SELF"} <= comms
