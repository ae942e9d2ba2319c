"""Demo applications: each builds with `gridscope cc` for both targets, runs simulated and
under real Open MPI at small scale, and metatrace's optimisation cycles reproduce the trend
of seed 002's Table 5 on the viola preset."""

from __future__ import annotations

import json

import pytest

from gstest import run_gridscope
from testbed_helpers import APPS, build, definitions, events, machines

pytestmark = pytest.mark.slow

# small runs: (arguments, ranks, simulated platform and layout)
RUNS = {
    "metatrace": (["--steps", "2"], 6, ["--platform", "viola", "--layout", "4,2"]),
    "ray2mesh": (["--hierarchical", "--rays", "200"], 8, ["--platform", "grid5000-3", "-np", "8"]),
    "collbench": (["--max", "1024", "--iterations", "3", "--warmup", "1"], 4,
                  ["--platform", "grid5000-2", "-np", "4"]),
}
REGIONS = {
    "metatrace": {"cgiteration", "printtolink", "ReadFieldsFromTrace", "iteration"},
    "ray2mesh": {"broadcasts", "master_worker", "exchange", "trace_rays"},
    "collbench": {"bcast", "alltoall", "barrier"},
}


@pytest.fixture(scope="module")
def app_binaries(tmp_path_factory):
    out = tmp_path_factory.mktemp("apps")
    built = {}
    for app in RUNS:
        src = APPS / app / f"{app}.c"
        built[(app, True)] = build(src, out / f"{app}-sim", True, "-lm")
        built[(app, False)] = build(src, out / f"{app}-mpi", False, "-lm")
    return built


def _summary(stdout: str, prefix: str) -> dict:
    if prefix == "collbench":
        return json.loads(stdout[stdout.index("{"):])
    line = next(l for l in stdout.splitlines() if l.startswith(prefix + " {"))
    return json.loads(line[len(prefix) + 1:])


def _check_summary(app: str, summary: dict, ranks: int) -> None:
    if app == "metatrace":
        assert summary["ranks"] == ranks and 0 < summary["mpi_fraction"] < 1
    elif app == "ray2mesh":
        assert summary["chunks_done"] == summary["chunks"] == 20
        assert summary["mode"] == "hierarchical"
    else:
        ops = {r["op"] for r in summary["results"]}
        assert ops == {"bcast", "reduce", "allreduce", "gather", "allgather", "alltoall",
                       "barrier"}
        sizes = sorted({r["bytes"] for r in summary["results"] if r["op"] == "bcast"})
        assert sizes == [2**k for k in range(11)]
        assert all(r["min_us"] <= r["avg_us"] <= r["max_us"] for r in summary["results"])


def _user_regions(anchor) -> set[str]:
    import re
    return set(re.findall(r'^REGION\s+\d+\s+Name: "([^"]+)".*Paradigm: USER',
                          definitions(anchor), flags=re.M))


@pytest.mark.parametrize("app", sorted(RUNS))
def test_app_runs_simulated(app, app_binaries, tmp_path):
    args, ranks, platform = RUNS[app]
    out = tmp_path / "trace"
    proc = run_gridscope("record", *platform, "-o", out, "--", app_binaries[(app, True)], *args)
    _check_summary(app, _summary(proc.stdout, app), ranks)
    anchor = out / "traces.otf2"
    assert len(machines(definitions(anchor))) >= 2
    assert REGIONS[app] <= _user_regions(anchor)


@pytest.mark.parametrize("app", sorted(RUNS))
def test_app_runs_under_open_mpi(app, app_binaries, tmp_path):
    args, ranks, _ = RUNS[app]
    if app == "metatrace":
        args = args + ["--scale", "0.01"]  # modelled compute sleeps on a real machine
    if app == "ray2mesh":
        args = args + ["--groups", f"{ranks // 2},{ranks - ranks // 2}", "--gflop-per-ray",
                       "0.0001"]
    metahosts = tmp_path / "map.json"
    metahosts.write_text(json.dumps({"siteA": [f"rank:0-{ranks // 2 - 1}"],
                                     "siteB": [f"rank:{ranks // 2}-{ranks - 1}"]}))
    out = tmp_path / "trace"
    proc = run_gridscope("record", "--metahosts", metahosts, "-o", out, "--", "mpirun",
                         "-np", ranks, app_binaries[(app, False)], *args)
    _check_summary(app, _summary(proc.stdout, app), ranks)
    anchor = out / "traces.otf2"
    assert machines(definitions(anchor)) == ["siteA", "siteB"]
    assert REGIONS[app] <= _user_regions(anchor)
    assert any(e.kind == "MPI_COLLECTIVE_END" for e in events(anchor))


def test_metatrace_cycles_follow_seed_table5(app_binaries, tmp_path):
    """Each optimisation cycle lowers the MPI fraction and the three wait states of seed
    002's Table 5, as gridscope analyze measures them (fractions of the total time)."""
    figures = []
    for opt in (0, 1, 2):
        trace = tmp_path / f"opt{opt}"
        proc = run_gridscope("record", "--platform", "viola", "--layout", "16,8", "-o", trace,
                             "--", app_binaries[("metatrace", True)], "--opt", opt,
                             "--steps", "4")
        own = _summary(proc.stdout, "metatrace")
        run_gridscope("analyze", trace / "traces.otf2", "-o", tmp_path / f"an{opt}")
        summary = json.loads((tmp_path / f"an{opt}" / "summary.json").read_text())
        total, patterns = summary["total_time_s"], summary["patterns"]
        share = {k: (patterns[k]["grid"] + patterns[k]["local"]) / total
                 for k in ("wait_at_barrier", "late_sender", "wait_at_nxn")}
        share["mpi"] = summary["mpi_time_s"] / total
        share["own_mpi"] = own["mpi_fraction"]
        figures.append(share)
    for key in ("mpi", "own_mpi", "wait_at_barrier", "late_sender", "wait_at_nxn"):
        values = [f[key] for f in figures]
        assert values[0] > values[1] > values[2], (key, values)
    # the barrier waits are grid waits (Trace and Partrace sit on different metahosts)
    assert figures[0]["wait_at_barrier"] > 0.05
