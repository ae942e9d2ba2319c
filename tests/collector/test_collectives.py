"""Byte counts per collective as Score-P writes them (roots, MPI_IN_PLACE, v-variants),
and the contract with the topology-aware collectives (GSColl_<Op> hooks)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

N, INT = 4, 4
APPS = Path(__file__).resolve().parent / "apps"


def expected(me: int) -> list[tuple[str, int, int]]:
    """apps/collbytes.c in program order: (operation, sent, received) on rank `me`."""
    root = 2
    counts = [i + 1 for i in range(N)]
    total = sum(counts)
    rows = [
        ("REDUCE", *( (0, (N - 1) * 2 * INT) if me == root else (2 * INT, 0) )),
        ("ALLREDUCE", (N - 1) * 3 * INT, (N - 1) * 3 * INT),
        ("GATHER", *( (0, (N - 1) * INT) if me == root else (INT, 0) )),
        ("SCATTER", *( ((N - 1) * 2 * INT, 0) if me == root else (0, 2 * INT) )),
        ("ALLGATHER", (N - 1) * INT, (N - 1) * INT),
        ("GATHERV", *( (INT, total * INT) if me == 0 else ((me + 1) * INT, 0) )),
        ("SCATTERV", *( (total * INT, 2 * INT) if me == 1 else (0, (me + 1) * INT) )),
        ("ALLGATHERV", N * (me + 1) * INT, total * INT),
        ("REDUCE_SCATTER", total * INT, N * (me + 1) * INT),
        ("REDUCE_SCATTER_BLOCK", (N - 1) * 2 * INT, (N - 1) * 2 * INT),
        ("SCAN", (N - me) * INT, (me + 1) * INT),
        ("EXSCAN", (N - me - 1) * INT, me * INT),
        ("ALLTOALLW", N * INT, N * INT),
        ("BCAST", *( (N * 4 * INT, 4 * INT) if me == N - 1 else (0, 4 * INT) )),
        ("ALLREDUCE", N * INT, N * INT),
    ]
    return rows


@pytest.mark.slow
def test_collective_byte_counts(record_app):
    """Under Open MPI and MPICH (conftest.mpi_kit); "collbytes ok": results intact through
    the wrappers."""
    evts = otf2text.events(record_app(APPS / "collbytes.c", ok="collbytes ok"))
    for me in range(N):
        got = [(e.attrs["Operation"], int(e.attrs["Sent"]), int(e.attrs["Received"]))
               for e in evts[me] if e.kind == "MPI_COLLECTIVE_END"]
        assert got == expected(me), f"rank {me}"


@pytest.mark.slow
def test_gscoll_hook_messages_nest_in_the_collective(build_app, tmp_path):
    lib = tmp_path / "libhook.so"
    subprocess.run(["mpicc", "-shared", "-fPIC", "-o", str(lib),
                    str(APPS / "hookcoll.c")], check=True)
    out = tmp_path / "trace"
    proc = run_gridscope("record", "-o", out, "--", "mpirun", "-np", str(N), "-x",
                         "LD_PRELOAD", build_app("bcast"), env={"LD_PRELOAD": str(lib)})
    assert "bcast ok" in proc.stdout
    evts = otf2text.events(out / "traces.otf2")
    for me in range(N):
        ev = evts[me]
        start = next(i for i, e in enumerate(ev) if e.kind == "ENTER" and e.region() == "MPI_Bcast")
        end = next(i for i, e in enumerate(ev) if e.kind == "LEAVE" and e.region() == "MPI_Bcast")
        inside = ev[start:end + 1]
        assert inside[1].kind == "MPI_COLLECTIVE_BEGIN" and inside[-2].kind == "MPI_COLLECTIVE_END"
        kinds = [e.kind for e in inside]
        if me == 1:
            assert kinds.count("MPI_SEND") == N - 1
            assert {e.attrs["Tag"] for e in inside if e.kind == "MPI_SEND"} == {"4242"}
        else:
            assert kinds.count("MPI_RECV") == 1
        otf2text.check_nesting(inside)


@pytest.mark.slow
def test_topology_aware_library_runs_inside_the_wrappers(build_app, two_metahost_map, tmp_path):
    """`--coll topo` preloads collectives/ after the collector: the collective regions and
    their Score-P byte counts stay, and the library's own messages go through PMPI_, so
    nothing is recorded inside them (as inside an MPI library's collective)."""
    out = tmp_path / "trace"
    proc = run_gridscope("record", "--coll", "topo", "--metahosts", two_metahost_map, "-o",
                         out, "--", "mpirun", "-np", "8", build_app("pattern"), "1")
    assert "pattern done" in proc.stdout
    anchor = out / "traces.otf2"
    assert otf2text.validate(anchor).returncode == 0
    evts = otf2text.events(anchor)
    for rank, ev in evts.items():
        otf2text.check_nesting(ev)
        assert otf2text.region_counts(ev)["MPI_Allreduce"] == 2
        ends = [e for e in ev if e.kind == "MPI_COLLECTIVE_END"
                and e.attrs["Operation"] == "ALLREDUCE"]
        assert (ends[0].attrs["Sent"], ends[0].attrs["Received"]) == ("640", "640")
        inside, depth = [], 0
        for e in ev:
            if e.kind == "ENTER" and e.region() == "MPI_Allreduce":
                depth += 1
            elif e.kind == "LEAVE" and e.region() == "MPI_Allreduce":
                depth -= 1
            elif depth:
                inside.append(e.kind)
        assert inside == ["MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END"] * 2, f"rank {rank}"
        # the program's own split only: the library splits its levels through PMPI_
        assert otf2text.region_counts(ev)["MPI_Comm_split"] == 1
