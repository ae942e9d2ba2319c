"""Browser tests at 1,024 ranks (issue 27): the behaviours the analyst relies on, checked on a
generated 1,024-rank run on four metahosts as well as on the small runs of test_browser.py.
The run is a real `gridscope analyze` of a `gs-tracegen synth` trace (a ring and an
Allreduce per iteration)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_browser import node_project, viewed  # noqa: F401  (the fixture is used by name)
from viewer_fixtures import synth_trace
from viewer_shared import run_gridscope

RANKS = 1024


@pytest.fixture(scope="module")
def thousand_run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("viewer-1024")
    anchor = synth_trace(base / "trace", ranks=RANKS, metahosts=4, iterations=2)
    run = base / "run"
    run_gridscope("analyze", anchor, "-o", run, "-q", "--no-gains")
    return run


def largest_pattern(run: Path) -> str:
    patterns = json.loads((run / "summary.json").read_text())["patterns"]
    return max(patterns, key=lambda p: patterns[p]["grid"] + patterns[p]["local"])


def test_largest_pattern_shows_where_it_is(node_project, thousand_run):
    """Clicking the largest pattern of a fresh view gives non-zero call and system trees, with
    percentages, and the timeline has a row per rank."""
    pattern = largest_pattern(thousand_run)
    report = viewed(node_project, thousand_run, "largest", pattern)
    assert report["selected"] == "true"
    assert report["rows"] == RANKS
    for tree in ("call_values", "system_values"):
        shown = [(value, pct) for _, value, pct in report[tree] if value not in ("0 s", "–")]
        assert shown and all(pct.endswith(" %") for _, pct in shown), report[tree]


def test_labels_at_any_density_and_vertical_zoom(node_project, thousand_run):
    """1,024 rows: every step-th label (11 px apart); taller rows, fewer skipped labels."""
    report = viewed(node_project, thousand_run, "rows")
    h, step = report["row_height"], report["label_step"]
    assert step == (1 if h >= 9 else -(-11 // h)) and step > 1
    assert report["row_height_taller"] > h and report["label_step_taller"] <= step
    assert report["row_height_back"] < report["row_height_taller"]


def test_matrix_has_axes_legend_and_consistent_byte_kinds(node_project, thousand_run):
    report = viewed(node_project, thousand_run, "matrix")
    assert report["label_step"] >= 1
    assert "scale" in report["legend_text"]
    totals = report["kind_totals"]
    assert totals["p2p"] > 0 and totals["collective"] > 0
    assert abs(totals["all"] - totals["p2p"] - totals["collective"]) < 1e-6 * totals["all"]


def test_groups_collapse_and_ranks_filter(node_project, thousand_run):
    groups = viewed(node_project, thousand_run, "groups")
    assert groups["height_collapsed"] < groups["height_open"] and groups["collapsed_after"] == ""
    ranks = viewed(node_project, thousand_run, "filter")
    assert ranks["all_rows"] == RANKS and ranks["filtered"] == [0, 1, 2, 5]
