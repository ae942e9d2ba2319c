"""The engine started before the command line's full parse (gridscope.analysis.prelaunch): which
lines start it, that the driver adopts it only for its very own command, and that an engine
left unadopted is stopped and its folder removed."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gridscope import native
from gridscope.analysis import names as N
from gridscope.analysis import prelaunch
from gridscope.analysis.engine import engine_command
from gridscope.analysis.prelaunch import EarlyLine, parse
from gstest import gridscope_env, run_gridscope


@pytest.mark.parametrize("argv, line", [
    (["T", "-o", "OUT"], EarlyLine("T", "OUT", 1, None, "scalasca")),
    (["-j", "2", "T", "--output", "OUT"], EarlyLine("T", "OUT", 2, None, "scalasca")),
    (["T", "-j2", "-oOUT", "--no-root-causes", "-q"], EarlyLine("T", "OUT", 2, False, "scalasca")),
    (["T", "--output=OUT", "--jobs=3", "--rules", "gridscope", "--no-gains", "--allow-unmatched"],
     EarlyLine("T", "OUT", 3, None, "gridscope")),
    (["T", "-o", "A", "-o", "B", "--no-root-causes", "--root-causes"],  # the last one counts, as in click
     EarlyLine("T", "B", 1, True, "scalasca")),
])
def test_usual_lines_start_the_engine_early(argv, line):
    assert parse(argv) == line


@pytest.mark.parametrize("argv", [
    [],
    ["T"],                                   # no output
    ["T", "-o"],                             # a missing value
    ["T", "U", "-o", "OUT"],                 # two traces
    ["T", "-o", "OUT", "-j", "0"],
    ["T", "-o", "OUT", "-j", "two"],
    ["T", "-o", ""],                         # an empty output: not the current folder
    ["T", "-o", "OUT", "--rules", "Scalasca"],
    ["T", "-o", "OUT", "--time-correct"],    # options the early start leaves to the driver
    ["T", "-o", "OUT", "--metahosts", "m.json"],
    ["T", "-o", "OUT", "--launcher", "srun -n 4"],
    ["T", "-o", "OUT", "--help"],
    ["T", "-o", "OUT", "--"],
])
def test_other_lines_leave_the_start_to_the_driver(argv):
    assert parse(argv) is None


def _command(anchor: Path, out: Path, **options):
    return engine_command(anchor.absolute(), out.absolute() / N.ENGINE_DIR, 1, None, **options)


def test_an_unadopted_engine_is_stopped_and_its_folder_removed(make_trace, tmp_path):
    trace = make_trace("late_sender")
    out = tmp_path / "out"
    with prelaunch.early_engine(["analyze", str(trace), "-o", str(out)]):
        run = prelaunch.pending()
        assert (out / N.ENGINE_DIR).is_dir()
    assert run._popen.returncode is not None  # reaped
    assert not (out / N.ENGINE_DIR).exists()


def test_another_command_is_not_adopted(make_trace, tmp_path):
    trace = make_trace("late_sender")
    out = tmp_path / "out"
    with prelaunch.early_engine(["analyze", str(trace), "-o", str(out), "--no-root-causes"]):
        run = prelaunch.pending()
        assert prelaunch.adopt(_command(trace / "traces.otf2", out)) is None  # root causes on: another command
        assert run._popen.returncode is not None
        assert not (out / N.ENGINE_DIR).exists()
        assert prelaunch.pending() is None


def test_the_same_command_is_adopted(make_trace, tmp_path):
    trace = make_trace("late_sender")
    out = tmp_path / "out"
    with prelaunch.early_engine(["analyze", str(trace), "-o", str(out), "--no-root-causes"]):
        with prelaunch.adopt(_command(trace / "traces.otf2", out, root_causes=False)) as engine:
            engine.wait()
            assert json.loads((out / N.ENGINE_DIR / "meta.json").read_text())["ranks"] > 0
        assert prelaunch.pending() is None
    assert (out / N.ENGINE_DIR / "meta.json").is_file()  # adopted: the block's end leaves it alone


def _counting_native(tmp_path: Path) -> tuple[Path, Path]:
    """A native folder whose engine logs each start, then runs the real one."""
    real = native.binary(N.ENGINE_BINARY)
    folder, log = tmp_path / "native", tmp_path / "starts.log"
    (folder / "bin").mkdir(parents=True)
    wrapper = folder / "bin" / N.ENGINE_BINARY
    wrapper.write_text(f"#!/bin/sh\necho start >> '{log}'\nexec '{real}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return folder, log


@pytest.mark.parametrize("options", [[], ["-j", "2", "--no-root-causes"], ["--time-correct"]])
def test_analyze_starts_the_engine_once(make_trace, tmp_path, options):
    folder, log = _counting_native(tmp_path)
    out = tmp_path / "out"
    run_gridscope("analyze", make_trace("late_sender"), "-o", out, "-q", *options,
                  env={"GRIDSCOPE_NATIVE_DIR": str(folder)})
    assert log.read_text() == "start\n"
    assert json.loads((out / N.SUMMARY_FILE).read_text())["ranks"] > 0
    assert not (out / N.ENGINE_DIR).exists()


_ADOPTIONS = """
import sys
from gridscope.analysis import prelaunch
from gridscope.cli import main

real = prelaunch.adopt
def adopt(command):
    run = real(command)
    print("adopted" if run is not None else "started by the driver", file=sys.stderr)
    return run
prelaunch.adopt = adopt
main(sys.argv[1:])
"""


@pytest.mark.parametrize("options, how", [([], "adopted"), (["-j", "2", "--no-root-causes"], "adopted"),
                                          (["--time-correct"], "started by the driver")])
def test_analyze_adopts_the_engine_it_started_early(make_trace, tmp_path, options, how):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", _ADOPTIONS, "analyze", str(make_trace("late_sender")),
                           "-o", str(out), "-q", *options], capture_output=True, text=True, env=gridscope_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [how]
