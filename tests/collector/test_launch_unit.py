"""Unit tests of the launcher's plain logic (no MPI run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gridscope.errors import GridscopeError
from gridscope.record import launch, mpi_abi


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


# --- which collector build (MPI ABI) a command gets: record/mpi_abi.py ----------------

@pytest.mark.parametrize("launcher, mpi", [
    ("mpiexec.mpich", mpi_abi.MPICH), ("mpirun.mpich", mpi_abi.MPICH),
    ("mpiexec.hydra", mpi_abi.MPICH), ("mpirun.openmpi", mpi_abi.OPEN_MPI),
    ("orterun", mpi_abi.OPEN_MPI), ("srun", None)])
def test_launcher_names_tell_the_mpi(launcher, mpi):
    assert mpi_abi.launcher_mpi(launcher) == mpi


def test_without_a_program_open_mpi_is_the_default():
    # no executable on the command line: Debian's mpirun is Open MPI's
    assert mpi_abi.choose(["mpirun", "-np", "2", "./no-such-program"]) == (mpi_abi.OPEN_MPI, None)
    assert mpi_abi.choose(["srun", "-n", "2", "./no-such-program"]) == (mpi_abi.OPEN_MPI, None)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """The same C program built with each MPI's mpicc (MPICH's only where installed)."""
    src = tmp_path_factory.mktemp("abi") / "hello.c"
    src.write_text("#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); "
                   "MPI_Finalize(); return 0; }\n")
    out = {}
    for mpi, cc in ((mpi_abi.OPEN_MPI, "mpicc"), (mpi_abi.MPICH, "mpicc.mpich")):
        if shutil.which(cc):
            exe = src.with_name(f"hello-{mpi}")
            subprocess.run([cc, "-o", str(exe), str(src)], check=True)
            out[mpi] = exe
    return out


def need_mpich(programs) -> Path:
    if mpi_abi.MPICH not in programs:
        pytest.skip("MPICH not installed (make install installs libmpich-dev)")
    return programs[mpi_abi.MPICH]


def test_the_program_s_libmpi_decides(programs):
    exe = programs[mpi_abi.OPEN_MPI]
    assert mpi_abi.choose(["mpiexec.mpich", "-n", "2", str(exe)]) == (mpi_abi.OPEN_MPI, exe)
    mpich = need_mpich(programs)
    assert mpi_abi.choose(["mpirun", "-np", "2", str(mpich)]) == (mpi_abi.MPICH, mpich)


def test_mpich_program_gets_the_mpich_collector(programs, tmp_path):
    mpich = need_mpich(programs)
    plan = launch.plan_launch(["mpiexec.mpich", "-n", "2", str(mpich)], tmp_path / "t", None,
                              "vanilla", "16M")
    assert plan.mpi == mpi_abi.MPICH
    assert plan.env["LD_PRELOAD"].split(":")[0].endswith("libgridscope_collector_mpich.so")
    assert "-x" not in plan.command  # hydra passes the environment on by itself


def test_mpich_program_refuses_topology_collectives(programs, tmp_path):
    mpich = need_mpich(programs)
    with pytest.raises(GridscopeError, match="built for Open MPI only.*--coll vanilla"):
        launch.plan_launch(["mpiexec.mpich", "-n", "2", str(mpich)], tmp_path / "t", None,
                           "topo", "16M")


def test_mpich_program_without_the_mpich_build_is_one_error(programs, tmp_path, monkeypatch):
    mpich = need_mpich(programs)
    native = tmp_path / "native"
    (native / "lib").mkdir(parents=True)
    (native / "lib" / "libgridscope_collector.so").touch()  # an Open MPI-only install
    monkeypatch.setenv("GRIDSCOPE_NATIVE_DIR", str(native))
    with pytest.raises(GridscopeError, match="built without MPICH") as err:
        launch.plan_launch(["mpiexec.mpich", "-n", "2", str(mpich)], tmp_path / "t", None,
                           "vanilla", "16M")
    assert err.value.where == str(mpich)
