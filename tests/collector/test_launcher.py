"""`gridscope record` for real MPI: bad input, existing folders, unwritable folders."""

from __future__ import annotations

import os
import subprocess

import pytest

from gridscope import native
from gstest import gridscope_env, run_gridscope


def _one_error_line(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0]


def test_bad_metahost_map(tmp_path):
    bad = tmp_path / "map.json"
    bad.write_text('{"jsc": ["rank:4-1"]}')
    proc = run_gridscope("record", "--metahosts", bad, "-o", tmp_path / "t", "--",
                         "mpirun", "-np", "2", "true", check=False)
    _one_error_line(proc, str(bad), "empty rank range")
    missing = run_gridscope("record", "--metahosts", tmp_path / "nope.json", "--",
                            "mpirun", "true", check=False)
    _one_error_line(missing, "nope.json", "cannot read")


def test_bad_buffer_and_missing_command(tmp_path):
    _one_error_line(run_gridscope("record", "--buffer", "lots", "-o", tmp_path / "t", "--",
                                  "mpirun", "true", check=False), "bad size 'lots'")
    _one_error_line(run_gridscope("record", "-o", tmp_path / "t", "--",
                                  "no-such-launcher-xyz", check=False), "command not found")


@pytest.mark.slow
def test_existing_output_needs_force(build_app, tmp_path):
    out = tmp_path / "trace"
    app = build_app("bcast")
    run_gridscope("record", "-o", out, "--", "mpirun", "-np", "2", app)
    again = run_gridscope("record", "-o", out, "--", "mpirun", "-np", "2", app, check=False)
    _one_error_line(again, str(out), "already exists")
    forced = run_gridscope("record", "-o", out, "--force", "--", "mpirun", "-np", "2", app)
    assert "trace written" in forced.stderr
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    refused = run_gridscope("record", "-o", other, "--force", "--", "mpirun", "-np", "2", app,
                            check=False)
    _one_error_line(refused, "does not hold a trace")
    assert (other / "keep.txt").exists()


@pytest.mark.slow
def test_default_output_name(build_app, tmp_path):
    app = build_app("bcast")
    proc = run_gridscope("record", "--", "mpirun", "-np", "2", app, cwd=tmp_path)
    expected = tmp_path / f"gridscope_{app.name}_2" / "traces.otf2"
    assert expected.exists(), proc.stderr


@pytest.mark.slow
def test_unwritable_folder_runs_unmeasured(build_app, tmp_path):
    """The collector prints one error line and the program still runs to completion."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    target = blocker / "trace"
    env = gridscope_env({"GRIDSCOPE_TRACE_DIR": str(target),
                         "LD_PRELOAD": str(native.library("libgridscope_collector.so"))})
    proc = subprocess.run(["mpirun", "-np", "4", "-x", "GRIDSCOPE_TRACE_DIR", "-x",
                           "LD_PRELOAD", build_app("bcast")], capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert "bcast ok" in proc.stdout
    errors = [l for l in proc.stderr.splitlines() if l.startswith("gridscope:")]
    assert errors == [f"gridscope: {target}: cannot create trace folder: Not a directory; "
                      "the program runs unmeasured"]
    # Through the launcher: the same line, then the launcher's own verdict.
    via = run_gridscope("record", "-o", target, "--", "mpirun", "-np", "2",
                        build_app("bcast"), check=False)
    assert via.returncode == 2 and "bcast ok" in via.stdout
    assert via.stderr.count("cannot create trace folder") == 1
    assert "no trace was written" in via.stderr.strip().splitlines()[-1]
