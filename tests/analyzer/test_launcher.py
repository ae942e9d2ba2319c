"""`gridscope analyze --launcher CMD`: the engine under the user's own launcher (srun,
mpirun with a hostfile) gives the same analysis as -j N; a missing or failing launcher is
one clear line, exit 2, no traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analyzer_helpers import fails_with, gridscope, values


def analyse_cli(trace, out, *extra) -> dict:
    proc = gridscope("analyze", trace, "-o", out, *extra, COLUMNS="200")
    assert proc.returncode == 0, proc.stderr
    assert "Late Sender" in proc.stdout  # the terminal summary
    assert sorted(p.name for p in out.iterdir()) == ["critical_path.feather", "profile.cubex", "summary.json", "waitstates.feather"]
    return json.loads((out / "summary.json").read_text())


def test_help_names_the_option_with_an_example():
    proc = gridscope("analyze", "--help", COLUMNS="200")
    assert proc.returncode == 0
    assert "--launcher" in proc.stdout and 'srun -n 64' in proc.stdout


@pytest.mark.slow
def test_launcher_gives_the_same_analysis_as_two_jobs(make_trace, tmp_path):
    trace = make_trace("callpaths")  # two metahosts, every pattern class of the spec
    two = analyse_cli(trace, tmp_path / "j2", "-j", "2")
    launched = analyse_cli(trace, tmp_path / "launched", "--launcher", "mpirun -np 2 --oversubscribe")
    assert values(launched) == values(two)
    assert launched["patterns"]["late_sender"]["grid"] > 0
    # the process count is the engine's own, not -j (which stays 1 here)
    assert launched["analysis"]["processes"] == 2
    assert len(launched["analysis"]["peak_rss_kb"]) == 2


def test_launcher_not_found(make_trace, tmp_path):
    fails_with(make_trace("late_sender"), "--launcher", "no-such-launcher-xyz -n 4", out=tmp_path / "o",
               expect_where="no-such-launcher-xyz", expect_problem="not found")
    assert not (tmp_path / "o").exists()  # checked before anything is written


@pytest.mark.parametrize("launcher, problem", [
    ("false", "analysis engine failed under --launcher 'false': exit status 1"),
    ("sh -c 'echo srun: error: no allocation >&2; exit 1'", "srun: error: no allocation"),
])
def test_failing_launcher(make_trace, tmp_path, launcher, problem):
    trace = make_trace("late_sender")
    fails_with(trace, "--launcher", launcher, out=tmp_path / "o",
               expect_where=trace / "traces.otf2", expect_problem=problem)
    assert not (tmp_path / "o" / "summary.json").exists()


def test_engine_error_under_launcher_names_the_file(make_trace, tmp_path):
    """A damaged event file (a timestamp moved back) is refused naming it, as with -j. (A
    missing one is no longer an error: its rank is a lost rank, docs/analyzer.md.)"""
    import importlib.util

    spec = importlib.util.spec_from_file_location("faultkit", Path(__file__).parents[1] / "validation" / "faultkit.py")
    faultkit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(faultkit)
    trace = tmp_path / "t"
    shutil.copytree(make_trace("late_sender"), trace)
    evt = trace / "traces" / "1.evt"
    stamps = faultkit.timestamps(evt, 1, 10**12)
    offset, value = stamps[len(stamps) // 2]
    faultkit.set_timestamp(evt, offset, value // 2)
    fails_with(trace, "--launcher", "mpirun -np 2 --oversubscribe", out=tmp_path / "o",
               expect_where=evt, expect_problem="time runs backwards on rank 1")


@pytest.mark.parametrize("extra, problem", [
    (["-j", "2", "--launcher", "mpirun -np 2"], "-j 2 and --launcher do not go together"),
    (["--launcher", ""], "--launcher is empty"),
    (["--launcher", "srun -n '4"], "No closing quotation"),
])
def test_bad_launcher_option(make_trace, tmp_path, extra, problem):
    fails_with(make_trace("late_sender"), *extra, out=tmp_path / "o", expect_where="", expect_problem=problem)


def test_mpirun_message_block_becomes_one_line():
    from gridscope.analysis.engine import _last_message

    dashes = "-" * 74
    stderr = (f"{dashes}\nearlier block\n{dashes}\n{dashes}\n\nmpirun was unable to launch the specified "
              "application as it could not access\nor execute an executable:\n\nExecutable: /x\n"
              f"{dashes}\n")
    assert _last_message(stderr) == ("mpirun was unable to launch the specified application as it could "
                                     "not access or execute an executable:")
    assert _last_message("srun: error: a\nsrun: error: task 0: Exited with exit code 2\n") == \
        "srun: error: task 0: Exited with exit code 2"
    assert _last_message("") is None
