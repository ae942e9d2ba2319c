"""Unit tests of the launcher's plain logic (no MPI run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridscope.errors import GridscopeError
from gridscope.record import launch


def test_default_output_names_program_and_ranks():
    assert launch.default_output(["mpirun", "-np", "8", "./app", "x"]) == Path("gridscope_app_8")
    assert launch.default_output(["mpirun", "--oversubscribe", "-n", "4", "/a/b/solver"]) == \
        Path("gridscope_solver_4")
    assert launch.default_output(["./app"]) == Path("gridscope_app")


@pytest.mark.parametrize("good", ["16M", "512K", "1G", "1048576", "2.5m", "64MB"])
def test_buffer_sizes_accepted(good):
    assert launch.check_buffer(good) == good


@pytest.mark.parametrize("bad", ["", "lots", "16Q", "-1M", "M"])
def test_buffer_sizes_refused(bad):
    with pytest.raises(GridscopeError, match="bad size"):
        launch.check_buffer(bad)


def test_open_mpi_gets_every_variable_forwarded(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDSCOPE_TEST_CLOCK_SKEW", "a:1:0")
    monkeypatch.delenv("OMPI_MCA_odls_base_sigkill_timeout", raising=False)
    mapfile = tmp_path / "m.json"
    mapfile.write_text('{"a": ["rank:0-1"]}')
    plan = launch.plan_launch(["mpirun", "-np", "2", "./app"], tmp_path / "t", mapfile,
                              "vanilla", "8M")
    assert plan.command[0] == "mpirun" and plan.command[-3:] == ["-np", "2", "./app"]
    forwarded = {plan.command[i + 1] for i, a in enumerate(plan.command) if a == "-x"}
    assert {"GRIDSCOPE_TRACE_DIR", "GRIDSCOPE_BUFFER", "GRIDSCOPE_COLL", "LD_PRELOAD",
            "GRIDSCOPE_METAHOST_MAP", "GRIDSCOPE_TEST_CLOCK_SKEW"} <= forwarded
    assert plan.env["GRIDSCOPE_TRACE_DIR"] == str((tmp_path / "t").resolve())
    assert plan.env["GRIDSCOPE_METAHOST_MAP"] == str(mapfile.resolve())
    assert plan.env["LD_PRELOAD"].endswith("libgridscope_collector.so")
    assert plan.env["OMPI_MCA_odls_base_sigkill_timeout"] == "5"
    assert not plan.parts


def test_other_launchers_get_the_environment_only(tmp_path):
    plan = launch.plan_launch(["srun", "-n", "2", "./app"], tmp_path / "p" / "%m", None,
                              "vanilla", "16M")
    assert plan.command == ["srun", "-n", "2", "./app"]
    assert plan.parts and plan.env["GRIDSCOPE_TRACE_DIR"].endswith("/p/%m")


def test_invalid_map_is_one_error(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text("{not json")
    with pytest.raises(GridscopeError, match="not valid JSON"):
        launch.plan_launch(["mpirun", "./app"], tmp_path / "t", bad, "vanilla", "16M")


def test_collectives_library_is_preloaded_after_the_collector(tmp_path, monkeypatch):
    libs = tmp_path / "native" / "lib"
    libs.mkdir(parents=True)
    for name in (launch.COLLECTOR_LIB, launch.COLL_LIB):
        (libs / name).write_text("")
    monkeypatch.setenv("GRIDSCOPE_NATIVE_DIR", str(tmp_path / "native"))
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    plan = launch.plan_launch(["srun", "./app"], tmp_path / "t", None, "topo", "16M")
    assert [Path(p).name for p in plan.env["LD_PRELOAD"].split(":")] == \
        [launch.COLLECTOR_LIB, launch.COLL_LIB]
    assert plan.env["GRIDSCOPE_COLL"] == "topo"
