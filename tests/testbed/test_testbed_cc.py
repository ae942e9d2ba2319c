"""`gridscope cc`: argument handling and the link line for simulated builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from gstest import run_gridscope
from gridscope.errors import GridscopeError
from gridscope.testbed.cc import compile_command, split_output


def test_split_output_keeps_compiler_flags_intact():
    args, out = split_output(["a.c", "-I/home/x/include", "-O2", "-o", "bin/app", "-lm"])
    assert args == ["a.c", "-I/home/x/include", "-O2", "-lm"] and out == Path("bin/app")
    assert split_output(["a.c", "-oapp"])[1] == Path("app")
    with pytest.raises(GridscopeError, match="-o BIN"):
        split_output(["a.c"])


def test_simulated_link_line_takes_the_collector_whole(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libgridscope_collector_smpi.a").write_bytes(b"!<arch>\n")
    (tmp_path / "include").mkdir()
    monkeypatch.setenv("GRIDSCOPE_NATIVE_DIR", str(tmp_path))
    argv = compile_command(["x.c"], Path("x"), simulate=True).argv
    assert argv[0] == "smpicc" and f"-I{tmp_path / 'include'}" in argv
    start = argv.index("-Wl,--whole-archive")
    assert argv[start + 1] == str(lib / "libgridscope_collector_smpi.a")
    assert argv[start + 2] == "-Wl,--no-whole-archive"
    assert "-lopen-trace-format2" in argv
    # the topology-aware collectives are linked in too once they are installed
    (lib / "libgridscope_coll_smpi.a").write_bytes(b"!<arch>\n")
    argv = compile_command(["x.c"], Path("x"), simulate=True).argv
    whole = argv[argv.index("-Wl,--whole-archive") + 1: argv.index("-Wl,--no-whole-archive")]
    assert [Path(a).name for a in whole] == ["libgridscope_collector_smpi.a",
                                             "libgridscope_coll_smpi.a"]
    assert compile_command(["x.c"], Path("x"), simulate=False).argv[0] == "mpicc"


def test_missing_collector_is_one_clear_line(tmp_path):
    src = tmp_path / "x.c"
    src.write_text("int main(void) { return 0; }\n")
    proc = run_gridscope("cc", "--simulate", src, "-o", tmp_path / "x", check=False,
                         env={"GRIDSCOPE_NATIVE_DIR": str(tmp_path)})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "libgridscope_collector_smpi.a" in lines[0]
    assert "SimGrid build of the collector is missing" in lines[0]


def test_missing_source_and_compile_error(tmp_path):
    proc = run_gridscope("cc", tmp_path / "nope.c", "-o", tmp_path / "x", check=False)
    assert proc.returncode == 2 and "source file does not exist" in proc.stderr
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return missing; }\n")
    proc = run_gridscope("cc", bad, "-o", tmp_path / "bad", check=False)
    assert proc.returncode == 2
    assert "missing" in proc.stderr  # the compiler's own message reaches the user
    assert proc.stderr.strip().splitlines()[-1] == \
        f"gridscope: {tmp_path / 'bad'}: mpicc failed (exit 1); see its messages above"


def test_installed_demo_apps_build(tmp_path):
    from gridscope.testbed.apps import APPS, build_app, source

    for app in APPS:
        assert source(app).is_file()
    out = build_app("collbench", tmp_path / "collbench", simulate=False)
    assert out.is_file()
    with pytest.raises(GridscopeError, match="not a demo application"):
        source("hpl")
