"""`gridscope diff`: difference experiments between analysis folders, end to end."""

from __future__ import annotations

import json

import pytest

from cube_samples import analysis_folder, experiment
from cube_samples import run_cli as run_gridscope
from gridscope.cube import read_cubex
from gridscope.cube.layout import layout_of
from gridscope.diff import diff_runs, load_run


@pytest.fixture
def runs(tmp_path):
    return {
        "a": analysis_folder(tmp_path / "a", experiment(scale=1.0)),
        "b": analysis_folder(tmp_path / "b", experiment(scale=0.25, extra_path=True)),
        "six": analysis_folder(tmp_path / "six", experiment(scale=0.5, ranks=6)),
    }


def test_diff_of_a_run_with_itself_is_zero_everywhere(runs, tmp_path):
    proc = run_gridscope("diff", runs["a"], runs["a"], "-o", tmp_path / "d")
    assert "no differences" in proc.stdout
    result = json.loads((tmp_path / "d" / "diff.json").read_text())
    assert result["total_time_s"] == 0 and result["mpi_time_s"] == 0
    assert all(v == 0 for split in result["patterns"].values() for v in split.values())
    assert all(r["seconds"] == 0 for r in result["by_callpath"])
    assert result["cube_changes"] == []
    exp = read_cubex(tmp_path / "d" / "diff.cubex")
    assert exp.severities.empty
    assert all(not v.any() for v in layout_of(exp, "t").dense(exp.severities).values())


def test_diff_values_and_outputs(runs, tmp_path):
    proc = run_gridscope("diff", runs["a"], runs["b"], "-o", tmp_path / "d")
    out = tmp_path / "d"
    assert {p.name for p in out.iterdir()} >= {"diff.cubex", "profile.cubex", "diff.json",
                                              "summary.json"}
    result = json.loads((out / "diff.json").read_text())
    # late_sender per rank 0.75·scale: 4 ranks × (0.1875 − 0.75) = −2.25 s, all grid
    assert result["patterns"]["late_sender"] == {"grid": pytest.approx(-2.25), "local": 0.0}
    top = result["by_callpath"][0]
    assert (top["pattern"], top["callpath"]) == ("wait_at_barrier",
                                                "main/ReadFieldsFromTrace/MPI_Barrier")
    ls = next(r for r in result["by_callpath"] if r["pattern"] == "late_sender")
    assert ls["callpath"] == "main/cgiteration/MPI_Recv"
    assert ls["percent_of_base"] == pytest.approx(100 * -2.25 / result["base_total_time_s"])
    assert "Late Sender" in proc.stdout and "main/cgiteration/MPI_Recv" in proc.stdout.replace("\n", "")
    # the new call path shows up in the cube with its full value
    exp = read_cubex(out / "diff.cubex")
    irecv = exp.severities[exp.severities.callpath == "main/cgiteration/MPI_Irecv"]
    assert irecv.value.sum() == pytest.approx(4 * 0.0625)


def test_result_is_an_analysis_folder_diff_accepts(runs, tmp_path):
    diff_runs(runs["a"], runs["b"], tmp_path / "ab")
    diff_runs(runs["a"], runs["b"], tmp_path / "ab2")
    run = load_run(tmp_path / "ab")
    assert run.is_diff
    run_gridscope("diff", tmp_path / "ab", tmp_path / "ab2", "-o", tmp_path / "zero")
    result = json.loads((tmp_path / "zero" / "diff.json").read_text())
    assert result["total_time_s"] == 0
    assert read_cubex(tmp_path / "zero" / "diff.cubex").severities.empty


def test_differing_rank_counts_with_and_without_collapse(runs, tmp_path):
    proc = run_gridscope("diff", runs["a"], runs["six"], "-o", tmp_path / "d")
    assert "rank counts differ: 4 → 6" in proc.stdout
    per_rank = read_cubex(tmp_path / "d" / "diff.cubex")
    assert list(per_rank.locations["rank"]) == list(range(6))
    run_gridscope("diff", runs["a"], runs["six"], "-o", tmp_path / "c", "--collapse-ranks")
    collapsed = read_cubex(tmp_path / "c" / "diff.cubex")
    assert len(collapsed.locations) == 1
    ls = collapsed.severities[collapsed.severities.metric == "late_sender"].value.sum()
    assert ls == pytest.approx(6 * 0.375 - 4 * 0.75)


def test_help():
    proc = run_gridscope("diff", "--help")
    assert "--collapse-ranks" in proc.stdout and "BASE" in proc.stdout


# ---- bad input: one line, exit 2 ---------------------------------------------------------

def _fails(*args) -> str:
    proc = run_gridscope(*args, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gridscope: "), proc.stderr
    return lines[0]


def test_missing_folder(runs, tmp_path):
    assert "no such directory" in _fails("diff", tmp_path / "nope", runs["a"], "-o", tmp_path / "o")


def test_folder_without_summary(runs, tmp_path):
    (tmp_path / "empty").mkdir()
    assert "summary.json is missing" in _fails("diff", runs["a"], tmp_path / "empty",
                                               "-o", tmp_path / "o")


def test_summary_not_json(runs, tmp_path):
    (runs["b"] / "summary.json").write_text("{nope")
    assert "not valid JSON" in _fails("diff", runs["a"], runs["b"], "-o", tmp_path / "o")


def test_summary_without_totals(runs, tmp_path):
    (runs["b"] / "summary.json").write_text(json.dumps({"patterns": {}}))
    assert "total_time_s" in _fails("diff", runs["a"], runs["b"], "-o", tmp_path / "o")


def test_summary_with_bad_pattern_value(runs, tmp_path):
    data = json.loads((runs["b"] / "summary.json").read_text())
    data["patterns"]["late_sender"]["grid"] = "lots"
    (runs["b"] / "summary.json").write_text(json.dumps(data))
    assert "patterns.late_sender.grid" in _fails("diff", runs["a"], runs["b"], "-o", tmp_path / "o")


def test_missing_profile(runs, tmp_path):
    (runs["b"] / "profile.cubex").unlink()
    assert "no profile.cubex" in _fails("diff", runs["a"], runs["b"], "-o", tmp_path / "o")


def test_corrupt_profile(runs, tmp_path):
    (runs["b"] / "profile.cubex").write_bytes(b"\0" * 10)
    assert "profile.cubex" in _fails("diff", runs["a"], runs["b"], "-o", tmp_path / "o")


def test_output_cannot_be_an_input(runs):
    assert "must differ" in _fails("diff", runs["a"], runs["b"], "-o", runs["b"])


def _with_rules(folder, rules):
    summary = json.loads((folder / "summary.json").read_text())
    summary["rules"] = rules
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_runs_analysed_under_different_rules_are_flagged(runs, tmp_path):
    """docs/root-causes.md, "Rules": a difference between a --rules scalasca and a --rules
    gridscope analysis is partly the rules'; diff says so (and nothing when they agree, or
    when a folder predates summary.json's "rules")."""
    plain = run_gridscope("diff", runs["a"], runs["b"], "-o", tmp_path / "plain")
    assert "--rules" not in plain.stderr
    assert json.loads((tmp_path / "plain" / "diff.json").read_text())["warnings"] == []
    _with_rules(runs["a"], "scalasca")
    same = run_gridscope("diff", runs["a"], _with_rules(runs["b"], "scalasca"), "-o", tmp_path / "same")
    assert "--rules" not in same.stderr
    mixed = run_gridscope("diff", runs["a"], _with_rules(runs["b"], "gridscope"), "-o", tmp_path / "mixed")
    assert mixed.returncode == 0
    lines = [l for l in mixed.stderr.splitlines() if "--rules" in l]
    assert lines == ["gridscope: warning: BASE was analysed with --rules scalasca and NEW with --rules gridscope: "
                     "the wait states and root causes they charge differently count as changes"]
    assert json.loads((tmp_path / "mixed" / "diff.json").read_text())["warnings"] == [lines[0].split(": ", 2)[2]]
