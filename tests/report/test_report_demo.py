"""`gridscope demo`: the plan of commands, failure handling, and the whole job."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gridscope.demo import (CYCLES, Outcome, Step, blocked_by, failure_line, plan, run_demo,
                            summarise)
from gridscope.errors import GridscopeError

TYPER_ERROR = """Usage: gridscope [OPTIONS] COMMAND [ARGS]...
Try 'gridscope -h' for help.
╭─ Error ──────────────────────────────────────────────────────────────────────╮
│ No such command 'compare'.                                                   │
╰──────────────────────────────────────────────────────────────────────────────╯
"""


def test_plan_runs_the_public_commands_in_order(tmp_path):
    steps = plan(tmp_path, Path("/apps"))
    keys = [s.key for s in steps]
    assert keys == ["build", "record0", "analyze0", "record1", "analyze1", "record2",
                    "analyze2", "compare", "diff01", "diff12", "predict", "diff_predicted", "report"]
    predict = next(s for s in steps if s.key == "predict")
    assert predict.args[:2] == ("predict", str(tmp_path / "metatrace-opt1")) and predict.needs == ("analyze1",)
    assert predict.args[-3:] == ("--speedup", "cgiteration=0.8", "--force")
    record1 = next(s for s in steps if s.key == "record1").args
    assert record1[:3] == ("record", "--platform", "viola")
    assert ("-np", "24") == record1[3:5] and record1[-2:] == ("--opt", "1")
    analyze1 = next(s for s in steps if s.key == "analyze1").args
    assert analyze1[-2:] == (str(tmp_path / "metatrace-opt1"), "-q")
    assert next(s for s in steps if s.key == "compare").args[:5] == (
        "compare", "--platform", "grid5000-2", "-np", "16")
    report = next(s for s in steps if s.key == "report")
    assert set(report.needs) == {f"analyze{c}" for c in CYCLES}
    assert str(tmp_path / "report.html") in report.args


def test_failure_line_finds_the_reason():
    assert failure_line(TYPER_ERROR) == "No such command 'compare'."
    assert failure_line("progress\ngridscope: x.otf2: truncated\nmore") == \
        "gridscope: x.otf2: truncated"
    assert failure_line("") == ""


def test_steps_after_a_failure_are_skipped_not_faked():
    step = Step("diff01", "diff", ("diff",), needs=("analyze0", "analyze1"))
    outcomes = {"analyze0": Outcome(Step("analyze0", "", ()), "ok"),
                "analyze1": Outcome(Step("analyze1", "", ()), "failed", "boom")}
    assert blocked_by(step, outcomes) == ["analyze1"]
    outcomes["analyze1"].status = "ok"
    assert blocked_by(step, outcomes) == []
    report = Step("report", "report", ("report",), needs=("compare",))
    assert blocked_by(report, {"compare": Outcome(Step("compare", "", ()), "omitted")}) == []


def test_failed_steps_are_one_line_each(tmp_path, monkeypatch):
    """A command that does not exist fails its step in one line; dependants are skipped."""
    import gridscope.demo as demo

    def fake_plan(out, apps, full_compare=False):
        return [Step("compare", "compare", ("no-such-command",)),
                Step("report", "report", ("version",), needs=("compare",)),
                Step("version", "version", ("version",))]

    monkeypatch.setattr(demo, "plan", fake_plan)
    apps = tmp_path / "apps" / "metatrace"
    apps.mkdir(parents=True)
    (apps / "metatrace.c").write_text("int main(void) { return 0; }\n")
    outcomes = {o.step.key: o for o in demo.run_demo(tmp_path / "out", apps=apps.parent)}
    assert outcomes["compare"].status == "failed"
    assert "`gridscope no-such-command` is not available" in outcomes["compare"].line
    assert "\n" not in outcomes["compare"].line
    assert outcomes["report"].status == "skipped" and "compare" in outcomes["report"].line
    assert outcomes["version"].status == "ok"
    assert (tmp_path / "out" / "logs" / "compare.log").is_file()


def test_missing_sources_are_one_clear_error(tmp_path):
    with pytest.raises(GridscopeError, match="demo application sources are missing"):
        run_demo(tmp_path / "out", apps=tmp_path / "no-apps")


def test_summarise_needs_two_cycles(tmp_path):
    assert summarise(tmp_path) is None


def _native_ready() -> bool:
    try:
        from gridscope import native
        return (native.native_dir() / "lib" / "libgridscope_collector_smpi.a").is_file() \
            and shutil.which("smpicc") is not None
    except GridscopeError:
        return False


@pytest.fixture(scope="module")
def demo_run(request):
    if not _native_ready():
        pytest.skip("needs the native build (make install) and SimGrid")
    # --no-compare: the collectives comparison is tested by its own part
    return request.getfixturevalue("demo_without_compare")


@pytest.mark.slow
def test_demo_runs_every_step_it_has(demo_run):
    out, proc = demo_run
    lines = proc.stdout.splitlines()
    for c in CYCLES:
        assert any(re.match(rf"✓ record metatrace --opt {c} ", ln) for ln in lines), proc.stdout
        assert (out / f"metatrace-opt{c}" / "summary.json").is_file()
        assert (out / f"metatrace-opt{c}" / "profile.cubex").is_file()
    assert (out / "diff-opt0-opt1" / "diff.cubex").is_file()
    assert (out / "diff-opt1-opt2" / "summary.json").is_file()
    html = (out / "report.html").read_text()
    for section in ("summary", "cycles", "diffs"):
        assert f'id="{section}"' in html
    assert any(ln.startswith("– compare collectives") and "left out on request" in ln
               for ln in lines), proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert 'id="collectives"' not in html


@pytest.mark.slow
def test_demo_cycle_0_to_1_reduces_late_sender_in_cgiteration(demo_run):
    out, _ = demo_run
    diff = json.loads((out / "diff-opt0-opt1" / "diff.json").read_text())
    cg = [r for r in diff["by_callpath"] if r["pattern"] == "late_sender"
          and "/cgiteration/" in r["callpath"]]
    assert sum(r["seconds"] for r in cg) < 0
    biggest = min(cg, key=lambda r: r["seconds"])
    assert biggest["percent_of_base"] < -1.0


@pytest.mark.slow
@pytest.mark.parametrize("row", ["MPI fraction", "Wait at Barrier", "Late Sender", "Wait at NxN"])
def test_demo_table5_falls_every_cycle(demo_run, row):
    out, _ = demo_run
    assert summarise(out).trends[row]

