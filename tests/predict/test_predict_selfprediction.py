"""Self-prediction (issue 14's first "done when"): metatrace recorded on viola and predicted
on its own platform with its own collectives gives the recording's total time within 2 %
and each of its top-3 wait states within 5 %.

Why these tolerances hold and are not loose: recording and replay run the same simulator on
the same hosts; the replay issues the same MPI calls with the same sizes, and computation
is the recorded time between calls. What differs is how communicators are built (once, by
splits, instead of MPI_Comm_split + MPI_Cart_create) and MPI_Test* replayed as
MPI_Waitall; measured errors are <= 0.02 % (total) and <= 0.8 % (wait states) at 12 steps
(docs/perf-predict.md). The issue's thresholds are asserted, not the measured errors."""

from __future__ import annotations

import json

import pytest

from gstest import REPO, run_gridscope

from gridscope.predict.validate import compare

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def metatrace(tmp_path_factory):
    out = tmp_path_factory.mktemp("mt") / "mt"
    apps = REPO / "testdata" / "apps"
    run_gridscope("cc", "--simulate", apps / "metatrace" / "metatrace.c", f"-I{apps / 'common'}",
                  "-O1", "-lm", "-o", out)
    return out


@pytest.mark.parametrize("opt", [0, 2])
def test_self_prediction_metatrace(metatrace, tmp_path, opt):
    run_gridscope("record", "--platform", "viola", "--layout", "8,4", "-o", tmp_path / "rec",
                  "--", metatrace, "--opt", str(opt), "--steps", "4")
    run_gridscope("analyze", tmp_path / "rec", "-o", tmp_path / "an", "-q")
    proc = run_gridscope("predict", tmp_path / "rec", "-o", tmp_path / "pred")
    assert "predicted total time" in proc.stdout
    recorded = json.loads((tmp_path / "an" / "summary.json").read_text())
    predicted = json.loads((tmp_path / "pred" / "summary.json").read_text())
    pred = predicted["prediction"]
    assert pred["platform"] == "preset viola" and pred["collectives"] == "vanilla"
    assert pred["from"] == str(tmp_path / "rec" / "traces.otf2")
    assert (tmp_path / "pred" / "trace" / "traces.otf2").is_file()
    assert predicted["metahosts"] == recorded["metahosts"]
    rows = compare(recorded, predicted)
    assert len(rows) == 4 and rows[1].recorded_s > 0
    assert rows[0].error <= 0.02, rows[0]
    for row in rows[1:]:
        assert row.error <= 0.05, row


def test_self_prediction_nonblocking_collectives(tmp_path):
    # testdata/apps/nbc: rank 0 computes 2 ms before each of 20 MPI_Iallreduce + MPI_Wait, then
    # MPI_Ibarrier + MPI_Wait; the others wait for it in the MPI_Wait of each allreduce. The
    # replay issues the same non-blocking collectives (completed by MPI_Waitall).
    apps = REPO / "testdata" / "apps"
    exe = tmp_path / "nbc"
    run_gridscope("cc", "--simulate", apps / "nbc" / "nbc.c", f"-I{apps / 'common'}", "-O1", "-lm",
                  "-o", exe)
    run_gridscope("record", "--platform", "grid5000-2", "-np", "4", "-o", tmp_path / "rec", "--", exe)
    run_gridscope("analyze", tmp_path / "rec", "-o", tmp_path / "an", "-q")
    run_gridscope("predict", tmp_path / "rec", "-o", tmp_path / "pred")
    recorded = json.loads((tmp_path / "an" / "summary.json").read_text())
    predicted = json.loads((tmp_path / "pred" / "summary.json").read_text())
    assert predicted["collectives"] == recorded["collectives"] == 21
    acts = (tmp_path / "pred" / "replay" / "rank-1.act").read_text().splitlines()
    assert sum(line.startswith("ix allreduce ") for line in acts) == 20
    assert sum(line.startswith("ix barrier ") for line in acts) == 1
    waits = {(r["pattern"], r["callpath"]) for r in predicted["by_callpath"]}
    assert ("wait_at_nxn", "gs_replay_actions/MPI_Waitall") in waits
    rows = compare(recorded, predicted)
    assert rows[0].error <= 0.02, rows[0]
    for row in rows[1:]:
        assert row.error <= 0.05, row
