"""Communicators created behind the collector's back, user regions unified by name,
Cartesian communicators, Waitany/Testsome, persistent and cancelled requests."""

from __future__ import annotations

from collections import Counter

import pytest

from gridscope import native
from tests.collector import otf2text
from gstest import run_gridscope

N = 4


@pytest.fixture(scope="module")
def trace(build_app, tmp_path_factory):
    out = tmp_path_factory.mktemp("extras") / "trace"
    app = build_app("extras", f"-I{native.include_dir()}")
    proc = run_gridscope("record", "-o", out, "--", "mpirun", "-np", str(N), app)
    assert "extras done cancelled=1" in proc.stdout
    return out / "traces.otf2"


@pytest.mark.slow
def test_archive_validates(trace):
    proc = otf2text.validate(trace)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_hidden_communicator_is_defined_lazily(trace):
    """MPI_Barrier on a communicator made with PMPI_Comm_split names a defined communicator
    whose group holds exactly the ranks of the same parity."""
    defs = otf2text.definitions(trace)
    comms = {i: a for k, i, a in defs if k == "COMM"}
    group_lines = {int(l.split()[1]): l for l in otf2text.otf2_print("-G", trace).splitlines()
                   if l.startswith("GROUP")}
    evts = otf2text.events(trace)
    for me in range(N):
        first_barrier = next(e for e in evts[me] if e.kind == "MPI_COLLECTIVE_END")
        cid = int(first_barrier.attrs["Communicator"].split("<")[1].rstrip(">"))
        assert cid in comms and cid > 1
        gid = int(comms[cid]["Group"].split("<")[1].rstrip(">"))
        line = group_lines[gid]
        assert "Type: COMM_GROUP" in line and f"{N // 2} Members:" in line
        members = [int(x.split(" ")[0]) for x in line.split("Members: ")[1].split(", ")]
        assert members == [r for r in range(N) if r % 2 == me % 2]


@pytest.mark.slow
def test_user_regions_unified_by_name(trace):
    defs = otf2text.definitions(trace)
    regions = {a["Name"].split('"')[1]: i for k, i, a in defs if k == "REGION"}
    assert "phase A" in regions and "phase B" in regions
    evts = otf2text.events(trace)
    for me in range(N):
        c = Counter(e.region() for e in evts[me] if e.kind == "ENTER")
        assert c["phase A"] == 1 and c["phase B"] == (2 if me % 2 else 1)
        ids = {e.attrs["Region"] for e in evts[me] if e.kind == "ENTER" and "phase" in e.region()}
        assert ids == {f'"phase A" <{regions["phase A"]}>', f'"phase B" <{regions["phase B"]}>'}


@pytest.mark.slow
def test_requests_complete_or_cancel(trace):
    evts = otf2text.events(trace)
    for me in range(N):
        kinds = Counter(e.kind for e in evts[me])
        # one Isend + two starts of the persistent send; Irecv + 2 starts + the cancelled one
        assert kinds["MPI_ISEND"] == kinds["MPI_ISEND_COMPLETE"] == 3
        assert kinds["MPI_IRECV_REQUEST"] == 4 and kinds["MPI_IRECV"] == 3
        starts = [e for e in evts[me] if e.kind == "MPI_ISEND" and e.attrs["Tag"] == "11"]
        assert [e.attrs["Receiver"].split(" ")[0] for e in starts] == [str((me + 1) % N)] * 2
        assert len({e.attrs["Request"] for e in starts}) == 2  # a new id per start
        assert kinds["MPI_REQUEST_CANCELLED"] == 1
        assert otf2text.region_counts(evts[me])["MPI_Cart_create"] == 1


@pytest.mark.slow
def test_compiler_instrumentation_with_filter(build_app, tmp_path):
    lib = native.native_dir() / "lib"
    app = build_app("instrumented", "-finstrument-functions", "-rdynamic", f"-L{lib}",
                    f"-Wl,-rpath,{lib}", "-lgridscope_collector")
    out = tmp_path / "trace"
    proc = run_gridscope("record", "-o", out, "--", "mpirun", "-np", "2", app,
                         env={"GRIDSCOPE_FILTER_EXCLUDE": "skip_*"})
    assert "instrumented" in proc.stdout
    anchor = out / "traces.otf2"
    assert otf2text.validate(anchor).returncode == 0
    evts = otf2text.events(anchor)
    for ev in evts.values():
        c = otf2text.region_counts(ev)
        assert c["work"] == 1 and c["leaf"] == 3 and c["skip_me"] == 0
        assert c["MPI_Allreduce"] == 1
        otf2text.check_nesting(ev)
        names = [e.region() for e in ev if e.kind == "ENTER"]
        # MPI_Allreduce is called inside work(): nested after the three leaf() calls.
        assert names.index("work") < names.index("MPI_Allreduce")
