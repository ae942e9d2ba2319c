"""No shared file system: one part per metahost (-o 'DIR/%m'), joined by `gridscope merge`."""

from __future__ import annotations

import pytest

from tests.collector import otf2text
from gstest import run_gridscope

N = 8


@pytest.fixture(scope="module")
def parts(build_app, two_metahost_map, tmp_path_factory):
    base = tmp_path_factory.mktemp("parts")
    proc = run_gridscope("record", "--metahosts", two_metahost_map, "-o", base / "run1" / "%m",
                         "--", "mpirun", "-np", str(N), build_app("pattern"), "1")
    assert "gridscope merge" in proc.stderr
    run_gridscope("record", "--metahosts", two_metahost_map, "-o", base / "run2" / "%m",
                  "--", "mpirun", "-np", str(N), build_app("pattern"), "2")
    return base


@pytest.mark.slow
def test_each_metahost_writes_its_own_locations(parts):
    jsc = sorted(p.name for p in (parts / "run1" / "jsc" / "traces").iterdir())
    fzj = sorted(p.name for p in (parts / "run1" / "fzj" / "traces").iterdir())
    assert jsc == [f"{r}.{x}" for r in range(4) for x in ("def", "evt")]
    assert fzj == [f"{r}.{x}" for r in range(4, 8) for x in ("def", "evt")]


@pytest.mark.slow
def test_merge_joins_parts(parts, tmp_path):
    out = tmp_path / "joined"
    proc = run_gridscope("merge", parts / "run1" / "jsc", parts / "run1" / "fzj", "-o", out)
    assert "merged 2 part(s)" in proc.stdout
    anchor = out / "traces.otf2"
    assert otf2text.validate(anchor).returncode == 0
    evts = otf2text.events(anchor)
    assert sorted(evts) == list(range(N))
    for ev in evts.values():
        assert otf2text.region_counts(ev)["MPI_Allreduce"] == 2
    machines = sorted(a["Name"].split('"')[1] for kind, _, a in otf2text.definitions(anchor)
                      if kind == "SYSTEM_TREE_NODE" and '"machine"' in a["Class"])
    assert machines == ["fzj", "jsc"]


@pytest.mark.slow
def test_existing_parts_need_force(parts, two_metahost_map, build_app):
    again = run_gridscope("record", "--metahosts", two_metahost_map, "-o",
                          parts / "run1" / "%m", "--", "mpirun", "-np", str(N),
                          build_app("pattern"), "1", check=False)
    assert again.returncode == 2 and "already holds a trace part" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_merge_refuses_bad_parts(parts, tmp_path):
    one = run_gridscope("merge", parts / "run1" / "jsc", "-o", tmp_path / "a", check=False)
    assert one.returncode == 2 and "no part holds location(s) 4-7" in one.stderr
    twice = run_gridscope("merge", parts / "run1" / "jsc", parts / "run1" / "jsc", "-o",
                          tmp_path / "b", check=False)
    assert twice.returncode == 2 and "is also in" in twice.stderr
    mixed = run_gridscope("merge", parts / "run1" / "jsc", parts / "run2" / "fzj", "-o",
                          tmp_path / "c", check=False)
    assert mixed.returncode == 2 and "different runs" in mixed.stderr
    notpart = run_gridscope("merge", tmp_path, "-o", tmp_path / "d", check=False)
    assert notpart.returncode == 2 and "not a trace part" in notpart.stderr
    for proc in (one, twice, mixed, notpart):
        assert len(proc.stderr.strip().splitlines()) == 1
        assert "Traceback" not in proc.stderr
