"""A run on the bundled collectives is recorded and analysed like a vanilla one (issue 15,
"like for like"): the library's messages go through PMPI_, so the trace holds each
collective as Enter, MpiCollectiveBegin, MpiCollectiveEnd, Leave and nothing inside, and the
analysis finds no point-to-point wait state below a collective and no call path whose
wait states exceed its MPI time."""

from __future__ import annotations

import pytest

from gstest import REPO, run_gridscope
from tests.collector import otf2text

RAY2MESH = REPO / "testdata" / "apps" / "ray2mesh" / "ray2mesh.c"
APP_INCLUDE = REPO / "testdata" / "apps" / "common"
RANKS = 8
# round-robin interleaves the metahosts, so every topology-aware algorithm has local and
# WAN steps; small rays keep the run short, the broadcasts and the all-to-all stay
APP_ARGS = ("--rays", "200")
P2P_PATTERNS = {"late_sender", "wrong_order", "late_receiver"}
COLLECTIVES = {"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather",
               "MPI_Allgather", "MPI_Alltoall", "MPI_Alltoallv"}
# metrics outside the MPI subtree of patterns/patterns.toml
NOT_MPI = {"time", "visits", "bytes_sent", "bytes_received"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """ray2mesh recorded with vanilla and with topo on the simulated grid; topo analysed."""
    out = tmp_path_factory.mktemp("like")
    app = out / "ray2mesh"
    run_gridscope("cc", "--simulate", f"-I{APP_INCLUDE}", "-O1", RAY2MESH, "-lm", "-o", app)
    traces = {}
    for mode in ("vanilla", "topo"):
        traces[mode] = out / mode
        run_gridscope("record", "--platform", "grid5000-2", "-np", RANKS, "--placement",
                      "round-robin", "--coll", mode, "-o", traces[mode], "--", app, *APP_ARGS)
    run_gridscope("analyze", traces["topo"], "-o", out / "analysis", "-j", "2")
    return traces, out / "analysis"


def _collective_records(evts: list[otf2text.Event]) -> list[tuple]:
    """Every collective call as (region, event kinds inside it, operation, root, bytes)."""
    out, inside, region = [], None, None
    for e in evts:
        if inside is None and e.kind == "ENTER" and e.region() in COLLECTIVES:
            inside, region = [], e.region()
        elif inside is not None and e.kind == "LEAVE" and e.region() == region:
            end = next(x for x in inside if x.kind == "MPI_COLLECTIVE_END")
            out.append((region, tuple(x.kind for x in inside), end.attrs["Operation"],
                        end.attrs["Root"], end.attrs["Sent"], end.attrs["Received"]))
            inside = None
        elif inside is not None:
            inside.append(e)
    return out


@pytest.mark.slow
def test_topo_collectives_are_recorded_as_vanilla_ones(runs):
    traces, _ = runs
    vanilla = otf2text.events(traces["vanilla"] / "traces.otf2")
    topo = otf2text.events(traces["topo"] / "traces.otf2")
    assert sorted(topo) == sorted(vanilla) == list(range(RANKS))
    for rank in range(RANKS):
        got = _collective_records(topo[rank])
        assert got, f"rank {rank}: no collective recorded"
        assert got == _collective_records(vanilla[rank]), f"rank {rank}"
        assert all(kinds == ("MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END")
                   for _, kinds, *_ in got), f"rank {rank}: events inside a collective"
        # the library's topology (PMPI_Comm_split of the levels) is not an application call
        regions = set(otf2text.region_counts(topo[rank]))
        assert regions == set(otf2text.region_counts(vanilla[rank])), f"rank {rank}"


@pytest.mark.slow
def test_topo_analysis_counts_no_p2p_waiting_inside_collectives(runs):
    from gridscope.analysis import load
    _, analysis = runs
    a = load(analysis)
    w = a.waitstates
    assert w is not None and len(w) > 0  # the collectives' own wait states are there
    above = [str(cp).split("/")[:-1] for cp in w["callpath"]]
    nested = [(p, cp) for p, cp, parents in zip(w["pattern"], w["callpath"], above)
              if p in P2P_PATTERNS and COLLECTIVES & set(parents)]
    assert nested == []
    assert {"late_broadcast", "wait_at_nxn"} & set(w["pattern"].astype(str))
    # every call path's wait states fit in its MPI time (metric-inclusive, callpath-exclusive)
    sev = a.severities
    mpi = (sev[~sev["metric"].astype(str).isin(NOT_MPI)]
           .groupby(["callpath", "rank"], observed=True)["value"].sum())
    waits = w.groupby(["callpath", "rank"], observed=True)["severity_s"].sum()
    for key, wait in waits.items():
        assert wait <= mpi.get(key, 0.0) + 1e-9, key
